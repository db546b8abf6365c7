// Incremental append scans (ScanOptions::from_snapshot_id) and the schema a
// scan binds to (ScanOptions::use_snapshot_schema), against Iceberg Java's
// IncrementalAppendScan and TableScan rules: files ADDED by the append
// snapshots in (start, end], other operations skipped, no delete files.
#include <gtest/gtest.h>

#include <algorithm>

#include "scan_fixture.h"
#include "skade/scan/appends_between.h"
#include "skade/scan/table_scan.h"
#include "skade/table/row_delta.h"

namespace skade::scan {
namespace {

using expr::Expression;
using expr::Operation;
using expr::Term;
using skade::testing::IsOk;
using testing::Row;
using testing::ScanTest;
using testing::SimpleRow;
using testing::TaskNames;

using Names = std::vector<std::string>;

class IncrementalAppendScanTest : public ScanTest {
 protected:
  // s1 append a; s2 append b, c; s3 overwrite (RowDelta: d and a position
  // delete); s4 append e; s5 delete (RowDelta: deletes only).
  void SetUp() override {
    ScanTest::SetUp();
    if (HasFatalFailure()) return;
    table::Table table = Create("sales", nullptr);
    table = Append(table, {{"a", SimpleRow(1, "eu")}});
    s1_ = *table.metadata().current_snapshot_id;
    table = Append(table, {{"b", SimpleRow(2, "us")}, {"c", SimpleRow(3, "eu")}});
    s2_ = *table.metadata().current_snapshot_id;
    table::RowDelta overwrite(table);
    overwrite.AddRows(Describe(table, "d", {SimpleRow(4, "eu")}));
    overwrite.AddDeletes(PositionDeletes(table, "d-pos"));
    table = *overwrite.Commit();
    s3_ = *table.metadata().current_snapshot_id;
    EXPECT_EQ(table.metadata().CurrentSnapshot()->operation(), spec::kOperationOverwrite);
    table = Append(table, {{"e", SimpleRow(5, "us")}});
    s4_ = *table.metadata().current_snapshot_id;
    table::RowDelta deletes(table);
    deletes.AddDeletes(PositionDeletes(table, "e-pos"));
    table = *deletes.Commit();
    s5_ = *table.metadata().current_snapshot_id;
    EXPECT_EQ(table.metadata().CurrentSnapshot()->operation(), spec::kOperationDelete);
  }

  table::Table Append(const table::Table& table,
                      const std::vector<std::pair<std::string, Row>>& files) {
    table::FastAppend append(table);
    for (const auto& [name, row] : files) append.AppendFile(Describe(table, name, {row}));
    auto committed = append.Commit();
    EXPECT_THAT(committed, IsOk());
    return *committed;
  }

  static spec::DataFile PositionDeletes(const table::Table& table, const std::string& name) {
    spec::DataFile file;
    file.content = spec::DataFileContent::kPositionDeletes;
    file.file_path = spec::DataFileLocation(table.metadata(), "", name + ".parquet");
    file.record_count = 1;
    file.file_size_in_bytes = 50;
    return file;
  }

  Result<ScanPlan> Plan(int64_t from, std::optional<int64_t> to,
                        expr::ExpressionPtr filter = Expression::True()) {
    ScanOptions options;
    options.from_snapshot_id = from;
    options.snapshot_id = to;
    options.filter = std::move(filter);
    return PlanTableScan(*catalog_, kTable, *io_, options, nullptr);
  }

  Names Files(int64_t from, std::optional<int64_t> to,
              expr::ExpressionPtr filter = Expression::True()) {
    auto plan = Plan(from, to, std::move(filter));
    EXPECT_THAT(plan, IsOk());
    if (!plan) return {"<error>"};
    for (const FileScanTask& task : plan->tasks) EXPECT_TRUE(task.deletes.empty());
    return TaskNames(*plan);
  }

  const catalog::TableIdentifier kTable{{"db"}, "sales"};
  int64_t s1_ = 0, s2_ = 0, s3_ = 0, s4_ = 0, s5_ = 0;
};

TEST_F(IncrementalAppendScanTest, ReadsFilesAddedByAppendsAfterStartUpToEnd) {
  auto plan = Plan(s1_, s4_);
  ASSERT_THAT(plan, IsOk());
  // a is the start's (exclusive); d came with the overwrite, which is skipped.
  EXPECT_EQ(TaskNames(*plan), (Names{"b.parquet", "c.parquet", "e.parquet"}));
  EXPECT_EQ(plan->snapshot->snapshot_id, s4_);
  EXPECT_EQ(plan->from_snapshot_id, s1_);
  EXPECT_EQ(plan->append_snapshot_ids, (std::vector<int64_t>{s4_, s2_}));
  // No delete file applies: not d-pos (the overwrite's), not e-pos (after).
  for (const FileScanTask& task : plan->tasks) EXPECT_TRUE(task.deletes.empty());

  EXPECT_EQ(Files(s1_, s2_), (Names{"b.parquet", "c.parquet"}));
  EXPECT_EQ(Files(s2_, s4_), Names{"e.parquet"});
  EXPECT_EQ(Files(s1_, s3_), (Names{"b.parquet", "c.parquet"}));
  EXPECT_EQ(Files(s3_, s4_), Names{"e.parquet"});
  EXPECT_EQ(Files(s4_, s5_), Names{});  // the delete snapshot adds nothing to read
  // Without an end: the current snapshot.
  auto to_current = Plan(s1_, std::nullopt);
  ASSERT_THAT(to_current, IsOk());
  EXPECT_EQ(to_current->snapshot->snapshot_id, s5_);
  EXPECT_EQ(TaskNames(*to_current), (Names{"b.parquet", "c.parquet", "e.parquet"}));
}

TEST_F(IncrementalAppendScanTest, StartEqualToEndIsEmpty) {
  for (int64_t s : {s1_, s2_, s3_, s4_, s5_}) {
    auto plan = Plan(s, s);
    ASSERT_THAT(plan, IsOk());
    EXPECT_TRUE(plan->tasks.empty());
    EXPECT_TRUE(plan->append_snapshot_ids.empty());
  }
}

TEST_F(IncrementalAppendScanTest, StartMustBeAnAncestorOfEnd) {
  for (auto [from, to] :
       {std::pair{s4_, s2_}, std::pair{s5_, s1_}, std::pair{int64_t{12345}, s4_}}) {
    auto plan = Plan(from, to);
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().kind, ErrorKind::kInvalidArgument);
    EXPECT_NE(plan.error().message.find("is not an ancestor of end snapshot"), std::string::npos)
        << plan.error().message;
  }
  // Rolled back: main is at s2 again and a new append s6 follows it; s4 is
  // on no path from s6 back.
  ASSERT_THAT(catalog_->CommitTable({kTable, {}, {spec::SetSnapshotRef{"main", {s2_}}}}), IsOk());
  auto table = table::Table::Load(catalog_, io_, kTable);
  ASSERT_THAT(table, IsOk());
  table::Table appended = Append(*table, {{"f", SimpleRow(6, "eu")}});
  int64_t s6 = *appended.metadata().current_snapshot_id;
  EXPECT_EQ(Plan(s4_, s6).error().kind, ErrorKind::kInvalidArgument);
  EXPECT_EQ(Files(s1_, s6), (Names{"b.parquet", "c.parquet", "f.parquet"}));
  // An unknown end is not found, as for any scan of a snapshot id.
  EXPECT_EQ(Plan(s1_, 999).error().kind, ErrorKind::kNotFound);
}

TEST_F(IncrementalAppendScanTest, AnExpiredStartStillBoundsTheRange) {
  // Java's isParentAncestorOf: the start need only be a parent on the path.
  ASSERT_THAT(catalog_->CommitTable({kTable, {}, {spec::RemoveSnapshots{{s1_}}}}), IsOk());
  EXPECT_EQ(Files(s1_, s4_), (Names{"b.parquet", "c.parquet", "e.parquet"}));
}

TEST_F(IncrementalAppendScanTest, FiltersPruneAndLeaveResidualsWithinTheRange) {
  auto eu = Expression::Predicate(Operation::kEq, Term{"region"}, {spec::Literal::String("eu")});
  EXPECT_EQ(Files(s1_, s5_, eu), Names{"c.parquet"});
  auto high = Expression::Predicate(Operation::kGt, Term{"id"}, {spec::Literal::Long(4)});
  auto plan = Plan(s1_, s5_, high);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(TaskNames(*plan), Names{"e.parquet"});
  EXPECT_EQ(plan->stats.data_files_pruned_by_metrics, 2);  // b and c
  EXPECT_FALSE(plan->tasks[0].residual->IsTrue());
  auto none = Expression::Predicate(Operation::kEq, Term{"nope"}, {spec::Literal::Long(4)});
  EXPECT_EQ(Plan(s1_, s5_, none).error().kind, ErrorKind::kInvalidArgument);
}

TEST_F(IncrementalAppendScanTest, AppendsBetweenWalksTheEndsHistory) {
  auto table = catalog_->LoadTable(kTable);
  ASSERT_THAT(table, IsOk());
  const spec::TableMetadata& m = *table->metadata;
  auto ids = [](const std::vector<spec::SnapshotPtr>& snapshots) {
    std::vector<int64_t> out;
    for (const auto& s : snapshots) out.push_back(s->snapshot_id);
    return out;
  };
  EXPECT_EQ(ids(*AppendsBetween(m, s1_, m.SnapshotById(s5_))), (std::vector<int64_t>{s4_, s2_}));
  EXPECT_EQ(ids(*AppendsBetween(m, s3_, m.SnapshotById(s4_))), std::vector<int64_t>{s4_});
  EXPECT_FALSE(AppendsBetween(m, s2_, m.SnapshotById(s1_)));
}

// Schema 0 (id, region, amount, day) when s1 was written; then region is
// renamed to area and a column note (id 5) is added: schema 1.
class SnapshotSchemaTest : public ScanTest {
 protected:
  void SetUp() override {
    ScanTest::SetUp();
    if (HasFatalFailure()) return;
    table::Table table = Create("sales", nullptr);
    table = *table::FastAppend(table)
                 .AppendFile(Describe(table, "a", {SimpleRow(1, "eu")}))
                 .AppendFile(Describe(table, "b", {SimpleRow(2, "us")}))
                 .Commit();
    s1_ = *table.metadata().current_snapshot_id;
    auto fields = table.metadata().Schema()->fields();
    fields[1].name = "area";
    fields.push_back({5, "note", spec::Type::String(), false, {}, {}, {}});
    catalog::CommitTableRequest evolve{kTable, {}, {}};
    evolve.updates.push_back(spec::AddSchema{std::make_shared<const spec::Schema>(1, fields), 5});
    evolve.updates.push_back(spec::SetCurrentSchema{-1});
    ASSERT_THAT(catalog_->CommitTable(evolve), IsOk());
  }

  Result<ScanPlan> Plan(ScanOptions options) {
    return PlanTableScan(*catalog_, kTable, *io_, options, nullptr);
  }

  const catalog::TableIdentifier kTable{{"db"}, "sales"};
  int64_t s1_ = 0;
};

TEST_F(SnapshotSchemaTest, ASnapshotIdBindsTheSnapshotsSchemaOrTheTablesAsAsked) {
  auto old_name =
      Expression::Predicate(Operation::kEq, Term{"region"}, {spec::Literal::String("us")});
  auto new_name =
      Expression::Predicate(Operation::kEq, Term{"area"}, {spec::Literal::String("us")});
  ScanOptions options;
  options.snapshot_id = s1_;
  options.select = {"id", "region"};
  options.filter = old_name;
  for (std::optional<bool> use : {std::optional<bool>{}, std::optional<bool>{true}}) {
    options.use_snapshot_schema = use;
    auto plan = Plan(options);
    ASSERT_THAT(plan, IsOk());
    EXPECT_EQ(plan->schema->schema_id(), 0);
    EXPECT_EQ(plan->projected_field_ids, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(TaskNames(*plan), Names{"b.parquet"});
    // The new names do not exist in the snapshot's schema.
    ScanOptions renamed = options;
    renamed.select = {"id", "note"};
    EXPECT_EQ(Plan(renamed).error().kind, ErrorKind::kInvalidArgument);
  }

  options.use_snapshot_schema = false;
  EXPECT_EQ(Plan(options).error().kind, ErrorKind::kInvalidArgument);  // no region any more
  options.select = {"area", "note"};
  options.filter = new_name;
  auto plan = Plan(options);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->schema->schema_id(), 1);
  EXPECT_EQ(plan->projected_field_ids, (std::vector<int32_t>{2, 5}));
  EXPECT_EQ(TaskNames(*plan), Names{"b.parquet"});  // the metrics of field 2 still prune
  options.filter = Expression::Predicate(Operation::kIsNull, Term{"note"});
  plan = Plan(options);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(TaskNames(*plan), (Names{"a.parquet", "b.parquet"}));
}

TEST_F(SnapshotSchemaTest, TheCurrentStateAndIncrementalScansDefaultToTheTablesSchema) {
  ScanOptions current;
  current.select = {"area", "note"};
  auto plan = Plan(current);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->schema->schema_id(), 1);
  current.use_snapshot_schema = true;  // the current snapshot was written in schema 0
  current.select = {"region"};
  plan = Plan(current);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->schema->schema_id(), 0);

  ScanOptions incremental;
  incremental.from_snapshot_id = s1_;
  incremental.snapshot_id = s1_;
  plan = Plan(incremental);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->schema->schema_id(), 1);
  incremental.use_snapshot_schema = true;
  plan = Plan(incremental);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->schema->schema_id(), 0);
}

TEST_F(SnapshotSchemaTest, AnExpiredSnapshotReadInTheTablesSchemaUsesTheCurrentOne) {
  // A second snapshot so that s1 can be expired; read s1 through the log.
  auto table = table::Table::Load(catalog_, io_, kTable);
  ASSERT_THAT(table, IsOk());
  Row row = SimpleRow(3, "eu");
  row[5] = spec::Literal::Null(spec::Type::String());
  ASSERT_THAT(table::FastAppend(*table).AppendFile(Describe(*table, "c", {row})).Commit(), IsOk());
  ASSERT_THAT(catalog_->CommitTable({kTable, {}, {spec::RemoveSnapshots{{s1_}}}}), IsOk());
  ScanOptions options;
  options.snapshot_id = s1_;
  options.use_snapshot_schema = false;
  options.select = {"area", "note"};
  auto plan = Plan(options);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->schema->schema_id(), 1);
  EXPECT_EQ(TaskNames(*plan), (Names{"a.parquet", "b.parquet"}));
  options.use_snapshot_schema.reset();
  EXPECT_EQ(Plan(options).error().kind, ErrorKind::kInvalidArgument);  // schema 0 has no note
}

}  // namespace
}  // namespace skade::scan
