#include "skade/scan/table_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "scan_fixture.h"
#include "skade/expr/row_evaluator.h"
#include "skade/table/row_delta.h"
#include "testing/counting_file_io.h"
#include "testing/drop_partition_column.h"

namespace skade::scan {
namespace {

using expr::Expression;
using expr::ExpressionPtr;
using expr::Operation;
using expr::Term;
using skade::testing::IsOk;
using testing::Row;
using testing::ScanTest;
using testing::SimpleRow;
using testing::TaskNames;

// Rows whose columns cluster per file (ids in a window, a few days, one
// region), so that metrics and partitions can prune.
std::vector<Row> GenerateRows(std::mt19937_64& rng, int file_index) {
  static const char* kRegions[] = {"eu", "us", "ap", "sa"};
  std::vector<Row> rows;
  int n = 1 + static_cast<int>(rng() % 12);
  std::string region = kRegions[file_index % 4];
  bool null_region = file_index % 9 == 8;
  int32_t base_day = 20000 + (file_index % 6) * 31;
  int64_t base_id = file_index * 100;
  for (int i = 0; i < n; ++i) {
    Row row;
    row[1] = spec::Literal::Long(base_id + static_cast<int64_t>(rng() % 150));
    row[2] =
        null_region ? spec::Literal::Null(spec::Type::String()) : spec::Literal::String(region);
    double amount = static_cast<double>(rng() % 1000) / 10.0;
    if (rng() % 17 == 0) amount = std::nan("");
    row[3] =
        rng() % 13 == 0 ? spec::Literal::Null(spec::Type::Double()) : spec::Literal::Double(amount);
    row[4] = spec::Literal::Date(base_day + static_cast<int32_t>(rng() % 20));
    rows.push_back(std::move(row));
  }
  // One partition per file: bucket(id) must agree, so keep ids whose bucket
  // matches the first row's.
  return rows;
}

ExpressionPtr RandomPredicate(std::mt19937_64& rng) {
  auto lit_id = [&] { return spec::Literal::Long(static_cast<int64_t>(rng() % 4200)); };
  switch (rng() % 11) {
    case 0:
      return Expression::Predicate(Operation::kLt, Term{"id"}, {lit_id()});
    case 1:
      return Expression::Predicate(Operation::kGtEq, Term{"id"}, {lit_id()});
    case 2:
      return Expression::Predicate(Operation::kEq, Term{"id"}, {lit_id()});
    case 3:
      return Expression::Predicate(Operation::kIn, Term{"id"}, {lit_id(), lit_id(), lit_id()});
    case 4:
      return Expression::Predicate(Operation::kEq, Term{"region"},
                                   {spec::Literal::String(rng() % 2 ? "eu" : "us")});
    case 5:
      return Expression::Predicate(Operation::kIsNull, Term{"region"});
    case 6:
      return Expression::Predicate(Operation::kStartsWith, Term{"region"},
                                   {spec::Literal::String("a")});
    case 7:
      return Expression::Predicate(Operation::kGt, Term{"amount"},
                                   {spec::Literal::Double(static_cast<double>(rng() % 100))});
    case 8:
      return Expression::Predicate(Operation::kIsNan, Term{"amount"});
    case 9:
      return Expression::Predicate(Operation::kLtEq, Term{"day"},
                                   {spec::Literal::String("2024-10-01")});
    default:
      return Expression::Predicate(Operation::kNotEq, Term{"region"},
                                   {spec::Literal::String("ap")});
  }
}

ExpressionPtr RandomFilter(std::mt19937_64& rng, int depth = 0) {
  if (depth >= 2 || rng() % 3 == 0) return RandomPredicate(rng);
  switch (rng() % 3) {
    case 0:
      return Expression::And(RandomFilter(rng, depth + 1), RandomFilter(rng, depth + 1));
    case 1:
      return Expression::Or(RandomFilter(rng, depth + 1), RandomFilter(rng, depth + 1));
    default:
      return Expression::Not(RandomFilter(rng, depth + 1));
  }
}

bool RowMatches(const expr::BoundExpression& filter, const Row& row) {
  return expr::EvaluateRow(filter, [&](int32_t id) -> const spec::Literal& { return row.at(id); });
}

class TableScanTest : public ScanTest {};

// Every file holding a matching row is planned, and each task's residual
// decides each of its rows as the full filter does; across the filters,
// partitions and metrics prune.
TEST_F(TableScanTest, PlansEveryFileThatMatchesAgainstBruteForce) {
  table::Table table = Create("sales", testing::SalesSpec());
  std::mt19937_64 rng(20261202);
  std::map<std::string, std::vector<Row>> rows_by_file;
  for (int commit = 0; commit < 6; ++commit) {
    table::FastAppend append(table);
    for (int f = 0; f < 8; ++f) {
      int index = commit * 8 + f;
      std::vector<Row> rows = GenerateRows(rng, index);
      // Keep one bucket per file.
      auto bucket = [](const Row& r) { return *spec::Transform::Bucket(4).Apply(r.at(1)); };
      spec::Literal first = bucket(rows.front());
      std::erase_if(rows, [&](const Row& r) { return !(bucket(r) == first); });
      spec::DataFile file = Describe(table, "f" + std::to_string(index), rows);
      rows_by_file[file.file_path] = rows;
      append.AppendFile(file);
    }
    auto committed = append.Commit();
    ASSERT_THAT(committed, IsOk());
    table = *committed;
  }
  cache::ManifestCache cache;
  int64_t pruned = 0, planned = 0;
  for (int i = 0; i < 400; ++i) {
    ScanOptions options;
    options.filter = RandomFilter(rng);
    auto plan = PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, options, &cache);
    ASSERT_THAT(plan, IsOk()) << options.filter->ToString();
    std::set<std::string> got;
    for (const FileScanTask& task : plan->tasks) {
      got.insert(task.data_file.file_path);
      for (const Row& row : rows_by_file.at(task.data_file.file_path)) {
        ASSERT_EQ(RowMatches(*plan->filter, row), RowMatches(*task.residual, row))
            << "filter " << plan->filter->ToString() << " residual " << task.residual->ToString();
      }
    }
    for (const auto& [path, rows] : rows_by_file) {
      bool any = std::any_of(rows.begin(), rows.end(),
                             [&](const Row& row) { return RowMatches(*plan->filter, row); });
      if (any) {
        ASSERT_TRUE(got.contains(path)) << path << " pruned for " << plan->filter->ToString();
      }
    }
    pruned += plan->stats.data_files_pruned_by_partition +
              plan->stats.data_files_pruned_by_metrics + plan->stats.manifests_pruned_by_summary;
    planned += static_cast<int64_t>(plan->tasks.size());
  }
  EXPECT_GT(pruned, planned / 4) << "pruning removed almost nothing";
  EXPECT_GT(cache.stats().hits, 0u);
}

// A table no longer partitioned by a column may drop it: its older
// manifests still hold that column's partition values, read as the type the
// column had. (Planning took the types from the current schema alone and
// failed on every such table.)
TEST_F(TableScanTest, PlansTheFilesOfASpecWhoseSourceColumnWasDropped) {
  auto by_region = std::make_shared<spec::PartitionSpec>();
  by_region->fields.push_back({2, {}, 1000, "region", spec::Transform::Identity()});
  table::Table table = Create("t", by_region);
  table = *table::FastAppend(table).AppendFile(Describe(table, "a", {SimpleRow(1, "eu")})).Commit();
  catalog::CommitTableRequest evolve{
      {{"db"}, "t"}, {}, skade::testing::DropPartitionColumn(table.metadata(), 2)};
  ASSERT_THAT(catalog_->CommitTable(evolve), IsOk());

  auto plan = PlanTableScan(*catalog_, {{"db"}, "t"}, *io_, ScanOptions{}, nullptr);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(TaskNames(*plan), std::vector<std::string>{"a.parquet"});
  ASSERT_EQ(plan->tasks.size(), 1u);
  EXPECT_EQ(plan->tasks[0].data_file.partition.at(0), spec::Literal::String("eu"));
}

TEST_F(TableScanTest, SelectiveFilterCountsEachPruningStep) {
  table::Table table = Create("sales", testing::SalesSpec());
  for (int commit = 0; commit < 4; ++commit) {
    table::FastAppend append(table);
    for (int f = 0; f < 4; ++f) {
      Row row{{1, spec::Literal::Long(commit * 1000 + f * 10)},
              {2, spec::Literal::String(commit % 2 ? "eu" : "us")},
              {3, spec::Literal::Double(1.0)},
              {4, spec::Literal::Date(20000)}};
      Row row2 = row;
      row2[1] = spec::Literal::Long(commit * 1000 + f * 10 + 5);
      append.AppendFile(
          Describe(table, "c" + std::to_string(commit) + "f" + std::to_string(f), {row, row2}));
    }
    table = *append.Commit();
  }
  ScanOptions options;
  // Region eu: commits 1 and 3 (the other manifests are pruned by their
  // summaries); id 1020..1025 only in commit 1's third file (metrics).
  options.filter = Expression::And(
      Expression::Predicate(Operation::kEq, Term{"region"}, {spec::Literal::String("eu")}),
      Expression::Predicate(Operation::kGtEq, Term{"id"}, {spec::Literal::Long(1020)}));
  options.filter = Expression::And(
      options.filter,
      Expression::Predicate(Operation::kLt, Term{"id"}, {spec::Literal::Long(1026)}));
  auto plan = PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, options, nullptr);
  ASSERT_THAT(plan, IsOk());
  ASSERT_EQ(plan->tasks.size(), 1u);
  EXPECT_NE(plan->tasks[0].data_file.file_path.find("c1f2"), std::string::npos);
  EXPECT_EQ(plan->stats.manifests_total, 4);
  EXPECT_EQ(plan->stats.manifests_pruned_by_summary, 2);
  EXPECT_EQ(plan->stats.manifests_read, 2);
  EXPECT_EQ(plan->stats.data_files_total, 8);
  EXPECT_EQ(plan->stats.data_files_pruned_by_metrics, 7);
  // The partition decides region = 'eu'; the residual keeps only the ids.
  EXPECT_EQ(plan->tasks[0].residual->ReferencedFieldIds(), std::vector<int32_t>{1});
}

TEST_F(TableScanTest, ProjectsSelectedColumnsAndRejectsUnknownOnes) {
  table::Table table = Create("sales", nullptr);
  ScanOptions options;
  options.select = {"amount", "id"};
  auto plan = PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, options, nullptr);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->projected_field_ids, (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(plan->snapshot, nullptr);
  EXPECT_TRUE(plan->tasks.empty());
  options.select = {"nope"};
  auto bad = PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, options, nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("nope"), std::string::npos);
  options.select = {"ID"};
  options.case_sensitive = false;
  auto insensitive =
      PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, options, nullptr);
  ASSERT_THAT(insensitive, IsOk());
  EXPECT_EQ(insensitive->projected_field_ids, std::vector<int32_t>{1});
}

TEST_F(TableScanTest, TimeTravelBySnapshotTimestampRefAndExpiredSnapshot) {
  table::Table table = Create("sales", nullptr);
  table = *table::FastAppend(table).AppendFile(Describe(table, "a", {SimpleRow(1, "eu")})).Commit();
  int64_t first = *table.metadata().current_snapshot_id;
  int64_t first_ms = table.metadata().CurrentSnapshot()->timestamp_ms;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  table = *table::FastAppend(table).AppendFile(Describe(table, "b", {SimpleRow(2, "eu")})).Commit();
  int64_t second = *table.metadata().current_snapshot_id;

  catalog::TableIdentifier id{{"db"}, "sales"};
  ScanOptions at_first;
  at_first.snapshot_id = first;
  auto plan = PlanTableScan(*catalog_, id, *io_, at_first, nullptr);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(TaskNames(*plan), std::vector<std::string>{"a.parquet"});
  ScanOptions as_of;
  as_of.as_of_timestamp_ms = first_ms;
  plan = PlanTableScan(*catalog_, id, *io_, as_of, nullptr);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->snapshot->snapshot_id, first);
  ScanOptions main_ref;
  main_ref.ref = "main";
  plan = PlanTableScan(*catalog_, id, *io_, main_ref, nullptr);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(TaskNames(*plan), (std::vector<std::string>{"a.parquet", "b.parquet"}));
  ScanOptions before;
  before.as_of_timestamp_ms = first_ms - 100000;
  EXPECT_EQ(PlanTableScan(*catalog_, id, *io_, before, nullptr).error().kind, ErrorKind::kNotFound);
  ScanOptions unknown_ref;
  unknown_ref.ref = "nope";
  EXPECT_EQ(PlanTableScan(*catalog_, id, *io_, unknown_ref, nullptr).error().kind,
            ErrorKind::kNotFound);
  ScanOptions two = at_first;
  two.ref = "main";
  EXPECT_EQ(PlanTableScan(*catalog_, id, *io_, two, nullptr).error().kind,
            ErrorKind::kInvalidArgument);

  // Expire the first snapshot: the commit log still finds it.
  ASSERT_THAT(catalog_->CommitTable({id, {}, {spec::RemoveSnapshots{{first}}}}), IsOk());
  auto current = catalog_->LoadTable(id);
  ASSERT_EQ(current->metadata->SnapshotById(first), nullptr);
  plan = PlanTableScan(*catalog_, id, *io_, at_first, nullptr);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(TaskNames(*plan), std::vector<std::string>{"a.parquet"});
  EXPECT_EQ(
      PlanScan(current->metadata, current->metadata_location, *io_, at_first, nullptr).error().kind,
      ErrorKind::kNotFound);
  (void)second;
}

spec::DataFile DeleteFile(const table::Table& table, const std::string& name,
                          spec::DataFileContent content, const std::string& region) {
  spec::DataFile file;
  file.content = content;
  file.file_path = spec::DataFileLocation(table.metadata(), "", name + ".parquet");
  file.record_count = 1;
  file.file_size_in_bytes = 50;
  file.spec_id = table.metadata().default_spec_id;
  if (!region.empty()) file.partition.push_back(spec::Literal::String(region));
  if (content == spec::DataFileContent::kEqualityDeletes) file.equality_ids = {1};
  return file;
}

TEST_F(TableScanTest, MatchesDeleteFilesBySequenceNumberAndPartition) {
  auto by_region = std::make_shared<spec::PartitionSpec>();
  by_region->fields.push_back({2, {}, 1000, "region", spec::Transform::Identity()});
  table::Table table = Create("sales", by_region);
  // seq 1: data eu1, us1.
  table = *table::FastAppend(table)
               .AppendFile(Describe(table, "eu1", {SimpleRow(1, "eu")}))
               .AppendFile(Describe(table, "us1", {SimpleRow(2, "us")}))
               .Commit();
  // seq 2: position deletes in eu, equality deletes in eu, data eu2.
  table::RowDelta delta(table);
  delta.AddRows(Describe(table, "eu2", {SimpleRow(3, "eu")}));
  delta.AddDeletes(DeleteFile(table, "eu-pos", spec::DataFileContent::kPositionDeletes, "eu"));
  delta.AddDeletes(DeleteFile(table, "eu-eq", spec::DataFileContent::kEqualityDeletes, "eu"));
  auto committed = delta.Commit();
  ASSERT_THAT(committed, IsOk());
  table = *committed;
  auto plan = PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, {}, nullptr);
  ASSERT_THAT(plan, IsOk());
  std::map<std::string, std::vector<std::string>> deletes;
  for (const FileScanTask& task : plan->tasks) {
    std::string name = task.data_file.file_path.substr(task.data_file.file_path.rfind('/') + 1);
    for (const ScanDelete& d : task.deletes) {
      deletes[name].push_back(d.file.file_path.substr(d.file.file_path.rfind('/') + 1));
    }
  }
  // eu1 (seq 1): the position delete (seq 2 >= 1) and the equality delete
  // (seq 2 > 1). eu2 (seq 2): the position delete of its own commit applies
  // (>=), the equality delete does not (not >). us1: nothing.
  EXPECT_EQ(deletes["eu1.parquet"], (std::vector<std::string>{"eu-pos.parquet", "eu-eq.parquet"}));
  EXPECT_EQ(deletes["eu2.parquet"], std::vector<std::string>{"eu-pos.parquet"});
  EXPECT_FALSE(deletes.contains("us1.parquet"));
  EXPECT_EQ(plan->stats.delete_files_total, 2);
  EXPECT_EQ(plan->stats.delete_files_applied, 2);
}

TEST_F(TableScanTest, ManifestCacheReadsEachManifestOnceAcrossConcurrentPlans) {
  auto counting = std::make_shared<skade::testing::CountingFileIO>(io_);
  table::Table table = Create("sales", nullptr);
  for (int i = 0; i < 5; ++i) {
    table = *table::FastAppend(table)
                 .AppendFile(Describe(table, "f" + std::to_string(i), {SimpleRow(i, "eu")}))
                 .Commit();
  }
  cache::ManifestCache cache;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto plan =
            PlanScan(table.metadata_ptr(), table.metadata_location(), *counting, {}, &cache);
        if (!plan || plan->tasks.size() != 5) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  // One manifest list and five manifests, each read once.
  EXPECT_EQ(counting->TotalReads(), 6);
  cache::ManifestCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.entries, 6u);
  EXPECT_EQ(stats.misses, 6u);
  EXPECT_GT(stats.hits, 0u);
  EXPECT_LE(stats.bytes, cache.capacity_bytes());
}

TEST_F(TableScanTest, ManifestCacheStaysWithinItsBound) {
  table::Table table = Create("sales", nullptr);
  for (int i = 0; i < 40; ++i) {
    table = *table::FastAppend(table)
                 .AppendFile(Describe(table, "f" + std::to_string(i), {SimpleRow(i, "eu")}))
                 .Commit();
  }
  // 4 KiB per shard: a few of these manifests each (one weighs ~2-3 KiB).
  cache::ManifestCache cache(cache::ManifestCacheOptions{.capacity_bytes = 64 * 1024});
  for (int i = 0; i < 3; ++i) {
    auto plan = PlanScan(table.metadata_ptr(), table.metadata_location(), *io_, {}, &cache);
    ASSERT_THAT(plan, IsOk());
    EXPECT_EQ(plan->tasks.size(), 40u);
    EXPECT_LE(cache.stats().bytes, cache.capacity_bytes());
  }
  EXPECT_GT(cache.stats().evictions, 0u);
  EXPECT_GT(cache.stats().entries, 0u);
  EXPECT_LT(cache.stats().entries, 41u);
}

}  // namespace
}  // namespace skade::scan
