// MetadataCache (L0): parsed table metadata and its JSON text, by metadata
// location.
//
// Metadata files are immutable, so an entry is never stale: entries are only
// ever evicted, never invalidated. The cache is bounded in bytes: each entry
// weighs its JSON text plus an estimate of the parsed metadata
// (EstimatedWeight), and the bound holds at every moment, also under
// concurrent inserts. It is split into shards by key hash, each with its own
// bound (capacity / shards), lock and eviction queues; a file heavier than a
// shard's bound is returned but not kept.
//
// Eviction is S3-FIFO (Yang et al., SOSP 2023): new entries enter a small
// FIFO (10% of the bytes); an entry read again while there moves to the main
// FIFO, the others leave and are remembered in a ghost FIFO of key hashes (a
// key that comes back soon is admitted straight to main). Main is a FIFO with
// reinsertion: an entry with a non-zero access count (capped at 3) is kept
// and its count decremented. A one-time scan therefore passes through the
// small FIFO and cannot flush the hot set. A hit only bumps the entry's
// access count — and only while it is below the cap — so hits write no
// shared state once an entry is warm.
//
// Threading: thread-safe. Lookup() takes no lock (readers search a
// HashIndex inside an EpochGuard; evicted entries are retired through the
// epoch domain). Inserts, evictions and single-flight bookkeeping take the
// shard's mutex, never held across a load. Concurrent misses on one key run
// its loader once (the others wait for that result); misses on different
// keys load in parallel. A failed load is returned to everyone waiting on it
// and is not cached.
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "skade/cache/metadata_file.h"
#include "skade/metrics/counter.h"
#include "skade/util/result.h"

namespace skade::cache {

struct MetadataCacheOptions {
  size_t capacity_bytes = 128ull << 20;
  /// A power of two from 1 to 256, or 0: as many as leave every shard at
  /// least kMinShardBytes (at most 16) — a shard's bound is also the heaviest
  /// file it keeps, and a table with 10,000 snapshots has ~3 MB of JSON,
  /// which weighs ~12 MB (EstimatedWeight).
  size_t shards = 0;
};

class MetadataCache {
 public:
  static constexpr size_t kMinCapacityBytes = 10ull << 20;
  static constexpr size_t kMaxCapacityBytes = 1ull << 30;
  static constexpr size_t kMinShardBytes = 32ull << 20;
  static constexpr size_t kMaxAutomaticShards = 16;

  using Loader = absl::FunctionRef<Result<MetadataFile>()>;

  struct Stats {
    size_t entries = 0;
    size_t bytes = 0;        // summed weights of the cached entries
    uint64_t hits = 0;       // lookups that found the file (also GetOrLoad's)
    uint64_t loads = 0;      // loader calls: the misses (a wait for another
                             // caller's load of the key counts as neither)
    uint64_t evictions = 0;  // entries dropped to make room
    uint64_t rejected = 0;   // files too heavy for a shard
  };

  /// kInvalidArgument if the capacity is outside [kMinCapacityBytes,
  /// kMaxCapacityBytes] or the shard count is neither 0 nor a power of two
  /// <= 256.
  static Result<std::unique_ptr<MetadataCache>> Make(const MetadataCacheOptions& options);
  ~MetadataCache();
  MetadataCache(const MetadataCache&) = delete;
  MetadataCache& operator=(const MetadataCache&) = delete;

  /// The hash every method takes with its location (computed once by the
  /// caller, e.g. stored beside a table pointer).
  static uint64_t Hash(std::string_view location);

  /// What an entry counts against the bound: the JSON bytes, the location,
  /// and an estimate of the parsed metadata's heap footprint.
  static size_t EstimatedWeight(std::string_view location, const MetadataFile& file);

  /// The cached file for `location`, or null. Must be called inside an
  /// EpochGuard; the pointer is valid until the guard ends. Lock-free.
  const MetadataFile* Lookup(std::string_view location, uint64_t hash) const;

  /// Whether `location` is cached, without counting a hit or touching the
  /// entry's access count: for a caller that only decides how to serve a
  /// request whose own read then counts. Same rules as Lookup().
  bool Holds(std::string_view location, uint64_t hash) const;

  /// The cached file, or else the result of `load()`, which is cached if it
  /// succeeds. Concurrent calls for one location run `load` once. May block
  /// on another caller's load, so avoid calling it inside an EpochGuard.
  Result<MetadataFile> GetOrLoad(std::string_view location, uint64_t hash, Loader load);

  /// Caches a file the caller already holds (e.g. one it just wrote). No-op
  /// if the location is cached.
  void Insert(std::string_view location, uint64_t hash, MetadataFile file);

  Stats stats() const;
  size_t capacity_bytes() const { return capacity_bytes_; }
  size_t shards() const { return shard_mask_ + 1; }

 private:
  class Shard;

  explicit MetadataCache(const MetadataCacheOptions& options);
  Shard& ShardFor(uint64_t hash) const;

  size_t capacity_bytes_;
  size_t shard_mask_;
  // Lookups are lock-free and write no shared state once an entry is warm:
  // the hit count is thread-sharded (counter.h), so a hit only writes a
  // cache line few other threads share.
  mutable metrics::Counter hits_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace skade::cache
