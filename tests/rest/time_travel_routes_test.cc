// skade's time-travel extension routes (/v1/skade/…) over a real
// EmbeddedCatalog: loads at a snapshot and as of a time (including a
// snapshot the current metadata has expired), the commit log in pages, the
// batched resolve with its per-request cap, and every malformed input as a
// 400 ErrorModel, never a 5xx.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rest/rest_service_fixture.h"
#include "skade/rest/catalog_service.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/strings.h"

namespace skade::rest {
namespace {

using skade::testing::kSchema;

constexpr char kTable[] = "/v1/namespaces/n/tables/t";
constexpr char kExtension[] = "/v1/skade/namespaces/n/tables/t";

struct Commit {
  int64_t seq;
  int64_t at_ms;
  std::string location;
  std::vector<int64_t> added;
};

class TimeTravelRoutesTest : public testing::RestServiceTest {
 protected:
  void SetUp() override {
    OpenService();
    ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    auto created =
        Call("POST", "/v1/namespaces/n/tables", StrCat(R"({"name":"t","schema":)", kSchema, "}"));
    ASSERT_EQ(created.status, 200) << created.body;
  }

  // Commits snapshot `id` as main's head; returns the new metadata location.
  std::string AddSnapshot(int64_t id) {
    const std::string parent = id > 1 ? StrCat(R"(,"parent-snapshot-id":)", id - 1) : "";
    auto response = Call(
        "POST", kTable,
        StrCat(
            R"({"requirements":[],"updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":)",
            id, parent, R"(,"sequence-number":)", id, R"(,"timestamp-ms":)", 1700000000000 + id,
            R"(,"manifest-list":"file:///m/)", id, R"(.avro","summary":{"operation":"append"}}},)",
            R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":)", id,
            "}]}"));
    EXPECT_EQ(response.status, 200) << response.body;
    return std::string(*json::GetString(Body(response), "metadata-location"));
  }

  void ExpireSnapshot(int64_t id) {
    auto response = Call(
        "POST", kTable,
        StrCat(R"({"requirements":[],"updates":[{"action":"remove-snapshots","snapshot-ids":[)", id,
               "]}]}"));
    ASSERT_EQ(response.status, 200) << response.body;
  }

  // The snapshot ids of the metadata in a LoadTableResult body.
  std::vector<int64_t> SnapshotIds(const HttpResponse& response) {
    auto metadata = json::GetRequired(Body(response), "metadata");
    EXPECT_TRUE(metadata) << response.body;
    if (!metadata) return {};
    auto parsed = spec::TableMetadataFromJson(json::Minify(*metadata));
    EXPECT_TRUE(parsed);
    std::vector<int64_t> ids;
    for (const auto& snapshot : (*parsed)->snapshots) ids.push_back(snapshot->snapshot_id);
    return ids;
  }

  std::string LocationOf(const HttpResponse& response) {
    auto location = json::GetString(Body(response), "metadata-location");
    EXPECT_TRUE(location) << response.body;
    return location ? std::string(*location) : "";
  }

  // One page of the history route; `next` gets its token (empty on the last).
  std::vector<Commit> HistoryPage(const std::string& query, std::string* next) {
    auto response = Call("GET", StrCat(kExtension, "/history", query));
    EXPECT_EQ(response.status, 200) << response.body;
    auto body = Body(response);
    std::vector<Commit> out;
    auto commits = json::GetArray(body, "commits");
    EXPECT_TRUE(commits) << response.body;
    if (!commits) return out;
    for (auto item : *commits) {
      auto object = *json::AsObject(item, "commit");
      out.push_back({*json::GetInt64(object, "commit-seq"),
                     *json::GetInt64(object, "committed-at-ms"),
                     std::string(*json::GetString(object, "metadata-location")),
                     *json::GetInt64List(object, "added-snapshot-ids")});
    }
    auto token = json::GetOptionalString(body, "next-page-token");
    *next = token->value_or("");
    if (token->has_value()) {
      EXPECT_FALSE(token->value().empty());
    }
    return out;
  }

  std::vector<Commit> History() {
    std::string next;
    auto commits = HistoryPage("", &next);
    EXPECT_TRUE(next.empty());
    return commits;
  }

  static std::string ResolveItem(const std::string& table, int64_t snapshot_id) {
    return StrCat(R"({"identifier":{"namespace":["n"],"name":")", table, R"("},"snapshot-id":)",
                  snapshot_id, "}");
  }

  static std::string ResolveBody(const std::vector<std::string>& items) {
    return StrCat(R"({"snapshots":[)", Join(items, ","), "]}");
  }
};

TEST_F(TimeTravelRoutesTest, SnapshotRouteLoadsThatCommitsMetadataEvenAfterExpiry) {
  const std::string first = AddSnapshot(1);
  AddSnapshot(2);
  const std::string third = AddSnapshot(3);
  ExpireSnapshot(1);
  auto current = Call("GET", kTable);
  EXPECT_EQ(SnapshotIds(current), (std::vector<int64_t>{2, 3}));

  auto at_first = Call("GET", StrCat(kExtension, "/snapshots/1"));
  ASSERT_EQ(at_first.status, 200) << at_first.body;
  EXPECT_EQ(LocationOf(at_first), first);
  EXPECT_EQ(SnapshotIds(at_first), (std::vector<int64_t>{1}));
  EXPECT_TRUE(json::GetObject(Body(at_first), "config"));
  // The metadata is the file's bytes, embedded verbatim as loadTable does.
  EXPECT_NE(at_first.body.find(*catalog_->file_io().ReadFile(first)), std::string::npos);

  auto at_third = Call("GET", StrCat(kExtension, "/snapshots/3"));
  ASSERT_EQ(at_third.status, 200) << at_third.body;
  EXPECT_EQ(LocationOf(at_third), third);

  auto unknown = Call("GET", StrCat(kExtension, "/snapshots/99"));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(ErrorType(unknown), "NotFoundException");
  auto max = Call("GET", StrCat(kExtension, "/snapshots/9223372036854775807"));
  EXPECT_EQ(ErrorType(max), "NotFoundException");
  EXPECT_EQ(ErrorType(Call("GET", "/v1/skade/namespaces/n/tables/nope/snapshots/1")),
            "NoSuchTableException");
  EXPECT_EQ(ErrorType(Call("GET", "/v1/skade/namespaces/nope/tables/t/snapshots/1")),
            "NoSuchTableException");
}

TEST_F(TimeTravelRoutesTest, AsOfLoadsTheLastCommitAtOrBeforeTheTime) {
  AddSnapshot(1);
  AddSnapshot(2);
  ExpireSnapshot(1);
  const std::vector<Commit> commits = History();
  ASSERT_GE(commits.size(), 3u);
  for (const Commit& commit : commits) {
    // Commits within one millisecond: the last of them is the table at that time.
    std::string expected;
    for (const Commit& other : commits) {
      if (other.at_ms <= commit.at_ms) expected = other.location;
    }
    auto response = Call("GET", StrCat(kExtension, "/as-of?timestamp-ms=", commit.at_ms));
    ASSERT_EQ(response.status, 200) << response.body;
    EXPECT_EQ(LocationOf(response), expected) << commit.at_ms;
  }
  auto now = Call("GET", StrCat(kExtension, "/as-of?timestamp-ms=9223372036854775807"));
  ASSERT_EQ(now.status, 200);
  EXPECT_EQ(LocationOf(now), LocationOf(Call("GET", kTable)));
  auto before = Call("GET", StrCat(kExtension, "/as-of?timestamp-ms=", commits.front().at_ms - 1));
  EXPECT_EQ(before.status, 404);
  EXPECT_EQ(ErrorType(before), "NotFoundException");
  EXPECT_EQ(ErrorType(Call("GET", "/v1/skade/namespaces/n/tables/nope/as-of?timestamp-ms=1")),
            "NoSuchTableException");
}

TEST_F(TimeTravelRoutesTest, HistoryListsEveryCommitAndPagesByCommitSeq) {
  const std::string first = AddSnapshot(1);
  AddSnapshot(2);
  AddSnapshot(3);
  ExpireSnapshot(1);
  const std::vector<Commit> all = History();
  // The creation, three appends and the expiry.
  ASSERT_EQ(all.size(), 5u);
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_LT(all[i - 1].seq, all[i].seq);
    EXPECT_LE(all[i - 1].at_ms, all[i].at_ms);
  }
  EXPECT_EQ(all[1].location, first);
  EXPECT_EQ(all[1].added, (std::vector<int64_t>{1}));
  EXPECT_EQ(all[3].added, (std::vector<int64_t>{3}));
  EXPECT_TRUE(all[4].added.empty());
  EXPECT_EQ(all[4].location, LocationOf(Call("GET", kTable)));

  std::vector<Commit> paged;
  std::string token;
  int pages = 0;
  do {
    auto page = HistoryPage(StrCat("?pageSize=2&pageToken=", token), &token);
    EXPECT_LE(page.size(), 2u);
    paged.insert(paged.end(), page.begin(), page.end());
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(paged.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(paged[i].seq, all[i].seq);

  // A page that ends exactly at the last commit carries no token.
  std::string next;
  EXPECT_EQ(HistoryPage(StrCat("?pageSize=", all.size()), &next).size(), all.size());
  EXPECT_TRUE(next.empty());
  // A pageSize above the cap is served, capped.
  EXPECT_EQ(HistoryPage("?pageSize=100000000", &next).size(), all.size());
  EXPECT_EQ(HistoryPage(StrCat("?pageToken=", all.back().seq), &next).size(), 0u);
  EXPECT_EQ(ErrorType(Call("GET", "/v1/skade/namespaces/n/tables/nope/history")),
            "NoSuchTableException");
}

TEST_F(TimeTravelRoutesTest, ResolveAnswersEachItemInOrder) {
  const std::string first = AddSnapshot(1);
  const std::string second = AddSnapshot(2);
  ExpireSnapshot(1);
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["other"]})").status, 200);
  auto response = Call(
      "POST", "/v1/skade/resolve",
      ResolveBody({ResolveItem("t", 2), ResolveItem("t", 99), ResolveItem("nope", 1),
                   ResolveItem("t", 1),
                   R"({"identifier":{"namespace":["missing","ns"],"name":"t"},"snapshot-id":1})",
                   ResolveItem("t", 2)}));
  ASSERT_EQ(response.status, 200) << response.body;
  auto body = Body(response);
  EXPECT_EQ(json::GetArray(body, "unprocessed")->size(), 0u);
  struct Expected {
    std::string name;
    int64_t snapshot_id;
    std::string location;  // empty: not found
  };
  const std::vector<Expected> expected = {{"t", 2, second}, {"t", 99, ""}, {"nope", 1, ""},
                                          {"t", 1, first},  {"t", 1, ""},  {"t", 2, second}};
  auto items = *json::GetArray(body, "snapshots");
  ASSERT_EQ(items.size(), expected.size());
  size_t i = 0;
  for (auto item : items) {
    auto object = *json::AsObject(item, "item");
    auto identifier = *json::GetObject(object, "identifier");
    EXPECT_EQ(*json::GetString(identifier, "name"), expected[i].name) << i;
    EXPECT_EQ(*json::GetInt64(object, "snapshot-id"), expected[i].snapshot_id) << i;
    if (expected[i].location.empty()) {
      EXPECT_EQ(*json::GetString(object, "status"), "not-found") << i;
      EXPECT_FALSE(json::Has(object, "metadata-location")) << i;
    } else {
      EXPECT_EQ(*json::GetString(object, "status"), "found") << i;
      EXPECT_EQ(*json::GetString(object, "metadata-location"), expected[i].location) << i;
    }
    ++i;
  }
  auto empty = Call("POST", "/v1/skade/resolve", R"({"snapshots":[]})");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.body, R"({"snapshots":[],"unprocessed":[]})");
}

// Items beyond the per-request cap are not resolved but returned, in order
// and in the request's form, so the client can send exactly them again.
TEST_F(TimeTravelRoutesTest, ResolveCapsItemsAndReturnsTheRestUnprocessed) {
  const std::string first = AddSnapshot(1);
  constexpr size_t kCap = CatalogService::kMaxResolveSnapshots;
  std::vector<std::string> items;
  for (size_t i = 0; i < kCap + 3; ++i)
    items.push_back(ResolveItem("t", i % 2 == 0 ? 1 : 1000 + i));
  auto response = Call("POST", "/v1/skade/resolve", ResolveBody(items));
  ASSERT_EQ(response.status, 200) << response.body.substr(0, 500);
  auto body = Body(response);
  auto resolved = *json::GetArray(body, "snapshots");
  ASSERT_EQ(resolved.size(), kCap);
  size_t found = 0;
  for (auto item : resolved) {
    found += *json::GetString(*json::AsObject(item, "item"), "status") == "found" ? 1 : 0;
  }
  EXPECT_EQ(found, kCap / 2);
  auto unprocessed = *json::GetArray(body, "unprocessed");
  std::vector<std::string> rest;
  for (auto item : unprocessed) {
    auto object = *json::AsObject(item, "item");
    EXPECT_FALSE(json::Has(object, "status"));
    rest.push_back(json::Minify(item));
  }
  EXPECT_EQ(rest, std::vector<std::string>(items.begin() + kCap, items.end()));
  // Sent again, they are answered.
  auto again = Call("POST", "/v1/skade/resolve", ResolveBody(rest));
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(json::GetArray(Body(again), "snapshots")->size(), 3u);

  // A body of many more items than the cap is still one bounded answer.
  std::vector<std::string> many(100 * kCap, ResolveItem("t", 1));
  auto huge = Call("POST", "/v1/skade/resolve", ResolveBody(many));
  ASSERT_EQ(huge.status, 200);
  auto huge_body = Body(huge);
  EXPECT_EQ(json::GetArray(huge_body, "snapshots")->size(), kCap);
  EXPECT_EQ(json::GetArray(huge_body, "unprocessed")->size(), many.size() - kCap);
}

TEST_F(TimeTravelRoutesTest, MalformedInputIsABadRequest) {
  AddSnapshot(1);
  std::vector<std::string> targets;
  for (const char* id :
       {"-", "--1", "+1", "-9223372036854775809", "9223372036854775808", "99999999999999999999999",
        "abc", "1.5", "1e3", "0x10", "%20%31", "1%00", "%zz", "%E2%82%AC"}) {
    targets.push_back(StrCat(kExtension, "/snapshots/", id));
  }
  for (const char* query :
       {"", "?timestamp-ms", "?timestamp-ms=", "?timestamp-ms=-5", "?timestamp-ms=abc",
        "?timestamp-ms=1.5", "?timestamp-ms=99999999999999999999", "?timestamp-ms=2026-11-01",
        "?timestampMs=1"}) {
    targets.push_back(StrCat(kExtension, "/as-of", query));
  }
  for (const char* query :
       {"?pageToken=x", "?pageToken=-1", "?pageToken=1.0", "?pageToken=99999999999999999999",
        "?pageSize=0", "?pageSize=-2", "?pageSize=many",
        // Well formed, but no commit: a page would have to walk the whole
        // history to find where it starts.
        "?pageToken=9223372036854775807", "?pageToken=4000"}) {
    targets.push_back(StrCat(kExtension, "/history", query));
  }
  targets.push_back("/v1/skade/namespaces/n/tables/%00/history");
  targets.push_back("/v1/skade/namespaces/%zz/tables/t/snapshots/1");
  for (const auto& target : targets) {
    auto response = Call("GET", target);
    EXPECT_EQ(response.status, 400) << target << " " << response.body;
    EXPECT_EQ(ErrorType(response), "BadRequestException") << target;
  }

  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string item = R"("identifier":{"namespace":["n"],"name":"t"})";
  for (const std::string& body : std::vector<std::string>{
           "", "{not json", "[]", "null", "{}", R"({"snapshots":null})", R"({"snapshots":{}})",
           R"({"snapshots":[1]})", R"({"snapshots":[{}]})", R"({"snapshots":[[]]})",
           StrCat(R"({"snapshots":[{)", item, "}]}"),
           StrCat(R"({"snapshots":[{)", item, R"(,"snapshot-id":"1"}]})"),
           StrCat(R"({"snapshots":[{)", item, R"(,"snapshot-id":-9223372036854775809}]})"),
           StrCat(R"({"snapshots":[{)", item, R"(,"snapshot-id":1.5}]})"),
           StrCat(R"({"snapshots":[{)", item, R"(,"snapshot-id":18446744073709551615}]})"),
           StrCat(R"({"snapshots":[{)", item, R"(,"snapshot-id":1e400}]})"),
           StrCat(R"({"snapshots":[{)", item, R"(,"snapshot-id":null}]})"),
           R"({"snapshots":[{"identifier":{"name":"t"},"snapshot-id":1}]})",
           R"({"snapshots":[{"identifier":{"namespace":"n","name":"t"},"snapshot-id":1}]})",
           R"({"snapshots":[{"identifier":{"namespace":[1],"name":"t"},"snapshot-id":1}]})",
           R"({"snapshots":[{"identifier":{"namespace":["n"],"name":7},"snapshot-id":1}]})",
           R"({"snapshots":[{"identifier":{"namespace":["n"],"name":""},"snapshot-id":1}]})",
           R"({"snapshots":[{"identifier":{"namespace":[],"name":"t"},"snapshot-id":1}]})",
           R"({"snapshots":[{"identifier":"n.t","snapshot-id":1}]})",
           // A bad item beyond the cap fails the request too: nothing is half-answered.
           StrCat(R"({"snapshots":[)",
                  Join(std::vector<std::string>(CatalogService::kMaxResolveSnapshots,
                                                ResolveItem("t", 1)),
                       ","),
                  R"(,{"snapshot-id":1}]})"),
           StrCat(R"({"snapshots":)", deep, "}"), deep}) {
    auto response = Call("POST", "/v1/skade/resolve", body);
    EXPECT_EQ(response.status, 400) << body.substr(0, 200) << " " << response.body;
    EXPECT_EQ(ErrorType(response), "BadRequestException") << body.substr(0, 200);
  }
  // The wrong method is a 405, a prefix a 404, as for the spec's routes.
  EXPECT_EQ(Call("GET", "/v1/skade/resolve").status, 405);
  EXPECT_EQ(Call("DELETE", StrCat(kExtension, "/snapshots/1")).status, 405);
  EXPECT_EQ(ErrorType(Call("GET", "/v1/warehouse/skade/namespaces/n/tables/t/snapshots/1")),
            "NoSuchRouteException");
}

// The extension routes are reads: a read-only client may call them,
// including the resolve POST, and an unauthenticated one may not.
TEST_F(TimeTravelRoutesTest, ReadOnlyClientsMayTimeTravel) {
  OpenServiceWithWriterAndReader();
  auto grant = Call("POST", "/v1/oauth/tokens",
                    "grant_type=client_credentials&client_id=reader&client_secret=r-secret",
                    {{"content-type", "application/x-www-form-urlencoded"}});
  ASSERT_EQ(grant.status, 200) << grant.body;
  const std::string bearer = StrCat("Bearer ", *json::GetString(Body(grant), "access_token"));
  const std::vector<std::pair<std::string, std::string>> headers = {{"authorization", bearer}};
  EXPECT_EQ(Call("GET", StrCat(kExtension, "/history"), "", headers).status, 200);
  EXPECT_EQ(Call("GET", StrCat(kExtension, "/as-of?timestamp-ms=9223372036854775807"), "", headers)
                .status,
            200);
  EXPECT_EQ(Call("POST", "/v1/skade/resolve", ResolveBody({ResolveItem("t", 1)}), headers).status,
            200);
  EXPECT_EQ(Call("POST", "/v1/skade/resolve", ResolveBody({ResolveItem("t", 1)})).status, 401);
}

}  // namespace
}  // namespace skade::rest
