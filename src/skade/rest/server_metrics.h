// The metrics `skade serve` exposes besides the request counts
// (http_metrics.h): the catalog's commits, its store, its caches, the commit
// log and the HTTP server's load, each read at scrape time from the
// statistics its owner keeps (CommitStats, StoreStats, the caches' stats(),
// HttpServer's gauges). docs/operations/health-and-metrics.md lists them all.
//
// What is registered reads the objects passed in at every Collect(): they
// must outlive the registry's last Collect() (in skade serve, the last
// scrape happens before the server has shut down). Thread-safe as the
// registry is.
#pragma once

#include "skade/cache/manifest_cache.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/metrics/registry.h"
#include "skade/rest/http/http_server.h"
#include "skade/rest/readiness_probe.h"
#include "skade/util/result.h"

namespace skade::rest {

/// skade_build_info, skade_commits_total{kind}, skade_commit_conflicts_total,
/// skade_commit_retries_total, skade_commit_rebases_total,
/// skade_commit_batch_size, skade_commits_queued,
/// skade_store_group_commit_batch_size, skade_store_{file,map_size,map_used}_bytes,
/// skade_commit_log_last_sequence, skade_commit_log_pruned_through and
/// skade_cache_{hits,misses,evictions}_total / skade_cache_{bytes,entries,capacity_bytes}
/// {cache="metadata"|"manifest"}. `manifest_cache` may be null (no manifest
/// series then).
Status RegisterCatalogMetrics(metrics::Registry& registry, catalog::EmbeddedCatalog& catalog,
                              const cache::ManifestCache* manifest_cache);

/// skade_http_open_connections, skade_http_max_connections and
/// skade_http_handler_pool_pending.
Status RegisterServerMetrics(metrics::Registry& registry, const HttpServer& server);

/// skade_ready: 1 while GET /health/ready answers 200, else 0.
Status RegisterReadinessMetrics(metrics::Registry& registry, const ReadinessProbe& readiness);

}  // namespace skade::rest
