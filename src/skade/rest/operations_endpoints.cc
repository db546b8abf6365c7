#include "skade/rest/operations_endpoints.h"

namespace skade::rest {

namespace {

HttpResponse Response(int status, std::string_view content_type, std::string body) {
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", std::string(content_type));
  // A probe or a scrape must see the state now, never a proxy's copy.
  response.headers.emplace_back("Cache-Control", "no-store");
  response.body = std::move(body);
  return response;
}

}  // namespace

Result<MetricsAuth> ParseMetricsAuth(std::string_view text) {
  if (text == "none") return MetricsAuth::kNone;
  if (text == "token") return MetricsAuth::kToken;
  return InvalidArgument("Unknown --metrics-auth '", text, "' (expected none or token)");
}

OperationsEndpoints::OperationsEndpoints(std::shared_ptr<const metrics::Registry> registry,
                                         std::shared_ptr<const ReadinessProbe> readiness,
                                         MetricsAuth metrics_auth)
    : registry_(std::move(registry)),
      readiness_(std::move(readiness)),
      metrics_auth_(metrics_auth) {}

HttpResponse OperationsEndpoints::Live() const {
  return Response(200, "application/json", R"({"status":"live"})");
}

HttpResponse OperationsEndpoints::Ready(bool with_messages) const {
  ReadinessReport report = readiness_->Current();
  HttpResponse response = Response(report.ready ? 200 : 503, "application/json",
                                   ReadinessProbe::ToJson(report, with_messages));
  if (!report.ready) {
    response.headers.emplace_back("Retry-After", "1");
    response.error = "not ready";
  }
  return response;
}

HttpResponse OperationsEndpoints::Metrics() const {
  return Response(200, metrics::kTextFormatContentType, registry_->Scrape());
}

}  // namespace skade::rest
