// ManifestCache (L0.5): parsed manifest lists and manifests, by location.
//
// Manifest lists and manifests are immutable (a commit writes new ones and
// never rewrites a file), so an entry is never stale, only evicted. Bounded
// in bytes (each entry weighs an estimate of its parsed size), single-flight
// (concurrent misses on one location read and parse it once), shared by
// everything in a process that plans scans: the embedded API, the CLI and
// the REST server; the catalog's server-side rebase of appends reads and
// leaves its manifest lists here too (catalog/append_rebase.h). Eviction
// is by least recent use per shard. Manifests are cached with the manifest
// list's values inherited (snapshot ids, sequence numbers, first row ids:
// fixed once the manifest is committed, whichever later snapshot lists it),
// keyed by location and the partition type they were read with.
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/io/file_io.h"
#include "skade/util/result.h"

namespace skade::cache {

struct ManifestCacheOptions {
  /// 0 disables caching (every call reads; single-flight still applies).
  size_t capacity_bytes = 256ull << 20;
};

class ManifestCache {
 public:
  struct Stats {
    size_t entries = 0;
    size_t bytes = 0;
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t evictions = 0;
  };

  explicit ManifestCache(const ManifestCacheOptions& options = {});
  ~ManifestCache();
  ManifestCache(const ManifestCache&) = delete;
  ManifestCache& operator=(const ManifestCache&) = delete;

  /// The manifest list at `location`, read through `io` on a miss; with
  /// FileIO::ReadFileUpTo when `max_bytes` is given (a location a client
  /// named).
  Result<std::shared_ptr<const avro::ManifestList>> ManifestList(
      io::FileIO& io, std::string_view location, std::optional<uint64_t> max_bytes = std::nullopt);
  /// The manifest list cached for `location`, or null: no read.
  std::shared_ptr<const avro::ManifestList> CachedManifestList(std::string_view location);
  /// Caches `list` as the manifest list at `location`: one this process
  /// wrote, or is about to write (a location names one content for good), so
  /// its next reader need not read it back. An entry already there stays.
  void InsertManifestList(std::string_view location,
                          std::shared_ptr<const avro::ManifestList> list);
  /// The manifest `manifest` names, read with `options.partition_type`,
  /// with avro::InheritFromManifestFile applied (all entries, deleted ones
  /// too). `hit`, when given, says whether it came from the cache.
  Result<std::shared_ptr<const avro::Manifest>> Manifest(io::FileIO& io,
                                                         const spec::ManifestFile& manifest,
                                                         const avro::ManifestReaderOptions& options,
                                                         bool* hit = nullptr);

  Stats stats() const;
  size_t capacity_bytes() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::cache
