#include "skade/cache/hash_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace skade::cache {
namespace {

struct Node {
  Node(std::string k, uint64_t h, int v) : key_(std::move(k)), hash_(h), value(v) {}
  uint64_t hash() const { return hash_; }
  std::string_view key() const { return key_; }
  std::string key_;
  uint64_t hash_;
  int value;
};

// A deliberately poor hash, so probes collide and wrap around.
uint64_t Hash(const std::string& key) { return std::hash<std::string>()(key) % 7; }

TEST(HashIndexTest, InsertFindReplaceErase) {
  HashIndex<Node> index;
  std::vector<std::unique_ptr<Node>> nodes;
  for (int i = 0; i < 1000; ++i) {
    std::string key = "k" + std::to_string(i);
    nodes.push_back(std::make_unique<Node>(key, Hash(key), i));
    index.Insert(nodes.back().get());
  }
  EXPECT_EQ(index.size(), 1000u);
  EpochGuard guard;
  for (int i = 0; i < 1000; ++i) {
    std::string key = "k" + std::to_string(i);
    const Node* found = index.Find(Hash(key), key);
    ASSERT_NE(found, nullptr) << key;
    EXPECT_EQ(found->value, i);
  }
  EXPECT_EQ(index.Find(Hash("absent"), "absent"), nullptr);

  auto replacement = std::make_unique<Node>("k5", Hash("k5"), 555);
  index.Replace(nodes[5].get(), replacement.get());
  EXPECT_EQ(index.Find(Hash("k5"), "k5")->value, 555);
  for (int i = 0; i < 1000; i += 2) index.Erase(nodes[i].get());
  EXPECT_EQ(index.size(), 500u);
  for (int i = 0; i < 1000; ++i) {
    std::string key = "k" + std::to_string(i);
    EXPECT_EQ(index.Find(Hash(key), key) != nullptr, i % 2 == 1) << key;
  }
  size_t visited = 0;
  index.ForEach([&](const Node*) { ++visited; });
  EXPECT_EQ(visited, 500u);
}

// Readers look up keys that always exist while the writer inserts, replaces
// and erases others (forcing rebuilds): they must always find them, with a
// value of the right key.
TEST(HashIndexTest, ReadersAlwaysFindStableKeysWhileTheWriterChurns) {
  HashIndex<Node> index;
  std::vector<std::string> stable_keys;  // read-only once the readers start
  std::vector<Node*> stable_nodes;       // the writer's
  for (int i = 0; i < 64; ++i) {
    stable_keys.push_back("stable" + std::to_string(i));
    stable_nodes.push_back(new Node(stable_keys.back(), Hash(stable_keys.back()), i));
    index.Insert(stable_nodes.back());
  }
  std::atomic<bool> stop{false};
  std::atomic<int> misses{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        for (const auto& key : stable_keys) {
          EpochGuard guard;
          const Node* found = index.Find(Hash(key), key);
          if (found == nullptr || found->key() != key) ++misses;
        }
      }
    });
  }
  std::vector<Node*> churn;
  for (int round = 0; round < 20000; ++round) {
    std::string key = "churn" + std::to_string(round);
    churn.push_back(new Node(key, Hash(key), round));
    index.Insert(churn.back());
    if (churn.size() > 100) {
      index.Erase(churn.front());
      RetireObject(churn.front());
      churn.erase(churn.begin());
    }
    if (round % 7 == 0) {
      Node*& node = stable_nodes[round % 64];
      auto* copy = new Node(node->key_, node->hash_, node->value);
      index.Replace(node, copy);
      RetireObject(node);
      node = copy;
    }
  }
  stop = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(misses.load(), 0);
  EXPECT_EQ(index.size(), 64u + churn.size());
  for (Node* node : churn) delete node;
  for (Node* node : stable_nodes) delete node;
}

}  // namespace
}  // namespace skade::cache
