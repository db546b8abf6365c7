// ManifestCache (L0.5): parsed manifest lists and manifests, by location.
//
// Manifest lists and manifests are immutable (a commit writes new ones and
// never rewrites a file), so an entry is never stale, only evicted. Bounded
// in bytes (each entry weighs an estimate of its parsed size), single-flight
// (concurrent misses on one location read and parse it once), shared by
// everything in a process that plans scans: the embedded API, the CLI and
// the REST server. Eviction is by least recent use per shard. Manifests are
// cached with the manifest list's values inherited (snapshot ids, sequence
// numbers, first row ids: fixed once the manifest is committed, whichever
// later snapshot lists it), keyed by location and the partition type they
// were read with. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/io/file_io.h"
#include "skade/util/result.h"

namespace skade::scan {

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

  /// The manifest list at `location`, read through `io` on a miss.
  Result<std::shared_ptr<const avro::ManifestList>> ManifestList(io::FileIO& io,
                                                                 std::string_view location);
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

}  // namespace skade::scan
