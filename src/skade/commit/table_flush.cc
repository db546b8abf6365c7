#include <arrow/record_batch.h>

#include <algorithm>
#include <set>

#include "skade/commit/equality_delete_spec_internal.h"
#include "skade/commit/row_encoder_internal.h"
#include "skade/commit/table_flush_internal.h"
#include "skade/commit/upsert_keys_internal.h"
#include "skade/data/conform_batch.h"
#include "skade/table/added_files.h"

namespace skade::commit {

namespace {

// Whether `files`, equality deletes written before the flush chose
// `delete_spec`, reach as far as deletes under it would.
bool ReachAsFar(const spec::TableMetadata& metadata, const std::vector<spec::DataFile>& files,
                const spec::PartitionSpec& delete_spec) {
  return std::all_of(files.begin(), files.end(), [&](const spec::DataFile& file) {
    spec::PartitionSpecPtr spec = metadata.SpecById(file.spec_id);
    return file.spec_id == delete_spec.spec_id || (spec && spec->IsUnpartitioned());
  });
}

}  // namespace

TableFlush::TableFlush(table::Table table, std::vector<PendingWrite*> writes)
    : table_(table), writes_(std::move(writes)), transaction_(std::move(table)) {}

void TableFlush::Settle(PendingWrite* write, Error error) {
  write->result = tl::unexpected(std::move(error));
  write->settled = true;
}

void TableFlush::SettleUnchanged(PendingWrite* write) {
  CommitReceipt receipt;
  receipt.metadata_location = table_.metadata_location();
  if (auto current = table_.metadata().CurrentSnapshot()) {
    receipt.snapshot_id = current->snapshot_id;
    receipt.sequence_number = current->sequence_number;
  }
  write->result = receipt;
  write->settled = true;
}

void TableFlush::Refuse(PendingWrite* write, Error error) {
  DeleteFiles(table_.io(), write->OwnedLocations());
  Settle(write, std::move(error));
}

bool TableFlush::Admit(PendingWrite* write) {
  const spec::TableMetadata& metadata = table_.metadata();
  for (const auto& requirement : write->options.requirements) {
    Status held = requirement.Validate(&metadata);
    if (!held) {
      Refuse(write, held.error());
      return false;
    }
  }
  if (write->kind == PendingWrite::Kind::kUpsert) {
    auto keys = ResolveKeyFields(*metadata.Schema(), *metadata.Spec(), write->key_columns,
                                 metadata.format_version);
    if (!keys) {
      Refuse(write, keys.error());
      return false;
    }
    // Pre-written delete files carry the ids and the spec they were
    // written with.
    if (!write->deferred() && *keys != write->key_field_ids) {
      Refuse(write, InvalidArgument("Cannot upsert into ", write->table.ToString(),
                                    ": its schema changed while the write was queued")
                        .value());
      return false;
    }
    if (!write->deferred() && !ReachAsFar(metadata, write->delete_files, *delete_spec_)) {
      Refuse(write, InvalidArgument("Cannot upsert into ", write->table.ToString(),
                                    ": its partition spec changed while the write was queued")
                        .value());
      return false;
    }
    write->key_field_ids = std::move(*keys);
  }
  // Files the caller wrote (or the committer, for a large batch) are checked
  // here, not first when the commit stages them: there one that does not
  // fit the table would fail every write of the flush.
  if (Status fits = table::CheckAddedFiles(metadata, write->data_files, write->delete_files);
      !fits) {
    Refuse(write, fits.error());
    return false;
  }
  if (write->deferred() && write->schema_id != metadata.Schema()->schema_id()) {
    // The schema changed while the write waited: conform again, by name.
    auto conformed = data::ConformBatch(write->rows, *metadata.Schema());
    if (!conformed) {
      Refuse(write, conformed.error());
      return false;
    }
    write->rows = std::move(*conformed);
    write->schema_id = metadata.Schema()->schema_id();
  }
  return true;
}

bool TableFlush::Joins(const Run& run, const PendingWrite& write, HistoryMode mode) const {
  if (mode == HistoryMode::kPerTransaction || run.kind != write.kind) return false;
  if (write.kind == PendingWrite::Kind::kAppend) return true;
  // Upserts merge only when every row's key can be compared in memory.
  if (!write.deferred() || !run.writes.front()->deferred()) return false;
  return run.writes.front()->key_field_ids == write.key_field_ids;
}

Status TableFlush::StageRun(Run& run) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> deferred;
  for (PendingWrite* write : run.writes) {
    if (write->deferred()) deferred.push_back(write->rows);
  }
  const std::vector<int32_t> no_key;
  const std::vector<int32_t>& key =
      run.kind == PendingWrite::Kind::kUpsert ? run.writes.front()->key_field_ids : no_key;
  // The flush's own files go to the commit unsynced where the catalog
  // takes them: the store transaction makes them durable, one sync in all.
  RowSink sink{table_.io_ptr(), table_.durable_files(),
               table_.catalog().UnsyncedFileLimit(table_.io())};
  SKADE_ASSIGN_OR_RAISE(EncodedRows encoded, EncodeRows(table_.metadata(), sink, deferred, key,
                                                        delete_spec_, &written_));
  for (PendingWrite* write : run.writes) {
    encoded.data_files.insert(encoded.data_files.end(), write->data_files.begin(),
                              write->data_files.end());
    encoded.delete_files.insert(encoded.delete_files.end(), write->delete_files.begin(),
                                write->delete_files.end());
  }
  if (run.kind == PendingWrite::Kind::kAppend) {
    table::MergeAppend& append = transaction_.NewMergeAppend();
    for (auto& file : encoded.data_files) append.AppendFile(std::move(file));
    run.update = &append;
  } else {
    table::RowDelta& delta = transaction_.NewRowDelta();
    for (auto& file : encoded.data_files) delta.AddRows(std::move(file));
    for (auto& file : encoded.delete_files) delta.AddDeletes(std::move(file));
    run.update = &delta;
  }
  run.update->SetSummaryProperty(kLogicalWritesSummary, std::to_string(run.writes.size()));
  for (auto& file : encoded.unsynced) run.update->AddUnsyncedFile(std::move(file));
  return OkStatus();
}

bool TableFlush::ChooseDeleteSpec() {
  std::set<int32_t> queued_data_specs;
  bool upserts = false;
  for (const PendingWrite* write : writes_) {
    upserts = upserts || write->kind == PendingWrite::Kind::kUpsert;
    // Appended before an upsert of the flush, maybe under another spec
    // (AppendFiles); after one they only make its deletes reach further.
    for (const spec::DataFile& file : write->data_files) queued_data_specs.insert(file.spec_id);
  }
  if (!upserts) return true;
  auto choose = [&] {
    return EqualityDeleteSpec(table_.metadata(), table_.io(), table_.written_list(),
                              queued_data_specs);
  };
  Result<spec::PartitionSpecPtr> chosen = choose();
  if (chosen && *chosen == nullptr) {
    auto added = AddUnpartitionedSpec(table_);
    if (added) {
      table_ = std::move(*added);
      transaction_ = table::Transaction(table_);
      chosen = choose();
    } else {
      chosen = tl::unexpected(added.error());
    }
  }
  if (chosen && *chosen == nullptr) {
    // Removed again as soon as it was added (remove-partition-specs).
    chosen = CommitFailed("Cannot upsert into ", table_.identifier().ToString(),
                          ": the partition spec without fields its deletes need was removed");
  }
  if (!chosen) {
    for (PendingWrite* write : writes_) Refuse(write, chosen.error());
    return false;
  }
  delete_spec_ = std::move(*chosen);
  return true;
}

bool TableFlush::Stage() {
  auto properties = CommitProperties::Of(table_.metadata());
  if (!properties) {
    for (PendingWrite* write : writes_) Refuse(write, properties.error());
    return false;
  }
  if (!ChooseDeleteSpec()) return false;
  for (PendingWrite* write : writes_) {
    if (!Admit(write)) continue;
    if ((!write->deferred() || write->rows->num_rows() == 0) && write->data_files.empty() &&
        write->delete_files.empty()) {
      // No rows and no files (queued for its requirements, which hold):
      // nothing to commit.
      SettleUnchanged(write);
      continue;
    }
    if (runs_.empty() || !Joins(runs_.back(), *write, properties->history_mode)) {
      runs_.push_back(Run{write->kind, {}, nullptr});
    }
    runs_.back().writes.push_back(write);
    // Checked again with the commit: the table may change before it lands.
    for (const auto& requirement : write->options.requirements) transaction_.Require(requirement);
  }
  for (Run& run : runs_) {
    Status staged = StageRun(run);
    if (!staged) {
      Failed(staged.error());
      runs_.clear();
      return false;
    }
  }
  return !runs_.empty();
}

size_t TableFlush::staged_writes() const {
  size_t count = 0;
  for (const Run& run : runs_) count += run.writes.size();
  return count;
}

void TableFlush::Committed(const table::Table& committed, int64_t writes_in_commit) {
  for (const Run& run : runs_) {
    spec::SnapshotPtr snapshot = committed.metadata().SnapshotById(run.update->snapshot_id());
    CommitReceipt receipt;
    receipt.snapshot_id = run.update->snapshot_id();
    receipt.sequence_number = snapshot ? snapshot->sequence_number : 0;
    receipt.metadata_location = committed.metadata_location();
    receipt.writes_in_snapshot = static_cast<int64_t>(run.writes.size());
    receipt.writes_in_commit = writes_in_commit;
    for (PendingWrite* write : run.writes) {
      write->result = receipt;
      write->settled = true;
    }
  }
}

bool TableFlush::ARequirementFailsOn(const spec::TableMetadata& now) const {
  for (const Run& run : runs_) {
    for (const PendingWrite* write : run.writes) {
      for (const auto& requirement : write->options.requirements) {
        if (!requirement.Validate(&now)) return true;
      }
    }
  }
  return false;
}

bool TableFlush::carries_requirements() const {
  for (const Run& run : runs_) {
    for (const PendingWrite* write : run.writes) {
      if (!write->options.requirements.empty()) return true;
    }
  }
  return false;
}

void TableFlush::Abandon() {
  DeleteFiles(table_.io(), written_);
  written_.clear();
  runs_.clear();
}

void TableFlush::Failed(const Error& error) {
  bool unknown = error.kind == ErrorKind::kCommitStateUnknown;
  for (const Run& run : runs_) {
    for (PendingWrite* write : run.writes) {
      if (!unknown) DeleteFiles(table_.io(), write->OwnedLocations());
      Settle(write, error);
    }
  }
  if (!unknown) DeleteFiles(table_.io(), written_);
}

}  // namespace skade::commit
