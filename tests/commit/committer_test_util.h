// Helpers for the commit/ tests: a catalog (the ingest tests' fixture), a
// FileIO whose first matching write can be held until the test releases
// it — so that a flush is in flight while other writes queue behind it, with
// no timing — and reading a table back with equality deletes applied.
#pragma once

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "ingest/ingest_test_util.h"
#include "skade/commit/coalescing_committer.h"
#include "skade/commit/commit_properties.h"
#include "skade/read/scan_reader.h"
#include "skade/scan/table_scan.h"

namespace skade::commit::testing {

using ingest::testing::EventGroup;
using ingest::testing::HookedFileIO;
using ingest::testing::ReadParquet;
using ingest::testing::Row;
using ingest::testing::RowsOf;
using skade::testing::IsError;
using skade::testing::IsOk;

/// Holds the first write whose location contains `pattern` until Release().
class Gate {
 public:
  explicit Gate(std::string pattern) : pattern_(std::move(pattern)) {}

  HookedFileIO::Hook Hook() {
    return [this](std::string_view location) -> Status {
      if (location.find(pattern_) == std::string_view::npos) return OkStatus();
      std::unique_lock<std::mutex> lock(mutex_);
      if (used_) return OkStatus();
      used_ = true;
      held_ = true;
      changed_.notify_all();
      changed_.wait(lock, [&] { return released_; });
      return OkStatus();
    };
  }
  void WaitUntilHeld() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return held_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::string pattern_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool used_ = false;
  bool held_ = false;
  bool released_ = false;
};

/// A one-column-key batch of the event schema: (id, score, name) rows.
inline std::shared_ptr<arrow::RecordBatch> Events(
    const std::vector<std::pair<int64_t, std::string>>& rows, const std::string& region = "eu") {
  arrow::Int64Builder ids;
  arrow::DoubleBuilder scores;
  arrow::StringBuilder names;
  arrow::StringBuilder regions;
  for (const auto& [id, name] : rows) {
    EXPECT_TRUE(ids.Append(id).ok());
    EXPECT_TRUE(scores.Append(static_cast<double>(id)).ok());
    EXPECT_TRUE(names.Append(name).ok());
    EXPECT_TRUE(regions.Append(region).ok());
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("score", arrow::float64()),
       arrow::field("name", arrow::utf8()), arrow::field("region", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()),
                                  {ids.Finish().ValueOrDie(), scores.Finish().ValueOrDie(),
                                   names.Finish().ValueOrDie(), regions.Finish().ValueOrDie()});
}

/// The rows a reader sees: every live data file's rows, minus those whose
/// id is in an equality delete file (on "id") of a higher sequence number.
inline std::vector<Row> VisibleRows(const table::Table& table) {
  std::vector<Row> rows;
  auto snapshot = table.metadata().CurrentSnapshot();
  if (!snapshot) return rows;
  auto live = table::LiveEntries(table, *snapshot);
  EXPECT_TRUE(live) << live.error().ToString();
  std::vector<std::pair<int64_t, std::set<int64_t>>> deletes;  // sequence number, ids
  for (const auto& entry : *live) {
    if (entry.data_file.content != spec::DataFileContent::kEqualityDeletes) continue;
    EXPECT_EQ(entry.data_file.equality_ids, std::vector<int32_t>{1});
    auto keys = ReadParquet(entry.data_file.file_path)->CombineChunksToBatch().ValueOrDie();
    EXPECT_EQ(keys->num_columns(), 1);
    auto ids = std::static_pointer_cast<arrow::Int64Array>(keys->column(0));
    std::set<int64_t> set;
    for (int64_t i = 0; i < ids->length(); ++i) set.insert(ids->Value(i));
    deletes.emplace_back(*entry.sequence_number, std::move(set));
  }
  for (const auto& entry : *live) {
    if (entry.data_file.content != spec::DataFileContent::kData) continue;
    for (Row& row : RowsOf(*ReadParquet(entry.data_file.file_path))) {
      bool deleted = false;
      for (const auto& [sequence, ids] : deletes) {
        deleted = deleted || (sequence > *entry.sequence_number && ids.count(row.id) != 0);
      }
      if (!deleted) rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
  return rows;
}

/// The rows skade's own scan reader returns for table `name` of `catalog`
/// (deletes matched to data files by spec and partition), by id.
inline std::vector<Row> ScannedRows(catalog::EmbeddedCatalog& catalog, const std::string& name) {
  auto plan = scan::PlanTableScan(catalog, {{"db"}, name}, catalog.file_io(), {}, nullptr);
  EXPECT_TRUE(plan) << plan.error().ToString();
  if (!plan) return {};
  auto reader = read::ReadScan(std::move(*plan), catalog.file_io());
  EXPECT_TRUE(reader) << reader.error().ToString();
  if (!reader) return {};
  std::vector<Row> rows = RowsOf(*(*reader)->ToTable().ValueOrDie());
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
  return rows;
}

class CommitterTest : public ingest::testing::IngestTest {
 protected:
  void OpenWithIO(std::shared_ptr<io::FileIO> io) {
    committer_.reset();
    catalog_.reset();
    OpenCatalog(std::move(io));
  }
  void MakeCommitter(CoalescingCommitterOptions options = {}) {
    auto made = CoalescingCommitter::Make(catalog_, options);
    ASSERT_TRUE(made) << made.error().ToString();
    committer_ = std::move(*made);
  }
  table::Table Load(const std::string& name) {
    auto table = table::Table::Load(catalog_, catalog_->file_io_ptr(), {{"db"}, name});
    EXPECT_TRUE(table) << table.error().ToString();
    return *table;
  }
  /// Waits until `count` writes are in the committer's queue.
  void WaitForQueued(int64_t count) {
    while (committer_->stats().queued_writes < count) std::this_thread::yield();
  }

  std::unique_ptr<CoalescingCommitter> committer_;
};

}  // namespace skade::commit::testing
