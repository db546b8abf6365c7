#include "skade/index/static_tree.h"

#include <sys/mman.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "skade/index/static_tree_internal.h"

namespace skade::index {

namespace {

constexpr size_t kNodeKeys = StaticTree::kNodeKeys;
constexpr size_t kChildren = kNodeKeys + 1;
constexpr uint64_t kPadding = std::numeric_limits<uint64_t>::max();
// Far beyond any memory, and small enough that no layout size overflows.
constexpr size_t kMaxKeys = size_t{1} << 58;
// Searches in flight in LowerBoundBatch: a search's next node is prefetched
// this many ranks (several hundred cycles, about a DRAM miss) before it is
// read, and the group's nodes (8 KiB per level) stay in L1. 32 and 128
// measured no better at 10^6 and 10^8 keys.
constexpr size_t kBatchGroup = 64;
// Levels a layout can have (StaticTree::kMaxLevels; the array parameter of
// LevelNodes() makes a mismatch a compile error).
constexpr size_t kMaxLevels = 16;

// The jump table's entry for a bucket whose keys reach more than two nodes
// of the jump level: its lookups start at the root. (No other entry is all
// ones: a node index needs far fewer bits than the shift leaves it.)
constexpr uint64_t kStartAtRoot = std::numeric_limits<uint64_t>::max();

// What a lookup needs of a tree, made per call for the kernels so that they
// do not depend on StaticTree's private members.
struct TreeShape {
  const uint64_t* words;
  const size_t* level_offsets;  // root first; the last is the leaf level
  size_t level_count;
  size_t key_count;
  // The jump table (StaticTree::BuildJumpTable), or null. Bucket (key -
  // jump_min) >> jump_shift holds, above its low jump_shift bits, the node of
  // level jump_level where the search of its lowest key arrives and, in those
  // bits, the offset from the bucket's lowest key of the next node's first
  // key: a key beyond it arrives at the next node. Or kStartAtRoot. Keys
  // outside [jump_min, jump_max] have no bucket: every key is >= one below
  // and < one above.
  const uint64_t* jump = nullptr;
  size_t jump_level = 0;
  unsigned jump_shift = 0;
  uint64_t jump_min = 0;
  uint64_t jump_max = 0;
};

// Nodes per level, root first, of the layout over `key_count` keys; returns
// the number of levels (0 for no keys).
size_t LevelNodes(size_t key_count, size_t (&nodes)[kMaxLevels]) {
  if (key_count == 0) return 0;
  size_t bottom_up[kMaxLevels];
  size_t count = 0;
  bottom_up[count++] = (key_count + kNodeKeys - 1) / kNodeKeys;
  while (bottom_up[count - 1] > 1) {
    bottom_up[count] = (bottom_up[count - 1] + kChildren - 1) / kChildren;
    ++count;
  }
  for (size_t i = 0; i < count; ++i) nodes[i] = bottom_up[count - 1 - i];
  return count;
}

// Calls `visit(word_index, separator)` for every inner word of the layout,
// with the separator Build() writes there: separator j of node `node` at
// height h above the leaves is the first key under child node * 17 + j + 1,
// the first key of leaf (node * 17 + j + 1) * 17^(h - 1), or padding when
// that child is past the end. Stops, returning false, when `visit`
// does. Reads only the leaf level, so it serves both to build the inner
// levels and to check them.
template <typename Visit>
bool ForEachSeparator(const TreeShape& shape, Visit visit) {
  if (shape.level_count < 2) return true;
  const size_t leaf_level = shape.level_count - 1;
  const uint64_t* leaves = shape.words + shape.level_offsets[leaf_level];
  const size_t leaf_count = (shape.key_count + kNodeKeys - 1) / kNodeKeys;
  size_t leaves_per_child = 1;
  for (size_t level = leaf_level; level-- > 0;) {
    const size_t begin = shape.level_offsets[level];
    const size_t nodes = (shape.level_offsets[level + 1] - begin) / kNodeKeys;
    for (size_t node = 0; node < nodes; ++node) {
      for (size_t j = 0; j < kNodeKeys; ++j) {
        const size_t leaf = (node * kChildren + j + 1) * leaves_per_child;
        const uint64_t separator = leaf < leaf_count ? leaves[leaf * kNodeKeys] : kPadding;
        if (!visit(begin + node * kNodeKeys + j, separator)) return false;
      }
    }
    leaves_per_child *= kChildren;
  }
  return true;
}

// Rank kernels: the number of the node's 16 keys that are < `key`. Since a
// node is sorted that is also the index of the first key >= `key`; counting
// compare-mask bits instead of searching keeps the lookup free of
// data-dependent branches.

struct ScalarRank {
  static size_t Rank(const uint64_t* node, uint64_t key) {
    size_t rank = 0;
    for (size_t i = 0; i < kNodeKeys; ++i) rank += node[i] < key;
    return rank;
  }
};

#if defined(__x86_64__)
struct Avx2Rank {
  // AVX2 has only a signed 64-bit compare: flipping the sign bit of both
  // sides maps unsigned order onto signed order. The four compare results
  // (all-ones per key below) are narrowed with saturating packs to one byte
  // mask with two bits per key; the packs mix the keys' order, which a count
  // does not mind.
  __attribute__((target("avx2,popcnt"))) static size_t Rank(const uint64_t* node, uint64_t key) {
    const __m256i flip = _mm256_set1_epi64x(std::numeric_limits<int64_t>::min());
    const __m256i probe = _mm256_xor_si256(_mm256_set1_epi64x(static_cast<int64_t>(key)), flip);
    // Spelled out, not a loop over an array: GCC kept such an array on the
    // stack, which made every rank a store-to-load round trip (1.5-2x slower).
    const __m256i* words = reinterpret_cast<const __m256i*>(node);
    const __m256i less0 =
        _mm256_cmpgt_epi64(probe, _mm256_xor_si256(_mm256_loadu_si256(words), flip));
    const __m256i less1 =
        _mm256_cmpgt_epi64(probe, _mm256_xor_si256(_mm256_loadu_si256(words + 1), flip));
    const __m256i less2 =
        _mm256_cmpgt_epi64(probe, _mm256_xor_si256(_mm256_loadu_si256(words + 2), flip));
    const __m256i less3 =
        _mm256_cmpgt_epi64(probe, _mm256_xor_si256(_mm256_loadu_si256(words + 3), flip));
    const __m256i packed =
        _mm256_packs_epi16(_mm256_packs_epi32(less0, less1), _mm256_packs_epi32(less2, less3));
    const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(packed));
    return static_cast<size_t>(__builtin_popcount(mask)) / 2;
  }
};

struct Avx512Rank {
  __attribute__((target("avx512f,popcnt"))) static size_t Rank(const uint64_t* node, uint64_t key) {
    const __m512i probe = _mm512_set1_epi64(static_cast<int64_t>(key));
    const __mmask8 low = _mm512_cmplt_epu64_mask(_mm512_loadu_si512(node), probe);
    const __mmask8 high = _mm512_cmplt_epu64_mask(_mm512_loadu_si512(node + 8), probe);
    // One 16-bit mask (kunpckbw), one move out of the mask registers.
    return static_cast<size_t>(__builtin_popcount(_cvtmask16_u32(_mm512_kunpackb(high, low))));
  }
};

#endif  // __x86_64__

// Inner node `node` of a level leads to node node * 17 + rank of the next
// one; at the leaves node * 16 + rank is the position itself. A rank of 16
// at a leaf names the next leaf's first key, which is the right answer: the
// separators guarantee that every key before it is < `key`. Only a probe
// above every key reaches past the real keys, and the padding (never < a
// probe) stops it at key_count; the min() is a guard, not a correction.
//
// The jump table skips the levels above jump_level for most keys: one read
// of a table that stays in L2 replaces several dependent node reads and
// ranks, which is most of a single lookup's latency when the lower levels
// miss the cache anyway. Its entries choose between two nodes with a
// compare, not a branch, and every lookup through it descends the same
// number of levels, so successive independent lookups do not mispredict and
// an out-of-order core overlaps their cache misses.
template <typename R>
inline size_t Search(const TreeShape& shape, uint64_t key) {
  if (shape.level_count == 0) return 0;
  const size_t leaf_level = shape.level_count - 1;
  size_t node = 0;
  size_t level = 0;
  if (shape.jump != nullptr) {
    if (key <= shape.jump_min) return 0;
    if (key > shape.jump_max) return shape.key_count;
    const uint64_t offset = key - shape.jump_min;
    const uint64_t entry = shape.jump[offset >> shape.jump_shift];
    if (entry != kStartAtRoot) {
      const uint64_t offset_mask = (uint64_t{1} << shape.jump_shift) - 1;
      const uint64_t next_first = entry & offset_mask;
      node = static_cast<size_t>(entry >> shape.jump_shift) +
             static_cast<size_t>((offset & offset_mask) > next_first);
      level = shape.jump_level;
    }
  }
  for (; level < leaf_level; ++level) {
    const uint64_t* keys = shape.words + shape.level_offsets[level] + node * kNodeKeys;
    node = node * kChildren + R::Rank(keys, key);
  }
  const uint64_t* keys = shape.words + shape.level_offsets[leaf_level] + node * kNodeKeys;
  return std::min(node * kNodeKeys + R::Rank(keys, key), shape.key_count);
}

inline size_t LevelWords(const TreeShape& shape, size_t level) {
  if (level + 1 < shape.level_count) {
    return shape.level_offsets[level + 1] - shape.level_offsets[level];
  }
  return (shape.key_count + kNodeKeys - 1) / kNodeKeys * kNodeKeys;
}

// Both cache lines of a node: a prefetch of the first alone measured twice
// as slow at 10^6 and 10^8 keys. Into L2 (prefetcht1), not L1: at 10^8 keys
// (on an AMD EPYC, Zen 4) that ran 30-40 ns per lookup against 47-85 ns with
// prefetcht0, presumably since it ties up fewer L1 miss buffers while
// 128 lines are in flight.
inline void PrefetchNode(const uint64_t* node) {
  __builtin_prefetch(node, 0, 2);
  __builtin_prefetch(node + 8, 0, 2);
}

// Ranks the group's nodes in one level and moves each search to its child
// in the next; with `kPrefetch`, requests that child's two cache lines at
// once, so that they arrive while the rest of the group is ranked.
template <typename R, bool kPrefetch>
inline void DescendGroup(const uint64_t* level_words, const uint64_t* next_words,
                         const uint64_t* probes, size_t group, size_t* nodes) {
  for (size_t i = 0; i < group; ++i) {
    nodes[i] = nodes[i] * kChildren + R::Rank(level_words + nodes[i] * kNodeKeys, probes[i]);
    if constexpr (kPrefetch) PrefetchNode(next_words + nodes[i] * kNodeKeys);
  }
}

// Walks up to kBatchGroup searches level by level together, so that the
// group's cache misses overlap instead of queueing behind each other.
// Levels of up to kCachedLevelWords words are not prefetched: they stay in
// L1/L2 across lookups, and the prefetches would only cost instructions.
template <typename R>
inline void SearchBatch(const TreeShape& shape, const uint64_t* keys, size_t count, size_t* out) {
  constexpr size_t kCachedLevelWords = 4096;  // 32 KiB
  if (shape.level_count == 0) {
    std::fill(out, out + count, size_t{0});
    return;
  }
  const size_t leaf_level = shape.level_count - 1;
  for (size_t begin = 0; begin < count; begin += kBatchGroup) {
    const size_t group = std::min(kBatchGroup, count - begin);
    const uint64_t* probes = keys + begin;
    size_t nodes[kBatchGroup] = {};
    for (size_t level = 0; level < leaf_level; ++level) {
      const uint64_t* level_words = shape.words + shape.level_offsets[level];
      const uint64_t* next_words = shape.words + shape.level_offsets[level + 1];
      if (LevelWords(shape, level + 1) > kCachedLevelWords) {
        DescendGroup<R, true>(level_words, next_words, probes, group, nodes);
      } else {
        DescendGroup<R, false>(level_words, next_words, probes, group, nodes);
      }
    }
    const uint64_t* leaf_words = shape.words + shape.level_offsets[leaf_level];
    for (size_t i = 0; i < group; ++i) {
      const size_t position =
          nodes[i] * kNodeKeys + R::Rank(leaf_words + nodes[i] * kNodeKeys, probes[i]);
      out[begin + i] = std::min(position, shape.key_count);
    }
  }
}

// One entry point per kernel and operation; `flatten` inlines the search
// loops and rank into the function, so that each carries its own target
// (the template bodies are shared, the instruction sets are not).
size_t LowerBoundScalar(const TreeShape& shape, uint64_t key) {
  return Search<ScalarRank>(shape, key);
}
void LowerBoundBatchScalar(const TreeShape& shape, const uint64_t* keys, size_t count,
                           size_t* out) {
  SearchBatch<ScalarRank>(shape, keys, count, out);
}
#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"), flatten)) size_t LowerBoundAvx2(const TreeShape& shape,
                                                                      uint64_t key) {
  return Search<Avx2Rank>(shape, key);
}
__attribute__((target("avx2,popcnt"), flatten)) void LowerBoundBatchAvx2(const TreeShape& shape,
                                                                         const uint64_t* keys,
                                                                         size_t count,
                                                                         size_t* out) {
  SearchBatch<Avx2Rank>(shape, keys, count, out);
}
__attribute__((target("avx512f,popcnt"), flatten)) size_t LowerBoundAvx512(const TreeShape& shape,
                                                                           uint64_t key) {
  return Search<Avx512Rank>(shape, key);
}
__attribute__((target("avx512f,popcnt"), flatten)) void LowerBoundBatchAvx512(
    const TreeShape& shape, const uint64_t* keys, size_t count, size_t* out) {
  SearchBatch<Avx512Rank>(shape, keys, count, out);
}
#endif  // __x86_64__

struct Kernel {
  internal::RankKernel kind;
  size_t (*lower_bound)(const TreeShape&, uint64_t);
  void (*lower_bound_batch)(const TreeShape&, const uint64_t*, size_t, size_t*);
};

constexpr Kernel kScalarKernel{internal::RankKernel::kScalar, LowerBoundScalar,
                               LowerBoundBatchScalar};
#if defined(__x86_64__)
constexpr Kernel kAvx2Kernel{internal::RankKernel::kAvx2, LowerBoundAvx2, LowerBoundBatchAvx2};
constexpr Kernel kAvx512Kernel{internal::RankKernel::kAvx512, LowerBoundAvx512,
                               LowerBoundBatchAvx512};
#endif

// The kernel of `kind`; callers check RankKernelSupported() first (other
// architectures have the scalar kernel only).
const Kernel* KernelFor(internal::RankKernel kind) {
  switch (kind) {
#if defined(__x86_64__)
    case internal::RankKernel::kAvx512:
      return &kAvx512Kernel;
    case internal::RankKernel::kAvx2:
      return &kAvx2Kernel;
#endif
    default:
      return &kScalarKernel;
  }
}

// Chosen on first use (not at static initialization, so that lookups from
// other static initializers find it set).
std::atomic<const Kernel*>& ActiveKernel() {
  static std::atomic<const Kernel*> active{[] {
    for (auto kind : {internal::RankKernel::kAvx512, internal::RankKernel::kAvx2}) {
      if (internal::RankKernelSupported(kind)) return KernelFor(kind);
    }
    return &kScalarKernel;
  }()};
  return active;
}

void FreeWords(uint64_t* words) { std::free(words); }

// Memory for `words` words, 128-byte aligned so that every node is exactly
// two cache lines (and one adjacent-line prefetch pair). A large layout is
// aligned to, and asked to be backed by, 2 MiB pages: a lookup touches one
// node per level far apart, and with 4 KiB pages each would also miss the
// TLB.
uint64_t* AllocateWords(size_t words) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t bytes = words * sizeof(uint64_t);
  const size_t alignment = bytes >= kHugePage ? kHugePage : 128;
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded);
  if (memory != nullptr && alignment == kHugePage) {
    // Advice only: without transparent huge pages the tree is just slower.
    (void)madvise(memory, rounded, MADV_HUGEPAGE);
  }
  return static_cast<uint64_t*>(memory);
}

}  // namespace

namespace internal {

std::string_view RankKernelName(RankKernel kernel) {
  switch (kernel) {
    case RankKernel::kScalar:
      return "scalar";
    case RankKernel::kAvx2:
      return "avx2";
    case RankKernel::kAvx512:
      return "avx512";
  }
  return "unknown";
}

bool RankKernelSupported(RankKernel kernel) {
  switch (kernel) {
    case RankKernel::kScalar:
      return true;
#if defined(__x86_64__)
    case RankKernel::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
    case RankKernel::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("popcnt");
#endif
    default:
      return false;
  }
}

RankKernel ActiveRankKernel() { return ActiveKernel().load(std::memory_order_relaxed)->kind; }

bool SetRankKernel(RankKernel kernel) {
  if (!RankKernelSupported(kernel)) return false;
  ActiveKernel().store(KernelFor(kernel), std::memory_order_relaxed);
  return true;
}

}  // namespace internal

StaticTree::StaticTree(StaticTree&& other) noexcept { *this = std::move(other); }

StaticTree& StaticTree::operator=(StaticTree&& other) noexcept {
  if (this != &other) {
    owned_ = std::move(other.owned_);
    words_ = std::exchange(other.words_, {});
    key_count_ = std::exchange(other.key_count_, 0);
    leaf_offset_ = std::exchange(other.leaf_offset_, 0);
    std::copy(std::begin(other.level_offsets_), std::end(other.level_offsets_), level_offsets_);
    level_count_ = std::exchange(other.level_count_, 0);
    jump_ = std::move(other.jump_);
    jump_level_ = std::exchange(other.jump_level_, 0);
    jump_shift_ = std::exchange(other.jump_shift_, 0);
    jump_min_ = std::exchange(other.jump_min_, 0);
    jump_max_ = std::exchange(other.jump_max_, 0);
  }
  return *this;
}

size_t StaticTree::LayoutWords(size_t key_count) {
  size_t nodes[kMaxLevels];
  const size_t levels = LevelNodes(key_count, nodes);
  size_t total = 0;
  for (size_t i = 0; i < levels; ++i) total += nodes[i];
  return total * kNodeKeys;
}

void StaticTree::SetShape(size_t key_count) {
  size_t nodes[kMaxLevels];
  level_count_ = LevelNodes(key_count, nodes);
  size_t offset = 0;
  for (size_t i = 0; i < level_count_; ++i) {
    level_offsets_[i] = offset;
    offset += nodes[i] * kNodeKeys;
  }
  key_count_ = key_count;
  leaf_offset_ = level_count_ == 0 ? 0 : level_offsets_[level_count_ - 1];
}

size_t StaticTree::LevelNodeCount(size_t level) const {
  if (level + 1 < level_count_)
    return (level_offsets_[level + 1] - level_offsets_[level]) / kNodeKeys;
  return (key_count_ + kNodeKeys - 1) / kNodeKeys;
}

void StaticTree::BuildJumpTable() {
  jump_.reset();
  // The deepest level below the root (the leaves themselves, up to about
  // 10^6 keys) with at least two buckets per node in a table that stays in
  // L2, so that few buckets straddle two nodes when the keys are spread
  // evenly; up to 16 per node where the table is smaller anyway.
  constexpr size_t kMaxJumpBuckets = size_t{1} << 17;  // 1 MiB of entries
  const size_t leaf_level = level_count_ == 0 ? 0 : level_count_ - 1;
  size_t level = 0;
  for (size_t l = 1; l <= leaf_level; ++l) {
    if (LevelNodeCount(l) * 2 <= kMaxJumpBuckets) level = l;
  }
  if (level == 0) return;  // one node, or even the level below the root is too large
  const size_t nodes = LevelNodeCount(level);
  const size_t buckets = std::min(kMaxJumpBuckets, std::bit_ceil(nodes * kNodeKeys));
  const std::span<const uint64_t> sorted = keys();
  const uint64_t min = sorted.front();
  const uint64_t max = sorted.back();
  unsigned shift = 0;
  while (((max - min) >> shift) >= buckets) ++shift;
  // shift <= 64 - log2(buckets), and a node index needs log2(buckets) - 4
  // bits: every entry fits with bits to spare.
  const size_t used = static_cast<size_t>((max - min) >> shift) + 1;

  // The search of `key` arrives at the last node of `level` whose first key
  // is < key (node 0 if none): the separators above it are exactly those
  // first keys. A bucket whose keys arrive at one or two nodes gets an entry;
  // the two-node case stores where the second begins.
  // The first key of node >= 1 is a separator of the levels above: of its
  // parent, unless it is the parent's first child, then of the parent's
  // parent, and so on. Only inner words are read, so building the table
  // over a mapped file touches none of its (possibly cold) leaves.
  const auto first_key = [&](size_t node) {
    size_t at = level;
    while (node % kChildren == 0) {
      node /= kChildren;
      --at;
    }
    return words_[level_offsets_[at - 1] + node / kChildren * kNodeKeys + node % kChildren - 1];
  };
  const uint64_t offset_mask = (uint64_t{1} << shift) - 1;
  auto table = std::make_unique<uint64_t[]>(used);
  size_t below = 0;    // nodes after the first whose first key is < the bucket's lowest key
  size_t at_most = 0;  // ... <= the bucket's highest key
  for (size_t bucket = 0; bucket < used; ++bucket) {
    const uint64_t low = min + (static_cast<uint64_t>(bucket) << shift);
    const uint64_t high = max - low <= offset_mask ? max : low + offset_mask;
    while (below + 1 < nodes && first_key(below + 1) < low) ++below;
    at_most = std::max(at_most, below);
    while (at_most + 1 < nodes && first_key(at_most + 1) <= high) ++at_most;
    const uint64_t node_bits = static_cast<uint64_t>(below) << shift;
    if (at_most == below) {
      table[bucket] = node_bits | offset_mask;  // no key of the bucket is beyond the mask
    } else if (at_most == below + 1) {
      table[bucket] = node_bits | (first_key(at_most) - low);
    } else {
      table[bucket] = kStartAtRoot;
    }
  }
  jump_ = std::move(table);
  jump_level_ = level;
  jump_shift_ = shift;
  jump_min_ = min;
  jump_max_ = max;
}

Result<StaticTree> StaticTree::Build(std::span<const uint64_t> sorted_keys) {
  const size_t count = sorted_keys.size();
  if (count > kMaxKeys) {
    return InvalidArgument("StaticTree::Build: ", count, " keys; at most ", kMaxKeys);
  }
  const auto unsorted = std::is_sorted_until(sorted_keys.begin(), sorted_keys.end());
  if (unsorted != sorted_keys.end()) {
    const size_t at = static_cast<size_t>(unsorted - sorted_keys.begin());
    return InvalidArgument("StaticTree::Build: keys are not sorted: key ", at, " (",
                           sorted_keys[at], ") < key ", at - 1, " (", sorted_keys[at - 1], ")");
  }
  StaticTree tree;
  if (count == 0) return tree;
  const size_t words = LayoutWords(count);
  uint64_t* memory = AllocateWords(words);
  if (memory == nullptr) {
    return MakeError(ErrorKind::kInternal, "StaticTree::Build: cannot allocate ",
                     words * sizeof(uint64_t), " bytes for ", count, " keys");
  }
  tree.owned_ = std::unique_ptr<uint64_t[], void (*)(uint64_t*)>(memory, FreeWords);
  tree.words_ = std::span<const uint64_t>(memory, words);
  tree.SetShape(count);
  std::memcpy(memory + tree.leaf_offset_, sorted_keys.data(), count * sizeof(uint64_t));
  std::fill(memory + tree.leaf_offset_ + count, memory + words, kPadding);
  const TreeShape shape{memory, tree.level_offsets_, tree.level_count_, count};
  (void)ForEachSeparator(shape, [memory](size_t word, uint64_t separator) {
    memory[word] = separator;
    return true;
  });
  tree.BuildJumpTable();
  return tree;
}

Result<StaticTree> StaticTree::View(std::span<const uint64_t> words, size_t key_count,
                                    bool verify) {
  if (key_count > kMaxKeys) {
    return InvalidArgument("StaticTree::View: ", key_count, " keys; at most ", kMaxKeys);
  }
  const size_t expected = LayoutWords(key_count);
  if (words.size() != expected) {
    return InvalidArgument("StaticTree::View: the layout of ", key_count, " keys has ", expected,
                           " words, not ", words.size());
  }
  if (!words.empty() && reinterpret_cast<uintptr_t>(words.data()) % 64 != 0) {
    return InvalidArgument("StaticTree::View: the words are not 64-byte aligned");
  }
  StaticTree tree;
  tree.words_ = words;
  tree.SetShape(key_count);
  if (!verify) {
    tree.BuildJumpTable();
    return tree;
  }

  const std::span<const uint64_t> keys = tree.keys();
  const auto unsorted = std::is_sorted_until(keys.begin(), keys.end());
  if (unsorted != keys.end()) {
    return InvalidArgument("StaticTree::View: leaf key ", unsorted - keys.begin(),
                           " is less than the one before it");
  }
  const auto padding = words.subspan(tree.leaf_offset_ + key_count);
  if (std::any_of(padding.begin(), padding.end(), [](uint64_t w) { return w != kPadding; })) {
    return InvalidArgument("StaticTree::View: the padding after the last key is not UINT64_MAX");
  }
  size_t bad_word = 0;
  const TreeShape shape{words.data(), tree.level_offsets_, tree.level_count_, key_count};
  if (!ForEachSeparator(shape, [&](size_t word, uint64_t separator) {
        bad_word = word;
        return words[word] == separator;
      })) {
    return InvalidArgument("StaticTree::View: inner word ", bad_word, " is ", words[bad_word],
                           ", not the first key of its subtree");
  }
  tree.BuildJumpTable();
  return tree;
}

size_t StaticTree::LowerBound(uint64_t key) const {
  const TreeShape shape{words_.data(), level_offsets_, level_count_, key_count_, jump_.get(),
                        jump_level_,   jump_shift_,    jump_min_,    jump_max_};
  return ActiveKernel().load(std::memory_order_relaxed)->lower_bound(shape, key);
}

void StaticTree::LowerBoundBatch(std::span<const uint64_t> keys, std::span<size_t> out) const {
  const TreeShape shape{words_.data(), level_offsets_, level_count_, key_count_};
  ActiveKernel()
      .load(std::memory_order_relaxed)
      ->lower_bound_batch(shape, keys.data(), std::min(keys.size(), out.size()), out.data());
}

}  // namespace skade::index
