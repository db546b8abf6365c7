// StaticTree: an immutable, cache-line-blocked static search tree (S+-tree)
// over sorted 64-bit keys.
//
// Layout: every node is 16 keys (two 64-byte cache lines). The leaf level is
// the sorted keys themselves, padded to a whole node with UINT64_MAX; an
// inner node holds 16 separator keys and has 17 children, whose places are
// computed from the node's, never pointed to, so a lookup is one SIMD rank
// (count of keys below the probe) per level. Separator j of an inner node is
// the smallest key under its child j + 1 (UINT64_MAX where that child does not
// exist), which is what makes a rank of "keys < probe" land on the first key
// >= probe even among duplicates. Levels are stored root first in one
// contiguous, 64-byte aligned array of words: inner nodes are a small prefix
// (about 1/16 of the whole) that stays hot when the array is memory-mapped and
// the leaves are not.
//
// A single lookup first reads a jump table derived from the layout (not
// stored): the key range cut into buckets, each naming the node of a deep
// level (the leaves themselves up to about a million keys) where the
// searches of its keys arrive (one node, or two told apart by one compare),
// so the levels above are skipped for most keys; a bucket that spans more
// nodes starts at the root.
//
// Keys may repeat (equal snapshot ids of different tables). Positions are
// indexes into the sorted input: LowerBound(k) is what std::lower_bound
// would return, so a caller keeps its payload in a parallel array.
//
// The rank kernel (AVX-512, AVX2 or portable scalar) is chosen once per
// process from the CPU; the layout does not depend on it.
//
// Thread safety: immutable after Build()/View(); any number of threads may
// look up concurrently. A View() does not own its words: the caller keeps
// them (a mapped file) alive and unchanged for the tree's lifetime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "skade/util/result.h"

namespace skade::index {

class StaticTree {
 public:
  static constexpr size_t kNodeKeys = 16;

  /// An empty tree (size() == 0; every LowerBound is 0).
  StaticTree() = default;
  /// A moved-from tree is empty.
  StaticTree(StaticTree&& other) noexcept;
  StaticTree& operator=(StaticTree&& other) noexcept;

  /// Builds the tree over `sorted_keys` (ascending; duplicates allowed) in
  /// O(n), into memory the tree owns. kInvalidArgument if the keys are not
  /// sorted.
  static Result<StaticTree> Build(std::span<const uint64_t> sorted_keys);

  /// How many words the layout of a tree over `key_count` keys has.
  static size_t LayoutWords(size_t key_count);

  /// A tree over a layout that Build() produced (words()), e.g. read back from
  /// a mapped file: no copy. `words` must be 64-byte aligned and hold
  /// LayoutWords(key_count) words; kInvalidArgument otherwise. With `verify`
  /// it also checks, in O(n), that the leaf keys are sorted, the padding is
  /// UINT64_MAX and every inner separator is what Build() would have written,
  /// so lookups over a damaged file cannot return wrong positions silently.
  /// Without `verify` the caller vouches for the content (a checksummed file).
  static Result<StaticTree> View(std::span<const uint64_t> words, size_t key_count, bool verify);

  /// The number of keys (without padding).
  size_t size() const { return key_count_; }
  /// The whole layout, root level first, to persist.
  std::span<const uint64_t> words() const { return words_; }
  /// The sorted keys (the leaf level without padding).
  std::span<const uint64_t> keys() const { return words_.subspan(leaf_offset_, key_count_); }

  /// The position of the first key >= `key`, or size() if there is none.
  size_t LowerBound(uint64_t key) const;

  /// out[i] = LowerBound(keys[i]) for every i, with the searches interleaved
  /// and their next nodes prefetched so their memory latencies overlap.
  /// `out` must be at least as long as `keys`.
  void LowerBoundBatch(std::span<const uint64_t> keys, std::span<size_t> out) const;

 private:
  // Fills the level table for `key_count` keys over `words_`.
  void SetShape(size_t key_count);
  // The number of nodes of `level` (root first).
  size_t LevelNodeCount(size_t level) const;
  // Derives the jump table from the inner levels (not persisted: O(nodes of
  // the jump level + buckets), without reading a leaf).
  void BuildJumpTable();

  std::unique_ptr<uint64_t[], void (*)(uint64_t*)> owned_{nullptr, nullptr};
  std::span<const uint64_t> words_;
  size_t key_count_ = 0;
  size_t leaf_offset_ = 0;
  // Word offset of every level, root first; the last is the leaf level
  // (leaf_offset_). 16 levels hold 16 * 17^15 keys, more than 2^64.
  static constexpr size_t kMaxLevels = 16;
  size_t level_offsets_[kMaxLevels] = {};
  size_t level_count_ = 0;
  // A single lookup's shortcut past the top levels: the key range, cut into
  // buckets of 2^jump_shift_ keys, each mapped to the one or two nodes of
  // level jump_level_ where the searches of its keys arrive (or to "start at
  // the root"). Null for a tree of one node.
  std::unique_ptr<uint64_t[]> jump_;
  size_t jump_level_ = 0;
  unsigned jump_shift_ = 0;
  uint64_t jump_min_ = 0;
  uint64_t jump_max_ = 0;
};

}  // namespace skade::index
