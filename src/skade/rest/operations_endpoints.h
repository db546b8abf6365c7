// The endpoints for whoever runs the server, outside the Iceberg API (/v1)
// and outside its authentication:
//
//   GET /health/live   200 {"status":"live"} whenever the process answers.
//   GET /health/ready  200 when the readiness probe's checks pass (the store
//                      is writable, the warehouse reachable, not shutting
//                      down), else 503; the body is ReadinessProbe::ToJson,
//                      a failed check's message only for callers who may
//                      read the catalog (auth off, or a valid token): it
//                      can name the warehouse path or the S3 endpoint.
//   GET /metrics       the registry in the Prometheus text format 0.0.4.
//                      Public by default; with MetricsAuth::kToken it needs a
//                      valid bearer token, as the /v1 routes do.
//
// The route table (routes.cc) names them; CatalogService forwards to this.
// All three are answered on an I/O thread from memory (the probe's last
// results; the registry's counters and callbacks), so polling them every
// second costs next to nothing. None is advertised in /v1/config.
//
// Thread-safe; the registry and the probe are shared with whoever updates
// them.
#pragma once

#include <memory>
#include <string_view>

#include "skade/metrics/registry.h"
#include "skade/rest/http/http_message.h"
#include "skade/rest/readiness_probe.h"
#include "skade/util/result.h"

namespace skade::rest {

/// Who may read GET /metrics (skade serve --metrics-auth).
enum class MetricsAuth {
  kNone,   // anyone: scrapers usually carry no token
  kToken,  // a valid bearer token, as for the /v1 routes
};

/// "none" or "token"; kInvalidArgument otherwise.
Result<MetricsAuth> ParseMetricsAuth(std::string_view text);

class OperationsEndpoints {
 public:
  /// `registry` and `readiness` must not be null.
  OperationsEndpoints(std::shared_ptr<const metrics::Registry> registry,
                      std::shared_ptr<const ReadinessProbe> readiness,
                      MetricsAuth metrics_auth = MetricsAuth::kNone);

  /// Whether GET /metrics is answered before authentication.
  bool metrics_public() const { return metrics_auth_ == MetricsAuth::kNone; }

  HttpResponse Live() const;
  /// `with_messages`: whether the body says why a check failed (see
  /// ReadinessProbe::ToJson); the caller decides who may know.
  HttpResponse Ready(bool with_messages) const;
  HttpResponse Metrics() const;

 private:
  std::shared_ptr<const metrics::Registry> registry_;
  std::shared_ptr<const ReadinessProbe> readiness_;
  MetricsAuth metrics_auth_;
};

}  // namespace skade::rest
