// HashIndex: a string-keyed hash index that readers search without locks
// while one writer at a time changes it.
//
// It maps a node's key to the node; the nodes are owned by the caller (the
// index never frees a node, only its own slot arrays). The table is open
// addressing with linear probing over atomic node pointers, kept at most
// half full so a lookup touches one or two slots. Updating an entry is one
// atomic store of the new node into its slot; erasing leaves a tombstone;
// growing (or sweeping tombstones) builds a new slot array, publishes it and
// retires the old one through the epoch domain. A single update is O(1);
// rebuilds are amortized O(1) per insert.
//
// Threading: Find() may run concurrently with everything, inside an
// EpochGuard (which also keeps the returned node alive when the caller
// retires nodes through the same domain). Insert/Replace/Erase/ForEach must
// be serialized by the caller (one writer at a time).
//
// `Node` provides `uint64_t hash() const` and `std::string_view key() const`,
// both immutable.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "skade/cache/epoch.h"

namespace skade::cache {

template <typename Node>
class HashIndex {
 public:
  HashIndex() : table_(Table::Make(kMinCapacity)) {}
  ~HashIndex() { Table::Free(table_.load()); }
  HashIndex(const HashIndex&) = delete;
  HashIndex& operator=(const HashIndex&) = delete;

  /// The node with `key` (whose hash is `hash`), or null. Call inside an
  /// EpochGuard; the node stays valid until the guard ends.
  const Node* Find(uint64_t hash, std::string_view key) const {
    const Table* table = table_.load();
    for (size_t i = hash & table->mask;; i = (i + 1) & table->mask) {
      const Node* node = table->slots[i].load();
      if (node == nullptr) return nullptr;
      if (node != Tombstone() && node->hash() == hash && node->key() == key) return node;
    }
  }

  // --- Writer side (one at a time) ---------------------------------------

  /// Adds `node`, whose key must not be present.
  void Insert(const Node* node) {
    Table* table = table_.load();
    if ((table->used + 1) * 2 > table->mask + 1) table = Rebuild(size_ + 1);
    for (size_t i = node->hash() & table->mask;; i = (i + 1) & table->mask) {
      if (table->slots[i].load() == nullptr) {
        table->slots[i].store(node);
        ++table->used;
        ++size_;
        return;
      }
    }
  }

  /// Puts `replacement` in place of `existing` (same key). Readers see one
  /// or the other, never neither.
  void Replace(const Node* existing, const Node* replacement) {
    SlotOf(existing)->store(replacement);
  }

  /// Removes `node`. Readers that already found it may keep using it while
  /// their guard lasts.
  void Erase(const Node* node) {
    SlotOf(node)->store(Tombstone());
    --size_;
  }

  /// Calls `fn(node)` for every node.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    const Table* table = table_.load();
    for (size_t i = 0; i <= table->mask; ++i) {
      const Node* node = table->slots[i].load();
      if (node != nullptr && node != Tombstone()) fn(node);
    }
  }

  size_t size() const { return size_; }

 private:
  static constexpr size_t kMinCapacity = 16;

  struct Table {
    size_t mask;
    size_t used;  // live nodes plus tombstones
    std::unique_ptr<std::atomic<const Node*>[]> slots;

    static Table* Make(size_t capacity) {
      auto* table = new Table{capacity - 1, 0, nullptr};
      table->slots.reset(new std::atomic<const Node*>[capacity]);
      for (size_t i = 0; i < capacity; ++i)
        table->slots[i].store(nullptr, std::memory_order_relaxed);
      return table;
    }
    static void Free(void* table) { delete static_cast<Table*>(table); }
  };

  // A distinct non-null address no node can have.
  static const Node* Tombstone() { return reinterpret_cast<const Node*>(&tombstone_tag_); }

  std::atomic<const Node*>* SlotOf(const Node* node) {
    Table* table = table_.load();
    for (size_t i = node->hash() & table->mask;; i = (i + 1) & table->mask) {
      if (table->slots[i].load() == node) return &table->slots[i];
    }
  }

  // Moves the live nodes into a new array sized for `live` entries at most a
  // quarter full, publishes it, and retires the old one.
  Table* Rebuild(size_t live) {
    size_t capacity = kMinCapacity;
    while (capacity < live * 4) capacity *= 2;
    Table* old_table = table_.load();
    Table* table = Table::Make(capacity);
    for (size_t i = 0; i <= old_table->mask; ++i) {
      const Node* node = old_table->slots[i].load(std::memory_order_relaxed);
      if (node == nullptr || node == Tombstone()) continue;
      size_t j = node->hash() & table->mask;
      while (table->slots[j].load(std::memory_order_relaxed) != nullptr) j = (j + 1) & table->mask;
      table->slots[j].store(node, std::memory_order_relaxed);
      ++table->used;
    }
    table_.store(table);
    Retire(old_table, &Table::Free);
    return table;
  }

  static inline const char tombstone_tag_ = 0;
  std::atomic<Table*> table_;
  size_t size_ = 0;  // live nodes; writer-side only
};

}  // namespace skade::cache
