#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "skade/spec/table_metadata_builder.h"
#include "skade/table/commit_retry_internal.h"
#include "skade/util/random.h"

namespace skade::table {

namespace {

struct RetryPolicy {
  int64_t retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60000;

  static RetryPolicy FromProperties(const spec::TableMetadata& metadata) {
    RetryPolicy policy;
    policy.retries = std::max<int64_t>(0, metadata.PropertyAsInt("commit.retry.num-retries", 4));
    policy.min_wait_ms =
        std::max<int64_t>(0, metadata.PropertyAsInt("commit.retry.min-wait-ms", 100));
    policy.max_wait_ms = std::max<int64_t>(
        policy.min_wait_ms, metadata.PropertyAsInt("commit.retry.max-wait-ms", 60000));
    return policy;
  }

  // Exponential backoff with 10% jitter, as Iceberg's Tasks.
  void Wait(int64_t retry) const {
    double delay = static_cast<double>(min_wait_ms);
    for (int64_t i = 1; i < retry && delay < static_cast<double>(max_wait_ms); ++i) delay *= 2;
    delay = std::min(delay, static_cast<double>(max_wait_ms));
    delay += delay * 0.1 * static_cast<double>(RandomU64() % 1000) / 1000.0;
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(delay * 1000)));
  }
};

spec::SnapshotRef MainRef(const spec::TableMetadata& metadata, int64_t snapshot_id) {
  // Keep the branch's retention settings, as Iceberg does when it moves one.
  const spec::SnapshotRef* main = metadata.Ref(spec::kMainBranch);
  spec::SnapshotRef ref = main != nullptr ? *main : spec::SnapshotRef{};
  ref.type = spec::SnapshotRefType::kBranch;
  ref.snapshot_id = snapshot_id;
  return ref;
}

void CleanUpAll(const std::vector<TableUpdates>& tables, bool committed) {
  for (const TableUpdates& table : tables) {
    for (SnapshotUpdate* update : table.updates) update->CleanUp(committed);
  }
}

// Stages every table's updates on its current version. Errors here are
// final (a failed validation, FileIO): retrying would meet them again.
Result<std::vector<catalog::CommitTableRequest>> StageAll(const std::vector<TableUpdates>& tables) {
  std::vector<catalog::CommitTableRequest> requests;
  for (const TableUpdates& table : tables) {
    SKADE_ASSIGN_OR_RAISE(auto request, StageUpdates(table.table, table.updates));
    request.requirements.insert(request.requirements.end(), table.requirements.begin(),
                                table.requirements.end());
    requests.push_back(std::move(request));
  }
  return requests;
}

// The first of the callers' requirements that does not hold on the tables
// as they are now.
Status CallersRequirementsHold(const std::vector<TableUpdates>& tables) {
  for (const TableUpdates& table : tables) {
    for (const auto& requirement : table.requirements) {
      SKADE_RETURN_NOT_OK(requirement.Validate(&table.table.metadata()));
    }
  }
  return OkStatus();
}

// The manifest list of the last snapshot a table's commit staged: main's,
// once it is committed.
std::shared_ptr<const WrittenManifestList> LastList(const TableUpdates& table) {
  return table.updates.back()->applied_list();
}

Result<std::vector<Table>> CommitOnce(const std::vector<TableUpdates>& tables,
                                      const std::vector<catalog::CommitTableRequest>& requests) {
  catalog::Catalog& catalog = tables.front().table.catalog();
  if (tables.size() == 1) {
    SKADE_ASSIGN_OR_RAISE(catalog::LoadTableResult committed, catalog.CommitTable(requests[0]));
    return std::vector<Table>{
        tables[0].table.WithVersion(std::move(committed)).WithWrittenList(LastList(tables[0]))};
  }
  SKADE_RETURN_NOT_OK(catalog.CommitTransaction(requests));
  std::vector<Table> committed;
  for (const TableUpdates& table : tables) {
    auto refreshed = table.table.Refresh();
    // The commit landed; a failed reload only loses the new handle.
    committed.push_back(refreshed ? refreshed->WithWrittenList(LastList(table)) : table.table);
  }
  return committed;
}

}  // namespace

Result<catalog::CommitTableRequest> StageUpdates(const Table& base,
                                                 const std::vector<SnapshotUpdate*>& updates) {
  const spec::TableMetadata& metadata = base.metadata();
  catalog::CommitTableRequest request{base.identifier(), {}, {}};
  request.requirements.push_back(spec::AssertTableUuid{metadata.table_uuid});
  const spec::SnapshotRef* main = metadata.Ref(spec::kMainBranch);
  request.requirements.push_back(spec::AssertRefSnapshotId{
      spec::kMainBranch, main != nullptr ? std::optional(main->snapshot_id) : std::nullopt});
  // Validated against the catalog's version, not the staged one: earlier
  // updates of the same commit are not concurrent.
  for (SnapshotUpdate* update : updates) SKADE_RETURN_NOT_OK(update->Validate(metadata));
  spec::TableMetadataPtr staged = base.metadata_ptr();
  // Staged first, written together: one round trip on a remote store.
  std::vector<io::NewFile> files;
  auto take_files = [&](size_t end) {
    for (size_t j = 0; j < end; ++j) {
      for (io::NewFile& file : updates[j]->TakeFilesToWrite()) files.push_back(std::move(file));
    }
  };
  const WrittenManifestList* parent_list = base.written_list();
  for (size_t i = 0; i < updates.size(); ++i) {
    if (i > 0 && updates[i]->ReadsCurrentManifests()) {
      take_files(i);
      SKADE_RETURN_NOT_OK(base.io().WriteFiles(std::exchange(files, {})));
    }
    SKADE_ASSIGN_OR_RAISE(spec::SnapshotPtr snapshot, updates[i]->Apply(*staged, parent_list));
    parent_list = updates[i]->applied_list().get();
    for (auto& file : updates[i]->UnsyncedFiles())
      request.unsynced_files.push_back(std::move(file));
    spec::SnapshotRef ref = MainRef(*staged, snapshot->snapshot_id);
    request.updates.push_back(spec::AddSnapshot{snapshot});
    request.updates.push_back(spec::SetSnapshotRef{spec::kMainBranch, ref});
    if (i + 1 < updates.size()) {
      // The next snapshot builds on this one: its parent, sequence number
      // and first row id come from the staged version.
      auto builder = spec::TableMetadataBuilder::BuildFrom(staged, base.metadata_location());
      SKADE_RETURN_NOT_OK(builder.AddSnapshot(snapshot));
      SKADE_RETURN_NOT_OK(builder.SetRef(spec::kMainBranch, ref));
      SKADE_ASSIGN_OR_RAISE(staged, builder.Build());
    }
  }
  take_files(updates.size());
  SKADE_RETURN_NOT_OK(base.io().WriteFiles(files));
  return request;
}

Result<std::vector<Table>> CommitWithRetry(std::vector<TableUpdates> tables) {
  if (tables.empty()) return std::vector<Table>{};
  RetryPolicy policy = RetryPolicy::FromProperties(tables.front().table.metadata());
  for (int64_t retry = 0;; ++retry) {
    Result<std::vector<catalog::CommitTableRequest>> requests = StageAll(tables);
    if (!requests) {
      CleanUpAll(tables, false);
      return tl::unexpected(std::move(requests).error());
    }
    Result<std::vector<Table>> committed = CommitOnce(tables, *requests);
    if (committed) {
      CleanUpAll(tables, true);
      return committed;
    }
    const Error& error = committed.error();
    if (error.kind == ErrorKind::kCommitStateUnknown) return committed;
    if (error.kind != ErrorKind::kCommitFailed || retry >= policy.retries) {
      CleanUpAll(tables, false);
      return committed;
    }
    policy.Wait(retry + 1);
    for (TableUpdates& table : tables) {
      auto refreshed = table.table.Refresh();
      if (!refreshed) {
        CleanUpAll(tables, false);
        return tl::unexpected(refreshed.error());
      }
      table.table = std::move(*refreshed);
    }
    if (Status held = CallersRequirementsHold(tables); !held) {
      CleanUpAll(tables, false);
      return tl::unexpected(held.error());
    }
  }
}

}  // namespace skade::table
