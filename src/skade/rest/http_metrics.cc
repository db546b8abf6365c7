#include "skade/rest/http_metrics.h"

#include <absl/container/flat_hash_set.h>

#include <array>

#include "skade/rest/routes.h"

namespace skade::rest {

namespace {

constexpr std::string_view kNoRoute = "none";
constexpr std::string_view kOther = "other";

// Codes 100 to 599 as text, made once so a label needs no allocation.
const std::array<std::string, 500>& StatusTexts() {
  static const auto* kTexts = [] {
    auto* texts = new std::array<std::string, 500>();
    for (int i = 0; i < 500; ++i) (*texts)[i] = std::to_string(100 + i);
    return texts;
  }();
  return *kTexts;
}

std::string_view StatusLabel(int status) {
  if (status < 100 || status > 599) return kOther;
  return StatusTexts()[status - 100];
}

}  // namespace

std::vector<double> HttpMetrics::DurationBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30,    60};
}

Result<std::unique_ptr<HttpMetrics>> HttpMetrics::Make(metrics::Registry& registry) {
  std::unique_ptr<HttpMetrics> out(new HttpMetrics());
  SKADE_ASSIGN_OR_RAISE(
      out->requests_,
      registry.AddCounterFamily("skade_http_requests_total",
                                "HTTP requests answered, by route pattern, method and status",
                                {"route", "method", "status"}));
  SKADE_ASSIGN_OR_RAISE(
      out->durations_,
      registry.AddHistogramFamily(
          "skade_http_request_duration_seconds",
          "Time from a complete request to its response handed to the kernel, by route pattern "
          "and method",
          {"route", "method"}, DurationBounds()));
  SKADE_ASSIGN_OR_RAISE(
      out->request_bytes_,
      registry.AddCounter("skade_http_request_body_bytes_total", "Request body bytes received"));
  SKADE_ASSIGN_OR_RAISE(
      out->response_bytes_,
      registry.AddCounter("skade_http_response_body_bytes_total", "Response body bytes sent"));
  return out;
}

std::string_view HttpMetrics::RouteLabel(std::string_view route) {
  if (route.empty()) return kNoRoute;
  static const auto* kPatterns = [] {
    auto* patterns = new absl::flat_hash_set<std::string_view>();
    for (const Route& row : Routes()) patterns->insert(row.pattern);
    return patterns;
  }();
  auto it = kPatterns->find(route);
  // The table's own storage: static, whatever `route` points into.
  return it == kPatterns->end() ? kOther : *it;
}

std::string_view HttpMetrics::MethodLabel(std::string_view method) {
  static constexpr std::string_view kMethods[] = {"GET",    "HEAD",  "POST",   "PUT",
                                                  "DELETE", "PATCH", "OPTIONS"};
  for (std::string_view known : kMethods) {
    if (method == known) return known;
  }
  return kOther;
}

void HttpMetrics::Record(const RequestRecord& record) {
  const std::string_view route = RouteLabel(record.route);
  const std::string_view method = MethodLabel(record.method);
  requests_->WithLabels({route, method, StatusLabel(record.status)}).Increment();
  durations_->WithLabels({route, method})
      .Observe(static_cast<double>(record.duration_us) / 1'000'000.0);
  if (record.request_body_bytes > 0) request_bytes_->Increment(record.request_body_bytes);
  if (record.response_body_bytes > 0) response_bytes_->Increment(record.response_body_bytes);
}

}  // namespace skade::rest
