// HttpMetrics: counts answered requests for GET /metrics — the consumer of
// HttpServerOptions::on_request.
//
//   skade_http_requests_total{route,method,status}       counter
//   skade_http_request_duration_seconds{route,method}    histogram
//   skade_http_request_body_bytes_total / _response_…    counters
//
// Labels come only from fixed vocabularies, never from what a client sent:
// `route` is the route table's pattern (HttpResponse::route, checked
// against routes.h; "none" when no route matched, such as a 404 or a
// request the transport rejected), `method` one of the HTTP methods the
// server knows (else "other"), `status` the three-digit code. So the series
// are bounded by the route table, whatever paths clients send.
//
// Thread-safe: Record() is called concurrently from the I/O threads and the
// handler pool. It costs two striped-mutex hash lookups (no allocation once
// a label set has been seen) and three lock-free sharded atomic updates.
#pragma once

#include <string_view>

#include "skade/metrics/registry.h"
#include "skade/rest/http/http_server.h"
#include "skade/util/result.h"

namespace skade::rest {

class HttpMetrics {
 public:
  /// The buckets of the duration histogram, in seconds: 100 µs to 60 s in
  /// 1-2.5-5 steps — a loadTable from the cache and a commit waiting for a
  /// sync and a batch land in different buckets.
  static std::vector<double> DurationBounds();

  /// Registers the families in `registry`, which must outlive this.
  /// kAlreadyExists if they are registered there already.
  static Result<std::unique_ptr<HttpMetrics>> Make(metrics::Registry& registry);

  void Record(const RequestRecord& record);

  /// The route label for a response's route: the route table's pattern, or
  /// "none" (empty) or "other" (not a pattern of the table).
  static std::string_view RouteLabel(std::string_view route);
  /// The method label: a known method, or "other".
  static std::string_view MethodLabel(std::string_view method);

 private:
  HttpMetrics() = default;

  metrics::CounterFamily* requests_ = nullptr;
  metrics::HistogramFamily* durations_ = nullptr;
  metrics::Counter* request_bytes_ = nullptr;
  metrics::Counter* response_bytes_ = nullptr;
};

}  // namespace skade::rest
