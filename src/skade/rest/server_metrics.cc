#include "skade/rest/server_metrics.h"

#include <functional>
#include <string>
#include <vector>

#include "skade/util/version.h"

namespace skade::rest {

namespace {

using metrics::MetricSample;
using metrics::MetricType;

// One series per cache layer, from `read` of each cache's statistics.
Status AddCacheFamily(metrics::Registry& registry, std::string name, std::string help,
                      MetricType type, const catalog::EmbeddedCatalog& catalog,
                      const cache::ManifestCache* manifest_cache,
                      std::function<double(const cache::MetadataCache::Stats&)> metadata,
                      std::function<double(const cache::ManifestCache::Stats&)> manifest) {
  return registry.AddCallback(
      std::move(name), std::move(help), type, {"cache"},
      [&catalog, manifest_cache, metadata, manifest] {
        std::vector<MetricSample> samples;
        samples.push_back(
            {{{"cache", "metadata"}}, metadata(catalog.metadata_cache().stats()), {}});
        if (manifest_cache != nullptr && manifest) {
          samples.push_back({{{"cache", "manifest"}}, manifest(manifest_cache->stats()), {}});
        }
        return samples;
      });
}

// A gauge from the store's statistics, none when it has none.
Status AddStoreGauge(metrics::Registry& registry, std::string name, std::string help,
                     store::CatalogStore& store,
                     std::function<double(const store::StoreStats&)> read) {
  return registry.AddCallback(std::move(name), std::move(help), MetricType::kGauge, {},
                              [&store, read] {
                                std::vector<MetricSample> samples;
                                if (auto stats = store.Stats())
                                  samples.push_back({{}, read(*stats), {}});
                                return samples;
                              });
}

// A gauge from the commit log's bounds (one read snapshot of the store).
Status AddCommitLogGauge(metrics::Registry& registry, std::string name, std::string help,
                         store::CatalogStore& store,
                         std::function<double(const store::CatalogStore::CommitLogBounds&)> read) {
  return registry.AddCallback(std::move(name), std::move(help), MetricType::kGauge, {},
                              [&store, read] {
                                std::vector<MetricSample> samples;
                                if (auto page = store.ReadCommitLogPage(0, 0)) {
                                  samples.push_back({{}, read(page->bounds), {}});
                                }
                                return samples;
                              });
}

}  // namespace

Status RegisterCatalogMetrics(metrics::Registry& registry, catalog::EmbeddedCatalog& catalog,
                              const cache::ManifestCache* manifest_cache) {
  SKADE_RETURN_NOT_OK(registry.AddCallback(
      "skade_build_info", "Always 1; the labels say which skade and which durability",
      MetricType::kGauge, {"version", "durability"}, [&catalog] {
        return std::vector<MetricSample>{
            {{{"version", kSkadeVersion},
              {"durability", std::string(store::DurabilityName(catalog.durability()))}},
             1,
             {}}};
      }));

  // Commits (commit_stats.h).
  const catalog::CommitStats& commits = catalog.commit_stats();
  SKADE_RETURN_NOT_OK(registry.AddCallback(
      "skade_commits_total",
      "Table commits: logical (client requests committed) and physical (metadata files made "
      "current; per-table batching merges logical commits into one)",
      MetricType::kCounter, {"kind"}, [&commits] {
        return std::vector<MetricSample>{
            {{{"kind", "logical"}}, static_cast<double>(commits.logical_commits.value()), {}},
            {{{"kind", "physical"}}, static_cast<double>(commits.physical_commits.value()), {}}};
      }));
  SKADE_RETURN_NOT_OK(registry.AddCounterCallback(
      "skade_commit_conflicts_total",
      "Commit requests answered 409 CommitFailedException (a requirement did not hold)",
      [&commits] { return static_cast<double>(commits.conflicts.value()); }));
  SKADE_RETURN_NOT_OK(registry.AddCounterCallback(
      "skade_commit_retries_total",
      "Pointer swaps lost to a concurrent writer and retried by the server",
      [&commits] { return static_cast<double>(commits.swap_retries.value()); }));
  SKADE_RETURN_NOT_OK(registry.AddCounterCallback(
      "skade_commit_rebases_total",
      "Appends rebased by the server onto a newer snapshot, in commits that succeeded",
      [&commits] { return static_cast<double>(commits.rebases.value()); }));
  SKADE_RETURN_NOT_OK(registry.AddCallback(
      "skade_commit_batch_size", "Logical commits per physical commit of a table's commit queue",
      MetricType::kHistogram, {}, [&commits] {
        return std::vector<MetricSample>{{{}, 0, commits.batch_size.Snapshot()}};
      }));
  SKADE_RETURN_NOT_OK(registry.AddGaugeCallback(
      "skade_commits_queued", "Commits waiting for a batch of their table",
      [&catalog] { return static_cast<double>(catalog.queued_commits()); }));

  // The store.
  store::CatalogStore& store = catalog.store();
  SKADE_RETURN_NOT_OK(
      registry.AddCallback("skade_store_group_commit_batch_size",
                           "Pointer-swap calls per store transaction (group commit)",
                           MetricType::kHistogram, {}, [&store] {
                             std::vector<MetricSample> samples;
                             if (auto stats = store.Stats())
                               samples.push_back({{}, 0, stats->group_commit_batch_size});
                             return samples;
                           }));
  SKADE_RETURN_NOT_OK(AddStoreGauge(registry, "skade_store_file_bytes",
                                    "Size of the catalog store's data file", store,
                                    [](const store::StoreStats& s) { return s.file_bytes; }));
  SKADE_RETURN_NOT_OK(AddStoreGauge(registry, "skade_store_map_size_bytes",
                                    "The LMDB map size: the most the data file may grow to now",
                                    store,
                                    [](const store::StoreStats& s) { return s.map_size_bytes; }));
  SKADE_RETURN_NOT_OK(
      AddStoreGauge(registry, "skade_store_map_used_bytes",
                    "Bytes of the LMDB map in use: (last page used + 1) * page size", store,
                    [](const store::StoreStats& s) { return s.map_used_bytes; }));

  // The commit log.
  SKADE_RETURN_NOT_OK(
      AddCommitLogGauge(registry, "skade_commit_log_last_sequence",
                        "The last commit sequence number (commits ever made to the catalog)", store,
                        [](const store::CatalogStore::CommitLogBounds& b) { return b.last_seq; }));
  SKADE_RETURN_NOT_OK(AddCommitLogGauge(
      registry, "skade_commit_log_pruned_through",
      "Retention has pruned the commit log up to this sequence number (each table keeps its last "
      "commit); the log holds at most last_sequence - pruned_through entries beyond those",
      store, [](const store::CatalogStore::CommitLogBounds& b) { return b.pruned_through; }));

  // The caches.
  using MetadataStats = cache::MetadataCache::Stats;
  using ManifestStats = cache::ManifestCache::Stats;
  SKADE_RETURN_NOT_OK(AddCacheFamily(
      registry, "skade_cache_hits_total", "Cache lookups that found the entry, per cache layer",
      MetricType::kCounter, catalog, manifest_cache, [](const MetadataStats& s) { return s.hits; },
      [](const ManifestStats& s) { return s.hits; }));
  SKADE_RETURN_NOT_OK(AddCacheFamily(
      registry, "skade_cache_misses_total",
      "Cache lookups that had to read and parse the file, per cache layer", MetricType::kCounter,
      catalog, manifest_cache, [](const MetadataStats& s) { return s.loads; },
      [](const ManifestStats& s) { return s.misses; }));
  SKADE_RETURN_NOT_OK(AddCacheFamily(
      registry, "skade_cache_evictions_total", "Entries dropped to make room, per cache layer",
      MetricType::kCounter, catalog, manifest_cache,
      [](const MetadataStats& s) { return s.evictions; },
      [](const ManifestStats& s) { return s.evictions; }));
  SKADE_RETURN_NOT_OK(AddCacheFamily(
      registry, "skade_cache_bytes", "Estimated bytes of the cached entries, per cache layer",
      MetricType::kGauge, catalog, manifest_cache, [](const MetadataStats& s) { return s.bytes; },
      [](const ManifestStats& s) { return s.bytes; }));
  SKADE_RETURN_NOT_OK(AddCacheFamily(
      registry, "skade_cache_entries", "Cached entries, per cache layer", MetricType::kGauge,
      catalog, manifest_cache, [](const MetadataStats& s) { return s.entries; },
      [](const ManifestStats& s) { return s.entries; }));
  const double metadata_capacity = static_cast<double>(catalog.metadata_cache().capacity_bytes());
  const double manifest_capacity =
      manifest_cache != nullptr ? static_cast<double>(manifest_cache->capacity_bytes()) : 0;
  return AddCacheFamily(
      registry, "skade_cache_capacity_bytes", "The bound on skade_cache_bytes, per cache layer",
      MetricType::kGauge, catalog, manifest_cache,
      [metadata_capacity](const MetadataStats&) { return metadata_capacity; },
      [manifest_capacity](const ManifestStats&) { return manifest_capacity; });
}

Status RegisterServerMetrics(metrics::Registry& registry, const HttpServer& server) {
  SKADE_RETURN_NOT_OK(registry.AddGaugeCallback(
      "skade_http_open_connections", "HTTP connections open now",
      [&server] { return static_cast<double>(server.open_connections()); }));
  SKADE_RETURN_NOT_OK(registry.AddGaugeCallback(
      "skade_http_max_connections", "The connection limit in force",
      [&server] { return static_cast<double>(server.max_connections()); }));
  return registry.AddGaugeCallback(
      "skade_http_handler_pool_pending",
      "Requests handed to the handler pool (writes, scan planning) and not finished: running or "
      "waiting for a thread",
      [&server] { return static_cast<double>(server.pool_pending()); });
}

Status RegisterReadinessMetrics(metrics::Registry& registry, const ReadinessProbe& readiness) {
  return registry.AddGaugeCallback(
      "skade_ready", "1 while GET /health/ready answers 200 (every readiness check passes), else 0",
      [&readiness] { return readiness.Current().ready ? 1.0 : 0.0; });
}

}  // namespace skade::rest
