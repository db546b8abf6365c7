// Server-side scan planning over REST (planTableScan, fetchPlanningResult,
// cancelPlanning, fetchScanTasks) on a real EmbeddedCatalog whose table has
// real manifests: the answer is the planner's plan (scan::PlanTableScan on
// the same table), in full for a small plan and as plan tasks for a large
// one; hostile requests are 4xx with a message, never 5xx.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "avro/manifest_bomb.h"
#include "rest/rest_service_fixture.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/rest/rest_messages.h"
#include "skade/scan/table_scan.h"
#include "skade/table/fast_append.h"
#include "skade/table/row_delta.h"
#include "skade/table/table.h"
#include "testing/gate.h"
#include "testing/matchers.h"

namespace skade::rest {
namespace {

using spec::Literal;

// id long (required), p int (identity-partitioned), name string.
constexpr char kCreateBody[] = R"({"name":"t","schema":{"type":"struct","schema-id":0,"fields":[
  {"id":1,"name":"id","required":true,"type":"long"},
  {"id":2,"name":"p","required":false,"type":"int"},
  {"id":3,"name":"name","required":false,"type":"string"}]},
  "partition-spec":{"spec-id":0,"fields":[
    {"name":"p","transform":"identity","source-id":2,"field-id":1000}]},
  "properties":{"format-version":"2"}})";

class ScanPlanningRoutesTest : public testing::RestServiceTest {
 protected:
  void SetUp() override { Open(1000); }

  void Open(size_t tasks_per_response, size_t max_plan_bytes = ScanPlanStoreOptions{}.max_bytes) {
    ScanPlanningOptions planning;
    planning.manifest_cache = cache_;
    planning.tasks_per_response = tasks_per_response;
    planning.store.max_bytes = max_plan_bytes;
    OpenService({}, {}, nullptr, {}, planning);
    if (HasFatalFailure()) return;
    if (catalog_->NamespaceExists({"n"}).value_or(false)) return;
    ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    auto created = Call("POST", "/v1/namespaces/n/tables", kCreateBody);
    ASSERT_EQ(created.status, 200) << created.body;
  }

  table::Table Load() {
    auto loaded = table::Table::Load(catalog_, catalog_->file_io_ptr(), kTable);
    EXPECT_TRUE(loaded) << loaded.error().ToString();
    return *loaded;
  }

  // A data file (never read: planning needs only its manifest entry) in
  // partition p with ids [low, high].
  spec::DataFile DataFile(const table::Table& table, int32_t p, int64_t low, int64_t high) {
    spec::DataFile file;
    file.file_path = StrCat(table.metadata().location, "/data/p=", p, "/f", files_++, ".parquet");
    file.partition = {Literal::Int(p)};
    file.record_count = high - low + 1;
    file.file_size_in_bytes = 100 + files_;
    file.value_counts = {{1, file.record_count}};
    file.null_value_counts = {{1, 0}};
    file.lower_bounds = {{1, Literal::Long(low).ToBytes()}};
    file.upper_bounds = {{1, Literal::Long(high).ToBytes()}};
    return file;
  }

  // Appends `count` files: partition i % 3, ids [100 i, 100 i + 99].
  void AppendFiles(int count) {
    table::Table table = Load();
    table::FastAppend append(table);
    for (int i = 0; i < count; ++i)
      append.AppendFile(DataFile(table, i % 3, 100 * i, 100 * i + 99));
    ASSERT_THAT(append.Commit(), testing::IsOk());
  }

  // Adds a position delete file to partition `p`; returns its path.
  std::string AddPositionDeletes(int32_t p) {
    table::Table table = Load();
    spec::DataFile deletes;
    deletes.content = spec::DataFileContent::kPositionDeletes;
    deletes.file_path =
        StrCat(table.metadata().location, "/data/p=", p, "/deletes", files_++, ".parquet");
    deletes.partition = {Literal::Int(p)};
    deletes.record_count = 1;
    deletes.file_size_in_bytes = 10;
    table::RowDelta delta(table);
    delta.AddDeletes(deletes);
    EXPECT_THAT(delta.Commit(), testing::IsOk());
    return deletes.file_path;
  }

  HttpResponse Plan(const std::string& body) {
    return Call("POST", "/v1/namespaces/n/tables/t/plan", body);
  }

  // Writes, at `list_location`, a manifest list of `snapshot`'s naming one
  // manifest: `manifest` moved to `manifest_path`.
  void WriteListNaming(const spec::Snapshot& snapshot, spec::ManifestFile manifest,
                       const std::string& manifest_path, const std::string& list_location) {
    avro::ManifestListWriterOptions options;
    options.snapshot_id = snapshot.snapshot_id;
    options.sequence_number = snapshot.sequence_number;
    auto writer = avro::ManifestListWriter::Make(options);
    ASSERT_THAT(writer, testing::IsOk());
    manifest.manifest_path = manifest_path;
    ASSERT_THAT((*writer)->Add(manifest), testing::IsOk());
    ASSERT_THAT((*writer)->WriteTo(catalog_->file_io(), list_location, true), testing::IsOk());
  }

  // Commits a snapshot (as any client may) whose manifest list is
  // `manifest_list`, and plans it.
  HttpResponse PlanSnapshotListedIn(const std::string& manifest_list) {
    const int64_t id = 9000 + ++added_snapshots_;
    const std::string commit = StrCat(
        R"({"requirements":[],"updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":)", id,
        R"(,"sequence-number":)", Load().metadata().last_sequence_number + 1,
        R"(,"timestamp-ms":1,"summary":{"operation":"append"},"schema-id":0,"manifest-list":")",
        manifest_list, R"("}}]})");
    auto committed = Call("POST", "/v1/namespaces/n/tables/t", commit);
    EXPECT_EQ(committed.status, 200) << committed.body;
    return Plan(StrCat(R"({"snapshot-id":)", id, "}"));
  }

  // The planner's own plan of the same scan.
  scan::ScanPlan Direct(const std::string& body) {
    auto parsed = ParsePlanTableScan(body);
    EXPECT_TRUE(parsed) << parsed.error().ToString();
    auto plan =
        scan::PlanTableScan(*catalog_, kTable, catalog_->file_io(), parsed->options, cache_.get());
    EXPECT_TRUE(plan) << plan.error().ToString();
    return std::move(*plan);
  }

  // (data file path, sorted delete file paths) of every task of a ScanTasks.
  using TaskSet = std::set<std::pair<std::string, std::vector<std::string>>>;
  TaskSet TasksOf(json::Object scan_tasks) {
    std::vector<std::string> delete_paths;
    if (auto deletes = json::Find(scan_tasks, "delete-files")) {
      const json::Array files = *json::AsArray(*deletes, "delete-files");
      for (auto file : files) {
        delete_paths.push_back(*json::GetString(*json::AsObject(file, "d"), "file-path"));
      }
    }
    TaskSet out;
    if (auto tasks = json::Find(scan_tasks, "file-scan-tasks")) {
      const json::Array elements = *json::AsArray(*tasks, "file-scan-tasks");
      for (auto element : elements) {
        auto task = *json::AsObject(element, "task");
        std::string path = *json::GetString(*json::GetObject(task, "data-file"), "file-path");
        std::vector<std::string> deletes;
        if (json::Has(task, "delete-file-references")) {
          const std::vector<int32_t> references =
              *json::GetInt32List(task, "delete-file-references");
          for (int32_t index : references) {
            EXPECT_LT(static_cast<size_t>(index), delete_paths.size());
            if (static_cast<size_t>(index) < delete_paths.size()) {
              deletes.push_back(delete_paths[index]);
            }
          }
        }
        std::sort(deletes.begin(), deletes.end());
        EXPECT_TRUE(out.emplace(path, deletes).second) << "task twice: " << path;
      }
    }
    return out;
  }

  TaskSet TasksOf(const scan::ScanPlan& plan) {
    TaskSet out;
    for (const auto& task : plan.tasks) {
      std::vector<std::string> deletes;
      for (const auto& scan_delete : task.deletes) deletes.push_back(scan_delete.file.file_path);
      std::sort(deletes.begin(), deletes.end());
      out.emplace(task.data_file.file_path, deletes);
    }
    return out;
  }

  // A plan the server holds (of more tasks than a page): its id, and the
  // body that fetches its first page.
  struct HeldPlan {
    std::string id;
    std::string fetch_body;
  };
  HeldPlan HoldPlan() {
    auto object = Body(Plan("{}"));
    return {
        std::string(*json::GetString(object, "plan-id")),
        StrCat(R"({"plan-task":")", json::GetStringList(object, "plan-tasks")->front(), R"("})")};
  }

  // Listing, fetching and cancelling `plan` under table `table` find nothing.
  void ExpectPlanGone(const std::string& table, const HeldPlan& plan) {
    const std::string routes = StrCat("/v1/namespaces/n/tables/", table);
    ExpectError(Call("GET", routes + "/plan/" + plan.id), 404, "NoSuchPlanIdException");
    ExpectError(Call("POST", routes + "/tasks", plan.fetch_body), 404, "NoSuchPlanTaskException");
    ExpectError(Call("DELETE", routes + "/plan/" + plan.id), 404, "NoSuchPlanIdException");
  }

  void ExpectError(const HttpResponse& response, int status, std::string_view type,
                   std::string_view message_part = {}) {
    EXPECT_EQ(response.status, status) << response.body;
    EXPECT_EQ(ErrorType(response), type) << response.body;
    if (!message_part.empty()) {
      EXPECT_NE(response.body.find(message_part), std::string::npos) << response.body;
    }
  }

  const spec::TableIdentifier kTable{{"n"}, "t"};
  std::shared_ptr<cache::ManifestCache> cache_ = std::make_shared<cache::ManifestCache>();
  int files_ = 0;
  int added_snapshots_ = 0;
};

TEST_F(ScanPlanningRoutesTest, ATableWithoutSnapshotsHasNoTasks) {
  for (const char* body : {"", "{}"}) {
    auto response = Plan(body);
    ASSERT_EQ(response.status, 200) << response.body;
    auto object = Body(response);
    EXPECT_EQ(*json::GetString(object, "status"), "completed");
    EXPECT_TRUE(TasksOf(object).empty());
  }
}

TEST_F(ScanPlanningRoutesTest, ASmallPlanIsAnsweredInFullAsThePlannerPlansIt) {
  AppendFiles(9);
  const std::string deletes = AddPositionDeletes(1);
  for (const std::string& body :
       {std::string("{}"), std::string(R"({"filter":{"type":"eq","term":"p","value":1}})"),
        std::string(R"({"filter":{"type":"lt","term":"id","value":250},"select":["id"]})"),
        std::string(
            R"({"filter":{"type":"and","left":{"type":"gt-eq","term":"ID","value":300},)"
            R"("right":{"type":"not-eq","term":"p","value":0}},"case-sensitive":false})")}) {
    auto response = Plan(body);
    ASSERT_EQ(response.status, 200) << body << "\n" << response.body;
    auto object = Body(response);
    EXPECT_EQ(*json::GetString(object, "status"), "completed");
    // The spec's CompletedPlanningWithIDResult requires a plan-id; nothing
    // is held for it, so there is nothing to fetch or cancel.
    const std::string plan_id = *json::GetString(object, "plan-id");
    EXPECT_EQ(plan_id.size(), 32u);
    EXPECT_EQ(Call("GET", "/v1/namespaces/n/tables/t/plan/" + plan_id).status, 404);
    EXPECT_EQ(Call("DELETE", "/v1/namespaces/n/tables/t/plan/" + plan_id).status, 404);
    const TaskSet got = TasksOf(object);
    EXPECT_EQ(got, TasksOf(Direct(body))) << body;
    EXPECT_FALSE(got.empty()) << body;
    for (const auto& [path, task_deletes] : got) {
      const bool in_p1 = path.find("/p=1/") != std::string::npos;
      EXPECT_EQ(task_deletes,
                in_p1 ? std::vector<std::string>{deletes} : std::vector<std::string>{})
          << path;
    }
  }
  // The filter pruned: p = 1 is three of the nine files.
  EXPECT_EQ(TasksOf(Body(Plan(R"({"filter":{"type":"eq","term":"p","value":1}})"))).size(), 3u);
}

TEST_F(ScanPlanningRoutesTest, StatsFieldsSelectTheMetricsSent) {
  AppendFiles(1);
  auto plain = Body(Plan("{}"));
  auto task = *json::AsObject((*json::GetArray(plain, "file-scan-tasks")).at(0), "task");
  EXPECT_FALSE(json::Has(*json::GetObject(task, "data-file"), "lower-bounds"));

  auto with_stats = Body(Plan(R"({"stats-fields":["id"]})"));
  task = *json::AsObject((*json::GetArray(with_stats, "file-scan-tasks")).at(0), "task");
  auto file = *json::GetObject(task, "data-file");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "lower-bounds")), R"({"keys":[1],"values":[0]})");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "upper-bounds")),
            R"({"keys":[1],"values":[99]})");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "partition")), "[0]");
  EXPECT_TRUE(json::Has(task, "residual-filter"));
}

// start-snapshot-id (exclusive) and end-snapshot-id (inclusive): the files
// the appends in between added, as the planner's incremental append scan.
TEST_F(ScanPlanningRoutesTest, AnIncrementalScanPlansTheAppendsOfTheRange) {
  AppendFiles(3);  // f0 (p 0), f1 (p 1), f2 (p 2)
  const int64_t s1 = *Load().metadata().current_snapshot_id;
  AppendFiles(2);  // f3 (p 0), f4 (p 1); ids restart at 0 per call
  const int64_t s2 = *Load().metadata().current_snapshot_id;
  AddPositionDeletes(0);  // a delete snapshot: skipped
  AppendFiles(1);         // f6 (p 0)
  const int64_t s4 = *Load().metadata().current_snapshot_id;
  auto range = [](int64_t start, int64_t end, std::string_view more = {}) {
    return StrCat(R"({"start-snapshot-id":)", start, R"(,"end-snapshot-id":)", end, more, "}");
  };
  auto names = [](const TaskSet& tasks) {
    std::set<std::string> out;
    for (const auto& [path, deletes] : tasks) {
      EXPECT_TRUE(deletes.empty()) << path;
      out.insert(path.substr(path.rfind('/') + 1));
    }
    return out;
  };
  using Names = std::set<std::string>;
  for (const auto& [body, expected] : std::vector<std::pair<std::string, Names>>{
           {range(s1, s4), {"f3.parquet", "f4.parquet", "f6.parquet"}},
           {range(s2, s4), {"f6.parquet"}},
           {range(s1, s2), {"f3.parquet", "f4.parquet"}},
           {range(s4, s4), {}},
           {range(s1, s4, R"(,"filter":{"type":"eq","term":"p","value":0})"),
            {"f3.parquet", "f6.parquet"}},
           {range(s1, s4, R"(,"filter":{"type":"gt-eq","term":"id","value":100},"select":["id"])"),
            {"f4.parquet"}},  // ids: f3 [0, 99], f4 [100, 199], f6 [0, 99]
       }) {
    auto response = Plan(body);
    ASSERT_EQ(response.status, 200) << body << "\n" << response.body;
    const TaskSet got = TasksOf(Body(response));
    EXPECT_EQ(names(got), expected) << body;
    EXPECT_EQ(got, TasksOf(Direct(body))) << body;
  }
  ExpectError(Plan(range(s4, s1)), 400, "BadRequestException",
              StrCat("start snapshot ", s4, " is not an ancestor of end snapshot ", s1));
}

// use-snapshot-schema with snapshot-id: the snapshot's schema (true) or the
// table's current one (false, the spec's default) binds select, filter and
// stats-fields, and names the residuals.
TEST_F(ScanPlanningRoutesTest, UseSnapshotSchemaChoosesTheSchemaNamesBindTo) {
  AppendFiles(2);
  const int64_t s1 = *Load().metadata().current_snapshot_id;
  // Rename name -> label and add extra (id 4): schema 1.
  auto fields = Load().metadata().Schema()->fields();
  fields[2].name = "label";
  fields.push_back({4, "extra", spec::Type::Long(), false, {}, {}, {}});
  catalog::CommitTableRequest evolve{kTable, {}, {}};
  evolve.updates.push_back(spec::AddSchema{std::make_shared<const spec::Schema>(1, fields), 4});
  evolve.updates.push_back(spec::SetCurrentSchema{-1});
  ASSERT_THAT(catalog_->CommitTable(evolve), testing::IsOk());

  auto at = [&](bool use_snapshot_schema, std::string_view more) {
    return StrCat(R"({"snapshot-id":)", s1, R"(,"use-snapshot-schema":)",
                  use_snapshot_schema ? "true" : "false", more, "}");
  };
  const std::string old_names = R"(,"select":["id","name"],"stats-fields":["name"],)"
                                R"("filter":{"type":"not-null","term":"name"})";
  const std::string new_names = R"(,"select":["id","label","extra"],"stats-fields":["label"],)"
                                R"("filter":{"type":"is-null","term":"extra"})";
  for (const auto& [body, schema_id, residual_term] :
       std::vector<std::tuple<std::string, int, std::string>>{
           {at(true, old_names), 0, "\"name\""}, {at(false, new_names), 1, "\"extra\""}}) {
    auto response = Plan(body);
    ASSERT_EQ(response.status, 200) << body << "\n" << response.body;
    const TaskSet got = TasksOf(Body(response));
    EXPECT_EQ(got.size(), 2u) << body;
    EXPECT_EQ(got, TasksOf(Direct(body))) << body;
    EXPECT_EQ(Direct(body).schema->schema_id(), schema_id);
    EXPECT_NE(response.body.find(residual_term), std::string::npos) << response.body;
  }
  // Each schema's names are unknown in the other.
  ExpectError(Plan(at(false, old_names)), 400, "BadRequestException", "name");
  ExpectError(Plan(at(true, new_names)), 400, "BadRequestException", "label");
  // Absent is the spec's default, false: the table's schema.
  auto absent = Plan(StrCat(R"({"snapshot-id":)", s1, R"(,"select":["label","extra"]})"));
  EXPECT_EQ(absent.status, 200) << absent.body;
}

TEST_F(ScanPlanningRoutesTest, ALargePlanIsPagedOutThroughPlanTasks) {
  Open(2);
  AppendFiles(7);
  AddPositionDeletes(2);
  auto response = Plan("{}");
  ASSERT_EQ(response.status, 200) << response.body;
  auto object = Body(response);
  EXPECT_EQ(*json::GetString(object, "status"), "completed");
  const std::string plan_id = *json::GetString(object, "plan-id");
  EXPECT_FALSE(json::Has(object, "file-scan-tasks"));
  const std::vector<std::string> plan_tasks = *json::GetStringList(object, "plan-tasks");
  ASSERT_EQ(plan_tasks.size(), 4u);  // 7 tasks, 2 per page

  const std::string plan_path = "/v1/namespaces/n/tables/t/plan/" + plan_id;
  auto pending = Call("GET", plan_path);
  ASSERT_EQ(pending.status, 200) << pending.body;
  EXPECT_EQ(*json::GetStringList(Body(pending), "plan-tasks"), plan_tasks);

  TaskSet all;
  for (size_t i = 0; i < plan_tasks.size(); ++i) {
    auto page = Call("POST", "/v1/namespaces/n/tables/t/tasks",
                     StrCat(R"({"plan-task":")", plan_tasks[i], R"("})"));
    ASSERT_EQ(page.status, 200) << page.body;
    TaskSet tasks = TasksOf(Body(page));
    EXPECT_EQ(tasks.size(), i + 1 < plan_tasks.size() ? 2u : 1u);
    all.insert(tasks.begin(), tasks.end());
    if (i == 0) {
      auto rest = Call("GET", plan_path);
      EXPECT_EQ(*json::GetStringList(Body(rest), "plan-tasks"),
                std::vector<std::string>(plan_tasks.begin() + 1, plan_tasks.end()));
    }
  }
  EXPECT_EQ(all, TasksOf(Direct("{}")));
  // Every plan task fetched: the server let the plan go.
  ExpectError(Call("GET", plan_path), 404, "NoSuchPlanIdException");
  ExpectError(Call("POST", "/v1/namespaces/n/tables/t/tasks",
                   StrCat(R"({"plan-task":")", plan_tasks[0], R"("})")),
              404, "NoSuchPlanTaskException");
}

TEST_F(ScanPlanningRoutesTest, CancelledAndForeignPlansAreNotFound) {
  Open(1);
  AppendFiles(3);
  ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables",
                 std::string(R"({"name":"other","schema":)") + testing::kSchema + "}")
                .status,
            200);
  const HeldPlan plan = HoldPlan();
  const std::string& plan_id = plan.id;
  const std::string& fetch_body = plan.fetch_body;

  // Another table's routes do not reach it.
  ExpectPlanGone("other", plan);

  auto cancelled = Call("DELETE", "/v1/namespaces/n/tables/t/plan/" + plan_id);
  EXPECT_EQ(cancelled.status, 204) << cancelled.body;
  ExpectError(Call("DELETE", "/v1/namespaces/n/tables/t/plan/" + plan_id), 404,
              "NoSuchPlanIdException");
  ExpectError(Call("POST", "/v1/namespaces/n/tables/t/tasks", fetch_body), 404,
              "NoSuchPlanTaskException");
  ExpectError(Call("GET", "/v1/namespaces/n/tables/t/plan/made-up"), 404, "NoSuchPlanIdException");
}

// Review finding: a held plan outlived a drop and was served under a new
// table of the same name, listing the purged table's files.
TEST_F(ScanPlanningRoutesTest, APlanDoesNotOutliveItsTable) {
  Open(1);
  AppendFiles(3);
  const HeldPlan plan = HoldPlan();
  ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables/t/tasks", plan.fetch_body).status, 200);

  ASSERT_EQ(Call("DELETE", "/v1/namespaces/n/tables/t?purgeRequested=true").status, 204);
  ExpectError(Call("GET", "/v1/namespaces/n/tables/t/plan/" + plan.id), 404,
              "NoSuchTableException");
  ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables", kCreateBody).status, 200);
  ExpectPlanGone("t", plan);
}

TEST_F(ScanPlanningRoutesTest, HostileRequestsAreClientErrors) {
  AppendFiles(2);
  const int64_t current = *Load().metadata().current_snapshot_id;
  std::string many_names = R"({"select":[)";
  for (size_t i = 0; i <= kMaxScanFieldNames; ++i) StrAppend(&many_names, i ? "," : "", "\"id\"");
  many_names += "]}";
  const std::vector<std::tuple<std::string, int, std::string_view, std::string_view>> cases = {
      {"not json", 400, "BadRequestException", "malformed JSON"},
      {StrCat(R"({"snapshot-id":)", current, R"(,"snapshot-id":1})"), 400, "BadRequestException",
       "appears twice"},
      {"[]", 400, "BadRequestException", ""},
      {R"({"filter":{"type":"eq","term":"id"}})", 400, "BadRequestException", "filter"},
      {R"({"filter":{"type":"frobnicate","term":"id","value":1}})", 400, "BadRequestException", ""},
      {R"({"filter":{"type":"eq","term":"nope","value":1}})", 400, "BadRequestException", "nope"},
      {R"({"filter":{"type":"eq","term":"id","value":"x"}})", 400, "BadRequestException", ""},
      {R"({"select":["nope"]})", 400, "BadRequestException", "nope"},
      {R"({"select":"id"})", 400, "BadRequestException", "select"},
      {many_names, 400, "BadRequestException", "more than"},
      {R"({"stats-fields":["nope"]})", 400, "BadRequestException", "stats-fields"},
      {R"({"snapshot-id":-1})", 400, "BadRequestException", "snapshot-id"},
      {R"({"snapshot-id":"1"})", 400, "BadRequestException", "snapshot-id"},
      {R"({"snapshot-id":1234567})", 404, "NotFoundException", ""},
      {R"({"case-sensitive":"yes"})", 400, "BadRequestException", "case-sensitive"},
      {R"({"start-snapshot-id":1})", 400, "BadRequestException", "end-snapshot-id"},
      {StrCat(R"({"start-snapshot-id":1,"end-snapshot-id":)", current, "}"), 400,
       "BadRequestException", "not an ancestor"},
      {StrCat(R"({"end-snapshot-id":)", current, "}"), 400, "BadRequestException",
       "start-snapshot-id"},
      {R"({"start-snapshot-id":1,"end-snapshot-id":1234567})", 404, "NotFoundException", ""},
      {R"({"use-snapshot-schema":"yes"})", 400, "BadRequestException", "use-snapshot-schema"},
      {R"({"min-rows-requested":"ten"})", 400, "BadRequestException", "min-rows-requested"},
      {StrCat(R"({"snapshot-id":)", current, R"(,"start-snapshot-id":1,"end-snapshot-id":2})"), 400,
       "BadRequestException", ""},
  };
  for (const auto& [body, status, type, message] : cases) {
    SCOPED_TRACE(body.substr(0, 200));
    ExpectError(Plan(body), status, type, message);
  }
  // Deeply nested filters are refused by the parser, not by the stack.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += R"({"type":"not","child":)";
  deep += "true";
  for (int i = 0; i < 100000; ++i) deep += "}";
  auto response = Plan(StrCat(R"({"filter":)", deep, "}"));
  EXPECT_EQ(response.status, 400) << response.body.substr(0, 300);

  ExpectError(Call("POST", "/v1/namespaces/n/tables/nope/plan", "{}"), 404, "NoSuchTableException");
  ExpectError(Call("POST", "/v1/namespaces/nope/tables/t/plan", "{}"), 404, "NoSuchTableException");
  ExpectError(Call("POST", "/v1/namespaces/n/tables/t/tasks", "{}"), 400, "BadRequestException",
              "plan-task");
  ExpectError(Call("POST", "/v1/namespaces/n/tables/t/tasks", R"({"plan-task":7})"), 400,
              "BadRequestException", "plan-task");
  ExpectError(Call("POST", "/v1/namespaces/n/tables/t/tasks", R"({"plan-task":"x-0"})"), 404,
              "NoSuchPlanTaskException");
}

// Every task carries its residual filter: a filter that would make the
// answer larger than a plan may be (many files times a large filter) is a
// 400 before anything is written, not an answer thousands of times the
// request.
TEST_F(ScanPlanningRoutesTest, AnAnswerOfResidualsPastThePlanLimitIsRefused) {
  AppendFiles(3);
  ASSERT_NO_FATAL_FAILURE(Open(1000, 4096));
  std::string values;
  for (int i = 0; i < 300; ++i) StrAppend(&values, i ? "," : "", 1000000 + i);
  const std::string large =
      StrCat(R"({"filter":{"type":"not-in","term":"id","values":[)", values, "]}}");
  ExpectError(Plan(large), 400, "BadRequestException", "narrow the scan or the filter");
  auto small = Plan(R"({"filter":{"type":"not-in","term":"id","values":[1,2]}})");
  ASSERT_EQ(small.status, 200) << small.body;
  EXPECT_EQ(TasksOf(Body(small)).size(), 3u);
}

// A snapshot a client adds names its manifest list, and the list its
// manifests: planning reads neither outside the catalog's allowed locations
// nor in its store's directory, whether the file is there or not (no answer
// tells which paths exist). (The check comes before the manifest cache.)
TEST_F(ScanPlanningRoutesTest, PlanningNeverReadsFilesOutsideTheAllowedLocations) {
  AppendFiles(3);
  ASSERT_EQ(Plan("{}").status, 200);  // the table's own list and manifest are cached now
  const table::Table table = Load();
  const spec::Snapshot& current = *table.metadata().CurrentSnapshot();
  testing::TempDir outside;
  auto list_bytes = catalog_->file_io().ReadFile(current.manifest_list);
  ASSERT_THAT(list_bytes, testing::IsOk());
  auto list = avro::ReadManifestList(*list_bytes);
  ASSERT_THAT(list, testing::IsOk());
  const spec::ManifestFile& manifest = list->manifests.at(0);
  auto manifest_bytes = catalog_->file_io().ReadFile(manifest.manifest_path);
  ASSERT_THAT(manifest_bytes, testing::IsOk());
  const std::string outside_list = outside.Sub("list.avro");
  const std::string outside_manifest = outside.Sub("manifest.avro");
  std::ofstream(outside_list, std::ios::binary) << *list_bytes;
  std::ofstream(outside_manifest, std::ios::binary) << *manifest_bytes;
  // A list inside the table that names the manifest's copy outside it.
  const std::string inside_list = StrCat(table.metadata().location, "/metadata/hostile-list.avro");
  ASSERT_NO_FATAL_FAILURE(WriteListNaming(current, manifest, outside_manifest, inside_list));

  const std::vector<std::pair<std::string, int>> cases = {
      {outside_list, 403},
      {outside.Sub("missing.avro"), 403},
      {"/etc/hostname", 403},
      {StrCat(dir_.path(), "/.skade/catalog/data.mdb"), 403},
      {current.manifest_list + "/../../../../../../../../etc/hostname", 400},
      {inside_list, 403}};
  for (const auto& [manifest_list, status] : cases) {
    SCOPED_TRACE(manifest_list);
    auto planned = PlanSnapshotListedIn(manifest_list);
    EXPECT_EQ(planned.status, status) << planned.body;
  }
  // The same files as the table's own are planned as before.
  EXPECT_EQ(Plan(StrCat(R"({"snapshot-id":)", current.snapshot_id, "}")).status, 200);
}

// A file inside the table may be a link: planning reads what it leads to
// only when that is inside the allowed locations too, for a manifest list,
// a manifest, and a linked directory on the way.
TEST_F(ScanPlanningRoutesTest, PlanningDoesNotFollowLinksOutOfTheAllowedLocations) {
  AppendFiles(2);
  const table::Table table = Load();
  const spec::Snapshot& current = *table.metadata().CurrentSnapshot();
  auto list_bytes = catalog_->file_io().ReadFile(current.manifest_list);
  ASSERT_THAT(list_bytes, testing::IsOk());
  auto list = avro::ReadManifestList(*list_bytes);
  ASSERT_THAT(list, testing::IsOk());
  auto manifest_bytes = catalog_->file_io().ReadFile(list->manifests.at(0).manifest_path);
  ASSERT_THAT(manifest_bytes, testing::IsOk());
  testing::TempDir outside;
  std::ofstream(outside.Sub("list.avro"), std::ios::binary) << *list_bytes;
  std::ofstream(outside.Sub("manifest.avro"), std::ios::binary) << *manifest_bytes;

  auto local_path = [](std::string location) {
    if (location.starts_with("file://")) location.erase(0, std::string_view("file://").size());
    return location;
  };
  const std::string metadata = local_path(StrCat(table.metadata().location, "/metadata"));
  std::filesystem::create_symlink(outside.Sub("list.avro"), metadata + "/linked-list.avro");
  std::filesystem::create_directory_symlink(outside.path(), metadata + "/linked-dir");
  std::filesystem::create_symlink(outside.Sub("manifest.avro"), metadata + "/linked-manifest.avro");
  std::filesystem::create_symlink(local_path(current.manifest_list), metadata + "/alias-list.avro");
  // A list of its own (a new name, so no cache holds it) naming the linked manifest.
  ASSERT_NO_FATAL_FAILURE(WriteListNaming(current, list->manifests.at(0),
                                          metadata + "/linked-manifest.avro",
                                          metadata + "/names-linked-manifest.avro"));

  for (const char* name :
       {"linked-list.avro", "linked-dir/list.avro", "names-linked-manifest.avro"}) {
    SCOPED_TRACE(name);
    auto planned = PlanSnapshotListedIn(StrCat(metadata, "/", name));
    EXPECT_EQ(planned.status, 403) << planned.body;
    EXPECT_EQ(planned.body.find(outside.path()), std::string::npos) << planned.body;
  }
  // A link that stays inside is read as its target.
  auto aliased = PlanSnapshotListedIn(metadata + "/alias-list.avro");
  ASSERT_EQ(aliased.status, 200) << aliased.body;
  EXPECT_EQ(TasksOf(Body(aliased)).size(), 2u);
}

// A manifest's entries inherit sequence numbers (and spec and row ids) from
// the list entry that names it, and the manifest cache is shared: another
// list naming the same file with other values, planned first, must not
// change how the table's own snapshot is planned (here: its data file
// renumbered past its position deletes would lose them).
TEST_F(ScanPlanningRoutesTest, AnotherListNamingAManifestDoesNotChangeItsPlan) {
  AppendFiles(1);
  const std::string deletes = AddPositionDeletes(0);
  const table::Table table = Load();
  const spec::Snapshot& current = *table.metadata().CurrentSnapshot();
  auto list = avro::ReadManifestList(*catalog_->file_io().ReadFile(current.manifest_list));
  ASSERT_THAT(list, testing::IsOk());
  auto data = std::find_if(list->manifests.begin(), list->manifests.end(),
                           [](const auto& m) { return m.content == spec::ManifestContent::kData; });
  ASSERT_NE(data, list->manifests.end());
  spec::ManifestFile renumbered = *data;
  renumbered.sequence_number = 50;
  renumbered.min_sequence_number = 50;
  const std::string other_list = StrCat(table.metadata().location, "/metadata/renumbered.avro");
  ASSERT_NO_FATAL_FAILURE(WriteListNaming(current, renumbered, data->manifest_path, other_list));
  auto other = PlanSnapshotListedIn(other_list);
  ASSERT_EQ(other.status, 200) << other.body;
  ASSERT_EQ(TasksOf(Body(other)).size(), 1u);

  auto planned = Plan(StrCat(R"({"snapshot-id":)", current.snapshot_id, "}"));
  ASSERT_EQ(planned.status, 200) << planned.body;
  const TaskSet tasks = TasksOf(Body(planned));
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks.begin()->second, std::vector<std::string>{deletes});
}

// Review finding: a list naming one manifest a thousand times made a plan
// of a thousand times its files (gigabytes, from a 118 KB list).
TEST_F(ScanPlanningRoutesTest, AListNamingAManifestManyTimesPlansItsFilesOnce) {
  AppendFiles(3);
  const table::Table table = Load();
  const spec::Snapshot& current = *table.metadata().CurrentSnapshot();
  auto list = avro::ReadManifestList(*catalog_->file_io().ReadFile(current.manifest_list));
  ASSERT_THAT(list, testing::IsOk());
  avro::ManifestListWriterOptions options;
  options.snapshot_id = current.snapshot_id;
  options.sequence_number = current.sequence_number;
  auto writer = avro::ManifestListWriter::Make(options);
  ASSERT_THAT(writer, testing::IsOk());
  for (int i = 0; i < 50; ++i) {
    for (const auto& manifest : list->manifests)
      ASSERT_THAT((*writer)->Add(manifest), testing::IsOk());
  }
  const std::string repeated = StrCat(table.metadata().location, "/metadata/repeated.avro");
  ASSERT_THAT((*writer)->WriteTo(catalog_->file_io(), repeated, true), testing::IsOk());
  auto planned = PlanSnapshotListedIn(repeated);
  ASSERT_EQ(planned.status, 200) << planned.body;
  EXPECT_EQ(json::AsArray(*json::Find(Body(planned), "file-scan-tasks"), "tasks")->size(), 3u);
}

// Review finding: how many files a plan held was bounded only after all of
// them were in memory. Now planning stops at the plan store's bytes.
TEST_F(ScanPlanningRoutesTest, APlanThatWouldHoldTooMuchStopsWhileItIsMade) {
  AppendFiles(20);
  ASSERT_NO_FATAL_FAILURE(Open(1000, 8192));
  ExpectError(Plan("{}"), 400, "BadRequestException", "bytes one plan may hold");
  // Narrowed by a filter, it fits.
  auto narrow = Plan(R"({"filter":{"type":"eq","term":"p","value":1}})");
  ASSERT_EQ(narrow.status, 200) << narrow.body;
  EXPECT_EQ(TasksOf(Body(narrow)).size(), 7u);
}

// Holds every read while armed, until its gate opens.
class HeldReads : public io::ForwardingFileIO {
 public:
  using ForwardingFileIO::ForwardingFileIO;
  Result<std::string> ReadFile(std::string_view location) override {
    Hold();
    return ForwardingFileIO::ReadFile(location);
  }
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    Hold();
    return ForwardingFileIO::ReadFileUpTo(location, max_bytes);
  }
  Result<std::string> ReadCheckedFileUpTo(std::string_view location, const io::Location& resolved,
                                          uint64_t max_bytes) override {
    Hold();
    return ForwardingFileIO::ReadCheckedFileUpTo(location, resolved, max_bytes);
  }
  Result<std::unique_ptr<io::InputFile>> NewInputFile(std::string_view location) override {
    Hold();
    return ForwardingFileIO::NewInputFile(location);
  }
  std::atomic<bool> armed{false};
  std::atomic<int> waiting{0};
  testing::Gate gate;

 private:
  void Hold() {
    if (!armed) return;
    ++waiting;
    gate.Wait();
  }
};

// Plans one at a time (another waits `wait`), through reads a test holds.
class OnePlanAtOnceTest : public ScanPlanningRoutesTest {
 protected:
  std::shared_ptr<HeldReads> OpenWithOneSlot(std::chrono::milliseconds wait) {
    auto held = std::make_shared<HeldReads>(io::NewLocalFileIO());
    ScanPlanningOptions planning;
    planning.io = held;
    planning.max_concurrent_plans = 1;
    planning.plan_slot_wait = wait;
    OpenService({}, {}, nullptr, {}, planning);
    return held;
  }
};

// Review finding: plans, each in memory, had no bound together; one more
// than the limit is told to come back (503, Retry-After) rather than queued.
TEST_F(OnePlanAtOnceTest, PlansPastTheLimitAtOnceAreToldToRetry) {
  AppendFiles(3);
  auto held = OpenWithOneSlot(std::chrono::milliseconds(0));
  held->armed = true;
  HttpResponse first;
  std::thread planner([&] { first = Plan("{}"); });
  testing::WaitUntil([&] { return held->waiting > 0; });
  auto turned_away = Plan("{}");
  EXPECT_EQ(turned_away.status, 503) << turned_away.body;
  EXPECT_NE(std::find(turned_away.headers.begin(), turned_away.headers.end(),
                      std::pair<std::string, std::string>("Retry-After", "1")),
            turned_away.headers.end());
  held->armed = false;
  held->gate.Open();
  planner.join();
  EXPECT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(Plan("{}").status, 200);
}

// Review finding: with no wait, cheap plans of well-behaved readers were
// turned away whenever the slots were taken for a moment. One waits now.
TEST_F(OnePlanAtOnceTest, APlanPastTheLimitWaitsForASlot) {
  AppendFiles(3);
  auto held = OpenWithOneSlot(std::chrono::minutes(10));
  held->armed = true;
  HttpResponse first;
  HttpResponse second;
  std::thread planner([&] { first = Plan("{}"); });
  testing::WaitUntil([&] { return held->waiting > 0; });
  held->armed = false;  // the second, once it has the slot, reads freely
  std::thread waiter([&] { second = Plan("{}"); });
  held->gate.Open();
  planner.join();
  waiter.join();
  EXPECT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(second.status, 200) << second.body;
}

// Review finding: the bound counted a delete file once, but each task
// holds its own copy of every delete that applies to it.
TEST_F(ScanPlanningRoutesTest, DeletesOverManyFilesCountOncePerFileTheyApplyTo) {
  AppendFiles(12);
  for (int i = 0; i < 3; ++i) AddPositionDeletes(1);
  // 12 data files and 3 deletes fit; the 4 files of partition 1 holding a
  // copy of the 3 deletes each do not.
  ASSERT_NO_FATAL_FAILURE(Open(1000, 12 * 900 + 3 * 900 + 2 * 900));
  ExpectError(Plan("{}"), 400, "BadRequestException", "bytes one plan may hold");
  ASSERT_NO_FATAL_FAILURE(Open(1000));
  EXPECT_EQ(TasksOf(Body(Plan("{}"))).size(), 12u);
}

// After a set-location the table's snapshots still name the manifests
// written under the old location: they are the catalog's, and planned.
TEST_F(ScanPlanningRoutesTest, AMovedTableStillPlansTheManifestsOfItsOldLocation) {
  AppendFiles(2);
  const std::string moved = StrCat("file://", dir_.path(), "/elsewhere/t");
  auto committed = Call("POST", "/v1/namespaces/n/tables/t",
                        StrCat(R"({"requirements":[],"updates":[{"action":"set-location",)",
                               R"("location":")", moved, R"("}]})"));
  ASSERT_EQ(committed.status, 200) << committed.body;
  AppendFiles(1);
  const table::Table table = Load();
  ASSERT_EQ(table.metadata().location, moved);
  EXPECT_TRUE(table.metadata().CurrentSnapshot()->manifest_list.starts_with(moved));
  auto planned = Plan("{}");
  ASSERT_EQ(planned.status, 200) << planned.body;
  EXPECT_EQ(TasksOf(Body(planned)).size(), 3u);
}

// Files the table's writer wrote and that do not parse: the request is
// answered with a client error naming the file, never a server failure.
TEST_F(ScanPlanningRoutesTest, UnreadableManifestsAreClientErrors) {
  AppendFiles(1);
  const table::Table table = Load();
  const spec::Snapshot& current = *table.metadata().CurrentSnapshot();
  auto list = avro::ReadManifestList(*catalog_->file_io().ReadFile(current.manifest_list));
  ASSERT_THAT(list, testing::IsOk());
  const std::string directory = StrCat(table.metadata().location, "/metadata/");
  const std::string bad_manifest = directory + "bad-manifest.avro";
  ASSERT_THAT(catalog_->file_io().WriteFile(bad_manifest, "Obj\x01 not a manifest", true),
              testing::IsOk());
  const std::string list_of_bad = directory + "list-of-bad.avro";
  ASSERT_NO_FATAL_FAILURE(
      WriteListNaming(current, list->manifests.at(0), bad_manifest, list_of_bad));
  const std::string bad_list = directory + "bad-list.avro";
  ASSERT_THAT(catalog_->file_io().WriteFile(bad_list, "Obj\x01\xff\xff\xff garbage", true),
              testing::IsOk());

  int64_t id = 7001;
  int64_t sequence = current.sequence_number;
  for (const auto& [manifest_list, named] :
       {std::pair{bad_list, bad_list}, std::pair{list_of_bad, bad_manifest}}) {
    const std::string commit = StrCat(
        R"({"requirements":[],"updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":)",
        ++id, R"(,"sequence-number":)", ++sequence,
        R"(,"timestamp-ms":1,"summary":{"operation":"append"},"schema-id":0,"manifest-list":")",
        manifest_list, R"("}}]})");
    ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables/t", commit).status, 200);
    ExpectError(Plan(StrCat(R"({"snapshot-id":)", id, "}")), 400, "BadRequestException", named);
  }
}

// Review finding: a 60 KB deflate manifest of 236k identical entries took
// 360 MB to plan, and 3.6 MB of them std::bad_alloc (500, on purge too).
// Now its read stops at the readers' memory limit, and the plan is a 400
// naming it.
TEST_F(ScanPlanningRoutesTest, AManifestThatInflatesPastTheMemoryLimitIsAClientError) {
  table::Table table = Load();
  spec::DataFile file;
  file.file_path = StrCat(table.metadata().location, "/data/f.parquet");
  file.partition = {Literal::Int(0)};
  file.record_count = 1;
  file.file_size_in_bytes = 1;
  table::FastAppend append(table);
  append.AppendFile(file);
  ASSERT_THAT(append.Commit(), testing::IsOk());
  table = Load();
  const spec::Snapshot& current = *table.metadata().CurrentSnapshot();
  auto list = avro::ReadManifestList(*catalog_->file_io().ReadFile(current.manifest_list));
  ASSERT_THAT(list, testing::IsOk());
  auto manifest = catalog_->file_io().ReadFile(list->manifests.at(0).manifest_path);
  ASSERT_THAT(manifest, testing::IsOk());
  // Entries whose slots alone pass the limit, in a file of a few tens of KB.
  const std::string bomb = avro::testing::ManifestBomb(
      *manifest,
      avro::ContainerReaderOptions{}.max_decoded_bytes / sizeof(spec::ManifestEntry) + 1);
  ASSERT_LT(bomb.size(), 1u << 20);
  const std::string directory = StrCat(table.metadata().location, "/metadata/");
  const std::string bomb_manifest = directory + "bomb-m0.avro";
  ASSERT_THAT(catalog_->file_io().WriteFile(bomb_manifest, bomb, true), testing::IsOk());
  const std::string list_of_bomb = directory + "list-of-bomb.avro";
  ASSERT_NO_FATAL_FAILURE(
      WriteListNaming(current, list->manifests.at(0), bomb_manifest, list_of_bomb));
  ExpectError(PlanSnapshotListedIn(list_of_bomb), 400, "BadRequestException",
              StrCat("manifest ", bomb_manifest, " holds more than 512 MiB of entries"));
  // A purge skips what the bomb lists (it was a 500 after the drop) and
  // deletes the bomb itself.
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/n/tables/t?purgeRequested=true").status, 204);
  EXPECT_FALSE(catalog_->file_io().Exists(bomb_manifest).value_or(true));
}

TEST_F(ScanPlanningRoutesTest, TheRoutesAreAdvertisedAndPlanningRunsOnThePool) {
  auto config = Body(Call("GET", "/v1/config"));
  auto endpoints = *json::GetStringList(config, "endpoints");
  for (const char* endpoint :
       {"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks"}) {
    EXPECT_NE(std::find(endpoints.begin(), endpoints.end(), endpoint), endpoints.end()) << endpoint;
  }
  // Fetching and cancelling check the plan's table: from memory when the
  // cache holds it, else on the pool too.
  const MetadataCachedQuery cached = [](const spec::TableIdentifier&) { return true; };
  const MetadataCachedQuery not_cached = [](const spec::TableIdentifier&) { return false; };
  HttpRequest request;
  request.method = "POST";
  request.target = "/v1/namespaces/n/tables/t/plan";
  EXPECT_TRUE(RunsOnPool(request, false, cached));
  request.target = "/v1/namespaces/n/tables/t/tasks";
  EXPECT_FALSE(RunsOnPool(request, false, cached));
  EXPECT_TRUE(RunsOnPool(request, false, not_cached));
  request.method = "DELETE";
  request.target = "/v1/namespaces/n/tables/t/plan/p";
  EXPECT_FALSE(RunsOnPool(request, false, cached));
  EXPECT_TRUE(RunsOnPool(request, false, not_cached));
}

TEST_F(ScanPlanningRoutesTest, WithoutAFileIOPlanningIsUnsupported) {
  rest::CatalogService service(catalog_, std::make_shared<Authenticator>(AuthOptions{}));
  HttpRequest request;
  request.method = "POST";
  request.target = "/v1/namespaces/n/tables/t/plan";
  request.body = "{}";
  EXPECT_EQ(service.Handle(request).status, 501);
}

}  // namespace
}  // namespace skade::rest
