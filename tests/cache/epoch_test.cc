#include "skade/cache/epoch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace skade::cache {
namespace {

std::atomic<int> g_freed{0};

struct Tracked {
  explicit Tracked(uint64_t v) : value(v) {}
  ~Tracked() {
    value = 0xdead;
    ++g_freed;
  }
  uint64_t value;
};

// Retires until everything queued before has been freed (or gives up).
void Settle() {
  for (int i = 0; i < 100 && ReclaimRetired() > 0; ++i) std::this_thread::yield();
}

TEST(EpochTest, RetiredObjectOutlivesTheGuardsThatMightSeeIt) {
  Settle();
  int freed_before = g_freed.load();
  auto* object = new Tracked(7);
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  std::thread reader([&] {
    EpochGuard guard;
    EpochGuard nested;  // guards nest
    entered = true;
    while (!release) std::this_thread::yield();
    EXPECT_EQ(object->value, 7u);
  });
  while (!entered) std::this_thread::yield();
  RetireObject(object);
  for (int i = 0; i < 20; ++i) ReclaimRetired();
  EXPECT_EQ(g_freed.load(), freed_before) << "freed while a guard could still see it";
  release = true;
  reader.join();
  Settle();
  EXPECT_EQ(g_freed.load(), freed_before + 1);
}

// Readers follow a published pointer while a writer keeps replacing and
// retiring it; a reader must never see a freed object (the destructor
// scribbles 0xdead; ASan/TSan builds catch the use-after-free directly).
TEST(EpochTest, ReadersNeverSeeFreedObjectsUnderChurn) {
  std::atomic<Tracked*> published{new Tracked(1)};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        EpochGuard guard;
        const Tracked* seen = published.load();
        for (int spin = 0; spin < 50; ++spin) {
          if (seen->value == 0xdead) ++bad;
        }
      }
    });
  }
  for (uint64_t i = 2; i < 20000; ++i) RetireObject(published.exchange(new Tracked(i)));
  stop = true;
  for (auto& reader : readers) reader.join();
  RetireObject(published.load());
  Settle();
  EXPECT_EQ(bad.load(), 0u);
}

}  // namespace
}  // namespace skade::cache
