// HttpMetrics, the on_request consumer: requests are counted by the route
// table's pattern, a known method and the status, never by what the client
// sent, so the series stay bounded whatever paths arrive.
#include "skade/rest/http_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "skade/rest/routes.h"

namespace skade::rest {
namespace {

constexpr std::string_view kTableRoute = "v1/{prefix}/namespaces/{namespace}/tables/{table}";

RequestRecord Record(std::string_view method, std::string_view path, std::string_view route,
                     int status, int64_t duration_us = 1500) {
  RequestRecord record;
  record.method = method;
  record.path = path;
  record.route = route;
  record.status = status;
  record.duration_us = duration_us;
  record.request_body_bytes = 10;
  record.response_body_bytes = 100;
  return record;
}

TEST(HttpMetricsTest, LabelsComeFromTheRouteTable) {
  for (const Route& route : Routes())
    EXPECT_EQ(HttpMetrics::RouteLabel(route.pattern), route.pattern);
  EXPECT_EQ(HttpMetrics::RouteLabel(""), "none");
  EXPECT_EQ(HttpMetrics::RouteLabel("v1/namespaces/secret-name"), "other");
  EXPECT_EQ(HttpMetrics::MethodLabel("GET"), "GET");
  EXPECT_EQ(HttpMetrics::MethodLabel("BREW"), "other");
  EXPECT_EQ(HttpMetrics::MethodLabel("get"), "other");
}

TEST(HttpMetricsTest, CountsByRouteMethodAndStatus) {
  metrics::Registry registry;
  auto http = HttpMetrics::Make(registry);
  ASSERT_TRUE(http);
  // A route string that is not the table's own storage still maps to it.
  const std::string route_copy(kTableRoute);
  (*http)->Record(Record("GET", "/v1/namespaces/a/tables/t1", route_copy, 200, 80));
  (*http)->Record(Record("GET", "/v1/namespaces/b/tables/t2", kTableRoute, 200, 3'000'000));
  (*http)->Record(Record("POST", "/v1/namespaces/b/tables/t2", kTableRoute, 409));
  (*http)->Record(Record("GET", "/no/such/path", "", 404));
  (*http)->Record(Record("-", "-", "", 400));
  (*http)->Record(Record("GET", "/x", "", 1000));
  const std::string body = registry.Scrape();
  const std::string table = std::string(kTableRoute);
  for (const std::string& line : {
           "skade_http_requests_total{route=\"" + table + "\",method=\"GET\",status=\"200\"} 2\n",
           "skade_http_requests_total{route=\"" + table + "\",method=\"POST\",status=\"409\"} 1\n",
           std::string(
               "skade_http_requests_total{route=\"none\",method=\"GET\",status=\"404\"} 1\n"),
           std::string(
               "skade_http_requests_total{route=\"none\",method=\"other\",status=\"400\"} 1\n"),
           std::string(
               "skade_http_requests_total{route=\"none\",method=\"GET\",status=\"other\"} 1\n"),
           // 80 µs is in the first bucket (100 µs), 3 s in the one of 5 s.
           "skade_http_request_duration_seconds_bucket{route=\"" + table +
               "\",method=\"GET\",le=\"0.0001\"} 1\n",
           "skade_http_request_duration_seconds_bucket{route=\"" + table +
               "\",method=\"GET\",le=\"2.5\"} 1\n",
           "skade_http_request_duration_seconds_bucket{route=\"" + table +
               "\",method=\"GET\",le=\"5\"} 2\n",
           "skade_http_request_duration_seconds_count{route=\"" + table + "\",method=\"GET\"} 2\n",
           "skade_http_request_duration_seconds_sum{route=\"" + table +
               "\",method=\"GET\"} 3.00008\n",
           std::string("skade_http_request_body_bytes_total 60\n"),
           std::string("skade_http_response_body_bytes_total 600\n"),
       }) {
    EXPECT_NE(body.find(line), std::string::npos) << line << "\n" << body;
  }
  // No raw path reaches a label.
  EXPECT_EQ(body.find("t1"), std::string::npos);
  EXPECT_EQ(body.find("no/such"), std::string::npos);
}

// Records arrive from every I/O thread and the pool at once.
TEST(HttpMetricsTest, ConcurrentRecordsAreAllCounted) {
  metrics::Registry registry;
  auto http = HttpMetrics::Make(registry);
  ASSERT_TRUE(http);
  constexpr int kThreads = 8;
  constexpr int kRequests = 10'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequests; ++i) {
        (*http)->Record(Record("GET", "/v1/config", "v1/config", t % 2 == 0 ? 200 : 503));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const std::string body = registry.Scrape();
  for (const char* status : {"200", "503"}) {
    const std::string line = StrCat("skade_http_requests_total{route=\"v1/config\",method=\"GET\",",
                                    "status=\"", status, "\"} ", kThreads / 2 * kRequests, "\n");
    EXPECT_NE(body.find(line), std::string::npos) << line << body;
  }
  EXPECT_NE(body.find(StrCat("skade_http_request_duration_seconds_count{route=\"v1/config\","
                             "method=\"GET\"} ",
                             kThreads * kRequests, "\n")),
            std::string::npos)
      << body;
}

}  // namespace
}  // namespace skade::rest
