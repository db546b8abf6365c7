#include "skade/cache/metadata_cache.h"

#include <absl/container/flat_hash_map.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <new>
#include <string>

#include "skade/cache/epoch.h"
#include "skade/cache/hash_index.h"

namespace skade::cache {

namespace {

// The access count saturates here (S3-FIFO uses two bits).
constexpr uint8_t kMaxFrequency = 3;

// Parsed metadata (snapshots, schemas, maps, indexes) takes 2.2-2.3x its
// JSON size on the heap for tables with 10-2000 snapshots, 3.2x for a fresh
// one (measured by skade_cache_test ParsedWeightTest); 3x plus a fixed
// overhead per entry covers both.
constexpr size_t kParsedBytesPerJsonByte = 3;
constexpr size_t kEntryOverheadBytes = 256;

// Allocated with its key inline, so a lookup touches one node, not two.
class Entry {
 public:
  static Entry* Make(std::string_view key, uint64_t hash, MetadataFile file, size_t weight) {
    void* memory = ::operator new(sizeof(Entry) + key.size());
    auto* entry = new (memory) Entry(hash, std::move(file), weight, key.size());
    std::memcpy(reinterpret_cast<char*>(entry + 1), key.data(), key.size());
    return entry;
  }
  static void Free(void* entry) {
    static_cast<Entry*>(entry)->~Entry();
    ::operator delete(entry);
  }

  uint64_t hash() const { return hash_; }
  std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), key_size_}; }

  const MetadataFile file;
  const size_t weight;
  // Written by readers (relaxed, approximate) and by the evicting writer.
  mutable std::atomic<uint8_t> frequency{0};

 private:
  Entry(uint64_t hash, MetadataFile file, size_t weight, size_t key_size)
      : file(std::move(file)), weight(weight), hash_(hash), key_size_(key_size) {}

  const uint64_t hash_;
  const size_t key_size_;
};

}  // namespace

// One shard: its own byte bound, queues, index and lock. Aligned so two
// shards' mutexes never share a cache line.
class alignas(64) MetadataCache::Shard {
 public:
  Shard() = default;
  ~Shard() {
    for (Entry* entry : small_) Entry::Free(entry);
    for (Entry* entry : main_) Entry::Free(entry);
  }

  void set_capacity(size_t capacity) { capacity_ = capacity; }

  const MetadataFile* Lookup(std::string_view key, uint64_t hash) const {
    const Entry* entry = index_.Find(hash, key);
    if (entry == nullptr) return nullptr;
    uint8_t frequency = entry->frequency.load(std::memory_order_relaxed);
    if (frequency < kMaxFrequency) {
      entry->frequency.store(frequency + 1, std::memory_order_relaxed);
    }
    return &entry->file;
  }

  bool Holds(std::string_view key, uint64_t hash) const {
    return index_.Find(hash, key) != nullptr;
  }

  Result<MetadataFile> GetOrLoad(std::string_view key, uint64_t hash, Loader load) {
    std::promise<Result<MetadataFile>> promise;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (const Entry* entry = index_.Find(hash, key)) return entry->file;
      auto [flight, inserted] = flights_.try_emplace(std::string(key));
      if (!inserted) {
        auto waiting = flight->second;
        lock.unlock();
        return waiting.get();
      }
      flight->second = promise.get_future().share();
      ++loads_;
    }
    // A loader that throws must not leave its flight behind: every later
    // miss on this key would wait on a promise no one keeps.
    Result<MetadataFile> result = [&]() -> Result<MetadataFile> {
      try {
        return load();
      } catch (const std::exception& e) {
        return MakeError(ErrorKind::kInternal, "Cannot load ", key, ": ", e.what());
      } catch (...) {
        return MakeError(ErrorKind::kInternal, "Cannot load ", key, ": unknown exception");
      }
    }();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      flights_.erase(std::string(key));
      if (result) InsertLocked(key, hash, *result);
    }
    promise.set_value(result);
    return result;
  }

  void Insert(std::string_view key, uint64_t hash, MetadataFile file) {
    std::lock_guard<std::mutex> lock(mutex_);
    InsertLocked(key, hash, std::move(file));
  }

  void AddStats(Stats* stats) const {
    std::lock_guard<std::mutex> lock(mutex_);
    stats->entries += index_.size();
    stats->bytes += small_bytes_ + main_bytes_;
    stats->loads += loads_;
    stats->evictions += evictions_;
    stats->rejected += rejected_;
  }

 private:
  void InsertLocked(std::string_view key, uint64_t hash, MetadataFile file) {
    if (index_.Find(hash, key) != nullptr) return;
    size_t weight = EstimatedWeight(key, file);
    if (weight > capacity_) {
      ++rejected_;
      return;
    }
    while (small_bytes_ + main_bytes_ + weight > capacity_) EvictOne();
    Entry* entry = Entry::Make(key, hash, std::move(file), weight);
    if (TakeGhost(hash)) {
      main_.push_back(entry);
      main_bytes_ += weight;
    } else {
      small_.push_back(entry);
      small_bytes_ += weight;
    }
    index_.Insert(entry);
  }

  void EvictOne() {
    if (!small_.empty() && (small_bytes_ * 10 >= capacity_ || main_.empty())) {
      EvictFromSmall();
    } else {
      EvictFromMain();
    }
  }

  // Drops the oldest small entry that was not read again; entries that were
  // move to main. May move entries without dropping any; the caller loops.
  void EvictFromSmall() {
    while (!small_.empty()) {
      Entry* entry = small_.front();
      small_.pop_front();
      small_bytes_ -= entry->weight;
      if (entry->frequency.load(std::memory_order_relaxed) > 0) {
        entry->frequency.store(0, std::memory_order_relaxed);
        main_.push_back(entry);
        main_bytes_ += entry->weight;
        if (small_bytes_ * 10 < capacity_) return;
        continue;
      }
      AddGhost(entry->hash());
      Drop(entry);
      return;
    }
  }

  // FIFO with reinsertion: an entry read since it was last examined goes
  // round again with one access less. Bounded, in case readers keep every
  // count up.
  void EvictFromMain() {
    for (size_t examined = 0, limit = 4 * main_.size(); !main_.empty(); ++examined) {
      Entry* entry = main_.front();
      main_.pop_front();
      uint8_t frequency = entry->frequency.load(std::memory_order_relaxed);
      if (frequency > 0 && examined < limit) {
        entry->frequency.store(frequency - 1, std::memory_order_relaxed);
        main_.push_back(entry);
        continue;
      }
      main_bytes_ -= entry->weight;
      Drop(entry);
      return;
    }
  }

  void Drop(Entry* entry) {
    index_.Erase(entry);
    ++evictions_;
    Retire(entry, &Entry::Free);
  }

  // The ghost FIFO remembers as many recently dropped keys as the shard holds.
  void AddGhost(uint64_t hash) {
    ++ghost_[hash];
    ghost_order_.push_back(hash);
    size_t limit = std::max<size_t>(index_.size(), 64);
    while (ghost_order_.size() > limit) {
      // Gone already if TakeGhost() admitted it since.
      auto it = ghost_.find(ghost_order_.front());
      if (it != ghost_.end() && --it->second == 0) ghost_.erase(it);
      ghost_order_.pop_front();
    }
  }

  bool TakeGhost(uint64_t hash) {
    auto it = ghost_.find(hash);
    if (it == ghost_.end()) return false;
    // Its place in ghost_order_ ages out later and finds nothing.
    if (--it->second == 0) ghost_.erase(it);
    return true;
  }

  size_t capacity_ = 0;
  mutable std::mutex mutex_;
  HashIndex<Entry> index_;
  std::deque<Entry*> small_;
  std::deque<Entry*> main_;
  size_t small_bytes_ = 0;
  size_t main_bytes_ = 0;
  std::deque<uint64_t> ghost_order_;
  absl::flat_hash_map<uint64_t, uint32_t> ghost_;
  absl::flat_hash_map<std::string, std::shared_future<Result<MetadataFile>>> flights_;
  uint64_t loads_ = 0;
  uint64_t evictions_ = 0;
  uint64_t rejected_ = 0;
};

Result<std::unique_ptr<MetadataCache>> MetadataCache::Make(const MetadataCacheOptions& options) {
  if (options.capacity_bytes < kMinCapacityBytes || options.capacity_bytes > kMaxCapacityBytes) {
    return InvalidArgument("Metadata cache capacity must be between ", kMinCapacityBytes >> 20,
                           " MiB and ", kMaxCapacityBytes >> 20, " MiB, got ",
                           options.capacity_bytes, " bytes");
  }
  MetadataCacheOptions resolved = options;
  if (resolved.shards == 0) {
    resolved.shards = std::clamp<size_t>(std::bit_floor(options.capacity_bytes / kMinShardBytes), 1,
                                         kMaxAutomaticShards);
  } else if (options.shards > 256 || !std::has_single_bit(options.shards)) {
    return InvalidArgument("Metadata cache shards must be a power of two up to 256, got ",
                           options.shards);
  }
  return std::unique_ptr<MetadataCache>(new MetadataCache(resolved));
}

MetadataCache::MetadataCache(const MetadataCacheOptions& options)
    : capacity_bytes_(options.capacity_bytes),
      shard_mask_(options.shards - 1),
      shards_(new Shard[options.shards]) {
  for (size_t i = 0; i < options.shards; ++i) {
    shards_[i].set_capacity(capacity_bytes_ / options.shards);
  }
}

MetadataCache::~MetadataCache() = default;

uint64_t MetadataCache::Hash(std::string_view location) {
  return XXH3_64bits(location.data(), location.size());
}

size_t MetadataCache::EstimatedWeight(std::string_view location, const MetadataFile& file) {
  size_t json = file.json ? file.json->size() : 0;
  return kEntryOverheadBytes + location.size() + json * (1 + kParsedBytesPerJsonByte);
}

MetadataCache::Shard& MetadataCache::ShardFor(uint64_t hash) const {
  // High bits pick the shard; the index inside uses the low ones.
  return shards_[(hash >> 48) & shard_mask_];
}

const MetadataFile* MetadataCache::Lookup(std::string_view location, uint64_t hash) const {
  const MetadataFile* file = ShardFor(hash).Lookup(location, hash);
  if (file != nullptr) hits_.Increment();
  return file;
}

bool MetadataCache::Holds(std::string_view location, uint64_t hash) const {
  return ShardFor(hash).Holds(location, hash);
}

Result<MetadataFile> MetadataCache::GetOrLoad(std::string_view location, uint64_t hash,
                                              Loader load) {
  {
    EpochGuard guard;
    if (const MetadataFile* file = Lookup(location, hash)) return *file;
  }
  return ShardFor(hash).GetOrLoad(location, hash, load);
}

void MetadataCache::Insert(std::string_view location, uint64_t hash, MetadataFile file) {
  ShardFor(hash).Insert(location, hash, std::move(file));
}

MetadataCache::Stats MetadataCache::stats() const {
  Stats stats;
  for (size_t i = 0; i <= shard_mask_; ++i) shards_[i].AddStats(&stats);
  stats.hits = hits_.value();
  return stats;
}

}  // namespace skade::cache
