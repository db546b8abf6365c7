// The REST service over a real EmbeddedCatalog, request by request: status
// codes, ErrorModel types, and the encodings clients use.
#include <gtest/gtest.h>
#include <malloc.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "rest/rest_service_fixture.h"
#include "skade/rest/rest_messages.h"
#include "skade/rest/routes.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/clock.h"
#include "skade/util/gzip.h"
#include "skade/util/strings.h"

namespace skade::rest {
namespace {

using skade::testing::kSchema;

class CatalogServiceTest : public testing::RestServiceTest {
 protected:
  void SetUp() override { OpenService(); }

  void CreateTable(const std::string& ns_segment, const std::string& name) {
    auto response = Call("POST", "/v1/namespaces/" + ns_segment + "/tables",
                         R"({"name":")" + name + R"(","schema":)" + kSchema + "}");
    ASSERT_EQ(response.status, 200) << response.body;
  }

  /// The JSON of n.source's metadata as a table n.`name` of its own (its
  /// location and uuid), to register.
  std::string MetadataFor(const std::string& name, const std::string& uuid) {
    auto source = catalog_->LoadTable({{"n"}, "source"});
    EXPECT_TRUE(source);
    spec::TableMetadata metadata = *source->metadata;
    metadata.location = StrCat("file://", dir_.path(), "/n/", name);
    metadata.table_uuid = uuid;
    return spec::TableMetadataToJson(metadata);
  }

  /// Writes `bytes` as n.`name`'s first metadata file, `file_name`; its location.
  std::string WriteMetadataFile(const std::string& name, const std::string& file_name,
                                const std::string& bytes) {
    const auto directory = std::filesystem::path(dir_.path()) / "n" / name / "metadata";
    std::filesystem::create_directories(directory);
    std::ofstream(directory / file_name, std::ios::binary) << bytes;
    return StrCat("file://", (directory / file_name).string());
  }

  rest::HttpResponse Register(const std::string& name, const std::string& location) {
    return Call("POST", "/v1/namespaces/n/register",
                StrCat(R"({"name":")", name, R"(","metadata-location":")", location, R"("})"));
  }
};

// The bytes the heap holds in use, mapped blocks included.
size_t HeapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

TEST_F(CatalogServiceTest, ConfigAdvertisesExactlyTheRoutedEndpoints) {
  auto response = Call("GET", "/v1/config?warehouse=anything");
  ASSERT_EQ(response.status, 200);
  auto body = Body(response);
  EXPECT_TRUE(json::GetObject(body, "defaults"));
  EXPECT_TRUE(json::GetObject(body, "overrides"));
  auto endpoints = json::GetStringList(body, "endpoints");
  ASSERT_TRUE(endpoints);
  EXPECT_EQ(*endpoints, AdvertisedEndpoints());
  // Every advertised endpoint is routed (a 404 here would be a NoSuchRoute).
  for (const auto& endpoint : *endpoints) {
    std::string method = endpoint.substr(0, endpoint.find(' '));
    std::string path = endpoint.substr(endpoint.find(' ') + 1);
    for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"/{prefix}", ""}, {"{namespace}", "ns"}, {"{table}", "t"}, {"{snapshot-id}", "1"}}) {
      if (auto at = path.find(from); at != std::string::npos) path.replace(at, from.size(), to);
    }
    auto routed = Call(method, path, "{}");
    if (routed.status == 404) {
      EXPECT_NE(ErrorType(routed), "NoSuchRouteException") << endpoint;
    }
    EXPECT_NE(routed.status, 405) << endpoint;
  }
}

TEST_F(CatalogServiceTest, NamespaceRoutes) {
  auto created = Call("POST", "/v1/namespaces", R"({"namespace":["a"],"properties":{"k":"v"}})");
  ASSERT_EQ(created.status, 200);
  EXPECT_EQ(*json::GetStringMap(Body(created), "properties"), (catalog::Properties{{"k", "v"}}));
  EXPECT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["a","b c"]})").status, 200);
  auto conflict = Call("POST", "/v1/namespaces", R"({"namespace":["a"]})");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(ErrorType(conflict), "AlreadyExistsException");

  auto children = Call("GET", "/v1/namespaces?parent=a");
  ASSERT_EQ(children.status, 200);
  EXPECT_NE(children.body.find(R"([["a","b c"]])"), std::string::npos) << children.body;
  EXPECT_EQ(children.body.find("next-page-token"), std::string::npos);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/a%1Fb+c").status, 204);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/zzz").status, 404);
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces/zzz")), "NoSuchNamespaceException");
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces?parent=zzz")), "NoSuchNamespaceException");

  auto properties = Call("POST", "/v1/namespaces/a/properties",
                         R"({"removals":["k","nope"],"updates":{"x":"1"}})");
  ASSERT_EQ(properties.status, 200);
  auto body = Body(properties);
  EXPECT_EQ(*json::GetStringList(body, "removed"), std::vector<std::string>{"k"});
  EXPECT_EQ(*json::GetStringList(body, "missing"), std::vector<std::string>{"nope"});
  EXPECT_EQ(Call("POST", "/v1/namespaces/a/properties", R"({"removals":["x"],"updates":{"x":"1"}})")
                .status,
            422);

  auto not_empty = Call("DELETE", "/v1/namespaces/a");
  EXPECT_EQ(not_empty.status, 409);
  EXPECT_EQ(ErrorType(not_empty), "NamespaceNotEmptyException");
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/a%1Fb%20c").status, 204);
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/a").status, 204);
}

TEST_F(CatalogServiceTest, ListsPageWithTokensAndNeverSendAnEmptyToken) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  for (int i = 0; i < 5; ++i) CreateTable("n", "t" + std::to_string(i));
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    auto response = Call("GET", "/v1/namespaces/n/tables?pageSize=2&pageToken=" + token);
    ASSERT_EQ(response.status, 200);
    auto body = Body(response);
    auto identifiers = json::GetArray(body, "identifiers");
    ASSERT_TRUE(identifiers);
    for (auto identifier : *identifiers) {
      names.push_back(*json::GetString(*json::AsObject(identifier, "id"), "name"));
    }
    auto next = json::GetOptionalString(body, "next-page-token");
    token = next->value_or("");
    if (next->has_value()) {
      EXPECT_FALSE(next->value().empty());
    }
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(names, (std::vector<std::string>{"t0", "t1", "t2", "t3", "t4"}));
  EXPECT_EQ(pages, 3);
  // Java's first call sends an empty pageToken and no pageSize: everything.
  auto all = Call("GET", "/v1/namespaces/n/tables?pageToken=");
  EXPECT_EQ(json::GetArray(Body(all), "identifiers")->size(), 5u);
  EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables?pageSize=0").status, 400);
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces/nope/tables")), "NoSuchNamespaceException");
}

TEST_F(CatalogServiceTest, TableRoutesAndErrorTypes) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  auto missing_ns = Call("POST", "/v1/namespaces/nope/tables",
                         R"({"name":"t","schema":)" + std::string(kSchema) + "}");
  EXPECT_EQ(missing_ns.status, 404);
  EXPECT_EQ(ErrorType(missing_ns), "NoSuchNamespaceException");
  CreateTable("n", "t");
  auto exists = Call("POST", "/v1/namespaces/n/tables",
                     R"({"name":"t","schema":)" + std::string(kSchema) + "}");
  EXPECT_EQ(ErrorType(exists), "AlreadyExistsException");
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/t").status, 204);
  // Missing table, even in a missing namespace (Spark's metadata-table probe), is NoSuchTable.
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces/n%1Ft/tables/files")), "NoSuchTableException");
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces/nope/tables/t")), "NoSuchTableException");
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/nope").status, 404);

  auto loaded = Call("GET", "/v1/namespaces/n/tables/t");
  ASSERT_EQ(loaded.status, 200);
  auto body = Body(loaded);
  std::string location = *json::GetString(body, "metadata-location");
  EXPECT_TRUE(json::GetObject(body, "config"));
  // The metadata is the file's bytes, embedded verbatim.
  auto file = catalog_->file_io().ReadFile(location);
  EXPECT_NE(loaded.body.find(*file), std::string::npos);

  auto commit = Call("POST", "/v1/namespaces/n/tables/t",
                     R"({"requirements":[{"type":"assert-current-schema-id","current-schema-id":0}],
                         "updates":[{"action":"set-properties","updates":{"a":"b"}}]})");
  ASSERT_EQ(commit.status, 200) << commit.body;
  EXPECT_NE(*json::GetString(Body(commit), "metadata-location"), location);
  auto failed = Call("POST", "/v1/namespaces/n/tables/t",
                     R"({"requirements":[{"type":"assert-current-schema-id","current-schema-id":7}],
                         "updates":[]})");
  EXPECT_EQ(failed.status, 409);
  EXPECT_EQ(ErrorType(failed), "CommitFailedException");
  auto unknown = Call("POST", "/v1/namespaces/n/tables/t",
                      R"({"requirements":[],"updates":[{"action":"do-magic"}]})");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(Call("POST", "/v1/namespaces/n/tables/t", "{not json").status, 400);
  auto mismatch =
      Call("POST", "/v1/namespaces/n/tables/t",
           R"({"identifier":{"namespace":["n"],"name":"other"},"requirements":[],"updates":[]})");
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(
      Call("POST", "/v1/namespaces/n/tables/nope",
           R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]})")
          .status,
      404);
  EXPECT_EQ(Call("PUT", "/v1/namespaces/n/tables/t").status, 405);
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces/n/views/v")), "NoSuchRouteException");
}

// A NUL in a location would cut the path short where the OS reads it:
// every location a client sends with a control character is a bad request,
// and nothing is created on disk for it.
TEST_F(CatalogServiceTest, ControlCharactersInLocationsAreBadRequests) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "t");
  const std::string root = dir_.path();
  // The catalog's own directory is left out: its background snapshot index
  // may be written at any moment, and it holds no client location.
  auto entries = [&] {
    std::set<std::string> names;
    for (auto it = std::filesystem::recursive_directory_iterator(root);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (it->path().filename() == ".skade") {
        it.disable_recursion_pending();
        continue;
      }
      names.insert(it->path().string());
    }
    return names;
  };
  const std::set<std::string> before = entries();
  for (const char* bad : {R"(\u0000x)", R"(zz\u0000)", R"(a\u001fb)", R"(c\u007f)"}) {
    SCOPED_TRACE(bad);
    auto created = Call("POST", "/v1/namespaces/n/tables",
                        StrCat(R"({"name":"c","schema":)", kSchema, R"(,"location":"file://)", root,
                               "/", bad, R"("})"));
    EXPECT_EQ(created.status, 400) << created.body;
    EXPECT_EQ(ErrorType(created), "BadRequestException");
    for (const std::string& update :
         {StrCat(R"({"action":"set-location","location":"file://)", root, "/", bad, R"("})"),
          StrCat(R"({"action":"set-properties","updates":{"write.metadata.path":"file://)", root,
                 "/", bad, R"("}})")}) {
      auto committed = Call("POST", "/v1/namespaces/n/tables/t",
                            StrCat(R"({"requirements":[],"updates":[)", update, "]}"));
      EXPECT_EQ(committed.status, 400) << committed.body;
    }
  }
  EXPECT_EQ(entries(), before);
}

// A table may not own another's files (nor a namespace's directory), which
// its purge would delete: such a location is 403, whichever way it comes.
TEST_F(CatalogServiceTest, LocationsOverlappingAnotherTableAreForbidden) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "victim");
  CreateTable("n", "t");
  const std::string victim = StrCat("file://", dir_.path(), "/n/victim");
  for (const std::string& location : {victim, StrCat("file://", dir_.path(), "/n")}) {
    auto created =
        Call("POST", "/v1/namespaces/n/tables",
             StrCat(R"({"name":"evil","schema":)", kSchema, R"(,"location":")", location, R"("})"));
    EXPECT_EQ(created.status, 403) << created.body;
    EXPECT_EQ(ErrorType(created), "ForbiddenException");
    EXPECT_NE(created.body.find("overlaps"), std::string::npos) << created.body;
  }
  for (const std::string& update :
       {StrCat(R"({"action":"set-location","location":")", victim, R"("})"),
        StrCat(R"({"action":"set-properties","updates":{"write.data.path":")", victim,
               R"(/data"}})"),
        StrCat(R"({"action":"set-properties","updates":{"write.object-storage.path":")", victim,
               R"(/data"}})"),
        StrCat(R"({"action":"set-properties","updates":{"write.folder-storage.path":")", victim,
               R"(/data"}})")}) {
    auto committed = Call("POST", "/v1/namespaces/n/tables/t",
                          StrCat(R"({"requirements":[],"updates":[)", update, "]}"));
    EXPECT_EQ(committed.status, 403) << committed.body;
  }
  EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables/evil").status, 404);
}

TEST_F(CatalogServiceTest, ETagsAndSnapshotModes) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "t");
  auto first = Call("GET", "/v1/namespaces/n/tables/t");
  std::string etag;
  for (const auto& [name, value] : first.headers) {
    if (name == "ETag") etag = value;
  }
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables/t", "", {{"if-none-match", etag}}).status, 304);
  auto refs =
      Call("GET", "/v1/namespaces/n/tables/t?snapshots=refs", "", {{"if-none-match", etag}});
  EXPECT_EQ(refs.status, 200) << "snapshots=refs has its own ETag";
  EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables/t?snapshots=some").status, 400);
  ASSERT_EQ(
      Call("POST", "/v1/namespaces/n/tables/t",
           R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]})")
          .status,
      200);
  EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables/t", "", {{"if-none-match", etag}}).status, 200);
}

// `snapshots=refs` is built once per metadata file and kept with the cached
// metadata: every call returns the same bytes, which are the referenced
// snapshots only, written as a fresh serialization would write them.
TEST_F(CatalogServiceTest, RefsSnapshotModeIsTheFilteredMetadataEveryTime) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "t");
  std::string updates;
  for (int i = 1; i <= 5; ++i) {
    updates += StrCat(i > 1 ? "," : "", R"({"action":"add-snapshot","snapshot":{"snapshot-id":)", i,
                      R"(,"sequence-number":)", i, R"(,"timestamp-ms":)", 1700000000000 + i,
                      R"(,"manifest-list":"file:///m/)", i,
                      R"(.avro","summary":{"operation":"append"}}})");
  }
  updates += R"(,{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":5})";
  updates += R"(,{"action":"set-snapshot-ref","ref-name":"v1","type":"tag","snapshot-id":2})";
  auto committed = Call("POST", "/v1/namespaces/n/tables/t",
                        R"({"requirements":[],"updates":[)" + updates + "]}");
  ASSERT_EQ(committed.status, 200) << committed.body;

  auto table = catalog_->LoadTable({{"n"}, "t"});
  ASSERT_TRUE(table);
  const rest::TableConfig no_storage;
  const std::string expected = rest::WriteLoadTable(
      table->metadata_location,
      spec::TableMetadataToJson(spec::WithReferencedSnapshotsOnly(*table->metadata)), &no_storage);
  for (int i = 0; i < 3; ++i) {
    auto refs = Call("GET", "/v1/namespaces/n/tables/t?snapshots=refs");
    ASSERT_EQ(refs.status, 200);
    EXPECT_EQ(refs.body, expected);
  }
  auto snapshot_ids = [&](const std::string& target) {
    auto response = Call("GET", target);
    auto metadata = json::GetRequired(Body(response), "metadata");
    EXPECT_TRUE(metadata);
    auto parsed = spec::TableMetadataFromJson(json::Minify(*metadata));
    EXPECT_TRUE(parsed);
    std::vector<int64_t> ids;
    for (const auto& snapshot : (*parsed)->snapshots) ids.push_back(snapshot->snapshot_id);
    return ids;
  };
  EXPECT_EQ(snapshot_ids("/v1/namespaces/n/tables/t?snapshots=refs"), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(snapshot_ids("/v1/namespaces/n/tables/t").size(), 5u);
}

TEST_F(CatalogServiceTest, RenameRegisterMetricsDropAndTransactions) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "t");
  CreateTable("n", "u");
  auto no_dest_ns = Call(
      "POST", "/v1/tables/rename",
      R"({"source":{"namespace":["n"],"name":"t"},"destination":{"namespace":["x"],"name":"t"}})");
  EXPECT_EQ(ErrorType(no_dest_ns), "NoSuchNamespaceException");
  auto no_source = Call(
      "POST", "/v1/tables/rename",
      R"({"source":{"namespace":["n"],"name":"zz"},"destination":{"namespace":["n"],"name":"y"}})");
  EXPECT_EQ(ErrorType(no_source), "NoSuchTableException");
  EXPECT_EQ(
      Call(
          "POST", "/v1/tables/rename",
          R"({"source":{"namespace":["n"],"name":"t"},"destination":{"namespace":["n"],"name":"u"}})")
          .status,
      409);
  EXPECT_EQ(
      Call(
          "POST", "/v1/tables/rename",
          R"({"source":{"namespace":["n"],"name":"t"},"destination":{"namespace":["n"],"name":"t2"}})")
          .status,
      204);

  EXPECT_EQ(Call("POST", "/v1/namespaces/n/tables/t2/metrics",
                 R"({"report-type":"commit-report","table-name":"n.t2"})")
                .status,
            204);
  EXPECT_EQ(
      Call("POST", "/v1/namespaces/n/tables/zz/metrics", R"({"report-type":"scan-report"})").status,
      404);

  // Registered once dropped: while a table owns them, its files are no other's.
  CreateTable("n", "orig");
  std::string location =
      *json::GetString(Body(Call("GET", "/v1/namespaces/n/tables/orig")), "metadata-location");
  EXPECT_EQ(Call("POST", "/v1/namespaces/n/register",
                 R"({"name":"copy","metadata-location":")" + location + R"("})")
                .status,
            403);
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/n/tables/orig").status, 204);
  EXPECT_EQ(Call("POST", "/v1/namespaces/n/register",
                 R"({"name":"copy","metadata-location":")" + location + R"("})")
                .status,
            200);

  auto transaction = Call("POST", "/v1/transactions/commit", R"({"table-changes":[
      {"identifier":{"namespace":["n"],"name":"t2"},"requirements":[],
       "updates":[{"action":"set-properties","updates":{"tx":"1"}}]},
      {"identifier":{"namespace":["n"],"name":"u"},"requirements":[{"type":"assert-table-uuid","uuid":"00000000-0000-0000-0000-000000000000"}],
       "updates":[{"action":"set-properties","updates":{"tx":"1"}}]}]})");
  EXPECT_EQ(transaction.status, 409);
  EXPECT_EQ(catalog_->LoadTable({{"n"}, "t2"})->metadata->properties.count("tx"), 0u);

  EXPECT_EQ(Call("DELETE", "/v1/namespaces/n/tables/u?purgeRequested=True").status, 204);
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/n/tables/u").status, 404);
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/n/tables/t2?purgeRequested=maybe").status, 400);
}

// Regression: a registered metadata file with "location" twice was taken
// (skade read and claimed the first, its own directory), and loadTable handed
// it out as it was: clients, which read the last, wrote into another table's.
TEST_F(CatalogServiceTest, RegisterRefusesAMetadataFileWithAKeyTwice) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "source");
  CreateTable("n", "victim");
  const std::string text = MetadataFor("dk", "6b1d5ba4-3c2f-4a4e-9d51-0f3c1f6a1b01");
  const std::string twice = StrCat(text.substr(0, text.size() - 1), R"(,"location":"file://)",
                                   dir_.path(), R"(/n/victim"})");
  auto refused = Register("dk", WriteMetadataFile("dk", "00001-twice.metadata.json", twice));
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(ErrorType(refused), "BadRequestException");
  EXPECT_NE(refused.body.find(R"(key \"location\" appears twice)"), std::string::npos)
      << refused.body;

  // At any depth: here in the schema.
  std::string nested = text;
  const size_t schema = nested.find(R"("type":"struct",)");
  ASSERT_NE(schema, std::string::npos) << nested;
  nested.insert(schema, R"("type":"struct",)");
  auto also_refused = Register("dk", WriteMetadataFile("dk", "00002-nested.metadata.json", nested));
  EXPECT_EQ(also_refused.status, 400) << also_refused.body;
  EXPECT_NE(also_refused.body.find(R"(key \"type\" appears twice)"), std::string::npos)
      << also_refused.body;
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/dk").status, 404);

  EXPECT_EQ(Register("dk", WriteMetadataFile("dk", "00003-once.metadata.json", text)).status, 200);
}

// Regression: a gzip metadata file of 64 KB that inflated to 64 MiB left the
// thread that parsed it holding ~900 MB, for good (its parser's buffers).
TEST_F(CatalogServiceTest, RegisteringALargeMetadataFileKeepsNoParserMemory) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "source");
  std::string text = MetadataFor("big", "6b1d5ba4-3c2f-4a4e-9d51-0f3c1f6a1b02");
  // Unreadable as metadata (nothing of it is cached), after a parse.
  const size_t field = text.find(R"("last-column-id")");
  ASSERT_NE(field, std::string::npos);
  text.replace(field, 16, R"("last-column-ix")");
  text.pop_back();
  text += R"(,"x":[0)";
  while (text.size() < (8u << 20)) text += ",0";
  text += "]}";
  const std::string location = WriteMetadataFile("big", "00001-big.gz.metadata.json", Gzip(text));
  text = std::string();

  const size_t before = HeapInUse();
  auto refused = Register("big", location);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("last-column-id"), std::string::npos) << refused.body;
  EXPECT_LT(HeapInUse(), before + (16u << 20));
}

TEST_F(CatalogServiceTest, StageCreateReturnsMetadataWithoutALocation) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  auto staged = Call("POST", "/v1/namespaces/n/tables",
                     R"({"name":"s","stage-create":true,"schema":)" + std::string(kSchema) + "}");
  ASSERT_EQ(staged.status, 200);
  auto body = Body(staged);
  EXPECT_FALSE(json::Has(body, "metadata-location"));
  auto metadata = json::GetObject(body, "metadata");
  EXPECT_TRUE(json::GetString(*metadata, "table-uuid"));
  EXPECT_TRUE(json::GetString(*metadata, "location"));
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/s").status, 404);
}

// Table commits a hostile client may send (review findings): each is a
// 400 or 409 that leaves the table as it was and readable, never a hang.
TEST_F(CatalogServiceTest, HostileCommitsAreRefusedOrBounded) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  CreateTable("n", "t");
  auto commit = [&](const std::string& updates, const std::string& requirements = "[]") {
    return Call("POST", "/v1/namespaces/n/tables/t",
                StrCat(R"({"requirements":)", requirements, R"(,"updates":)", updates, "}"));
  };
  auto snapshot = [](int64_t id, std::optional<int64_t> parent, int64_t sequence,
                     const std::string& operation = "append") {
    return StrCat(R"({"action":"add-snapshot","snapshot":{"snapshot-id":)", id,
                  parent ? StrCat(R"(,"parent-snapshot-id":)", *parent) : "",
                  R"(,"sequence-number":)", sequence,
                  R"(,"timestamp-ms":1796515200000,"manifest-list":"/x/snap-)", id,
                  R"(.avro","summary":{"operation":")", operation, R"("},"schema-id":0}})");
  };
  auto set_main = [](int64_t id) {
    return StrCat(R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch",)",
                  R"("snapshot-id":)", id, "}");
  };
  const std::string before = catalog_->LoadTable({{"n"}, "t"})->metadata_location;
  // -1 is a metadata file's "no snapshot"; a snapshot its own parent; an
  // operation outside the spec's four.
  EXPECT_EQ(commit(StrCat("[", snapshot(-1, std::nullopt, 1), ",", set_main(-1), "]")).status, 400);
  EXPECT_EQ(commit(StrCat("[", snapshot(5, 5, 1), "]")).status, 400);
  EXPECT_EQ(commit(StrCat("[", snapshot(5, std::nullopt, 1, "frobnicate"), "]")).status, 400);
  // A writer whose clock runs an hour fast: later commits would log earlier
  // times, and Iceberg Java cannot load a log that goes back.
  const std::string fast_clock = StrCat(
      R"([{"action":"add-snapshot","snapshot":{"snapshot-id":6,"sequence-number":1,)",
      R"("timestamp-ms":)", NowMillis() + 3'600'000,
      R"(,"manifest-list":"/x/snap-6.avro","summary":{"operation":"append"},"schema-id":0}}])");
  auto ahead = commit(fast_clock);
  EXPECT_EQ(ahead.status, 400) << ahead.body;
  EXPECT_NE(ahead.body.find("check the writer's clock"), std::string::npos) << ahead.body;
  // Too many schemas, or updates, for one commit.
  std::string schemas = "[";
  for (int i = 0; i <= 100; ++i) {
    StrAppend(&schemas, i ? "," : "", R"({"action":"add-schema","schema":{"type":"struct",)",
              R"("fields":[{"id":)", 100 + i, R"(,"name":"c","type":"int","required":false}]}})");
  }
  auto too_many = commit(schemas + "]");
  EXPECT_EQ(too_many.status, 400) << too_many.body;
  EXPECT_NE(too_many.body.find("at most 100 schemas"), std::string::npos) << too_many.body;
  EXPECT_EQ(catalog_->LoadTable({{"n"}, "t"})->metadata_location, before);

  // Parents that form a cycle (each names one added later): a stale append
  // on top is not rebased by walking it forever; it conflicts.
  ASSERT_EQ(
      commit(StrCat("[", snapshot(1, 2, 1), ",", snapshot(2, 1, 2), ",", set_main(2), "]")).status,
      200);
  auto stale = commit(StrCat("[", snapshot(3, 999, 3), ",", set_main(3), "]"),
                      R"([{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":999}])");
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_NE(stale.body.find("no longer an ancestor"), std::string::npos) << stale.body;
  EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables/t").status, 200);

  // The REST spec marks a create's spec-id read-only: it may be left out.
  auto created = Call("POST", "/v1/namespaces/n/tables",
                      StrCat(R"({"name":"unnumbered","schema":)", kSchema,
                             R"(,"partition-spec":{"fields":[{"name":"id_bucket",)",
                             R"("transform":"bucket[16]","source-id":1}]}})"));
  EXPECT_EQ(created.status, 200) << created.body;
}

}  // namespace
}  // namespace skade::rest
