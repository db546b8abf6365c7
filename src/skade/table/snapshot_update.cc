#include "skade/table/snapshot_update.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <iterator>
#include <limits>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/spec/table_locations.h"
#include "skade/table/commit_retry_internal.h"
#include "skade/util/clock.h"
#include "skade/util/random.h"
#include "skade/util/uuid.h"

namespace skade::table {

namespace {

// Whether `manifests` ends with `tail`, in order (a manifest's path names
// one content for good).
bool EndsWith(const std::vector<spec::ManifestFile>& manifests,
              const std::vector<spec::ManifestFile>& tail) {
  if (tail.size() > manifests.size()) return false;
  return std::equal(tail.begin(), tail.end(), manifests.end() - static_cast<ptrdiff_t>(tail.size()),
                    [](const spec::ManifestFile& a, const spec::ManifestFile& b) {
                      return a.manifest_path == b.manifest_path;
                    });
}

}  // namespace

SnapshotUpdate::SnapshotUpdate(Table table)
    : table_(std::move(table)), snapshot_id_(NewSnapshotId()), commit_uuid_(NewUuid()) {}

SnapshotUpdate& SnapshotUpdate::SetSummaryProperty(std::string key, std::string value) {
  summary_properties_[std::move(key)] = std::move(value);
  return *this;
}

Result<Table> SnapshotUpdate::Commit() {
  SKADE_ASSIGN_OR_RAISE(std::vector<Table> committed, CommitWithRetry({{table_, {this}}}));
  return std::move(committed.front());
}

std::optional<int64_t> SnapshotUpdate::StartingSnapshotId() const {
  spec::SnapshotPtr main = table_.metadata().SnapshotForRef(spec::kMainBranch);
  return main ? std::optional(main->snapshot_id) : std::nullopt;
}

bool SnapshotUpdate::ReadsCurrentManifests() const {
  return MergesManifests() && ManifestMergePolicy::Of(table_.metadata()).enabled;
}

Status SnapshotUpdate::Validate(const spec::TableMetadata& /*current*/) { return OkStatus(); }

SnapshotUpdate& SnapshotUpdate::AddUnsyncedFile(catalog::UnsyncedFile file) {
  unsynced_inputs_.push_back(std::move(file));
  return *this;
}

std::optional<catalog::UnsyncedFile> SnapshotUpdate::StageTableFile(const std::string& location,
                                                                    std::string bytes) {
  bool hand_over =
      table_.durable_files() && bytes.size() <= table_.catalog().UnsyncedFileLimit(table_.io());
  std::optional<catalog::UnsyncedFile> unsynced;
  if (hand_over) {
    unsynced = catalog::UnsyncedFile{location, std::make_shared<const std::string>(bytes)};
  }
  files_to_write_.push_back({location, std::move(bytes), table_.durable_files() && !hand_over});
  return unsynced;
}

std::string SnapshotUpdate::StageNewManifest(const spec::TableMetadata& base,
                                             std::string_view bytes) {
  std::string location = spec::ManifestLocation(base, commit_uuid_, manifest_count_++);
  auto unsynced = StageTableFile(location, std::string(bytes));
  if (unsynced) unsynced_manifests_.push_back(std::move(*unsynced));
  written_manifests_.push_back(location);
  return location;
}

std::vector<catalog::UnsyncedFile> SnapshotUpdate::UnsyncedFiles() const {
  std::vector<catalog::UnsyncedFile> files = unsynced_inputs_;
  files.insert(files.end(), unsynced_manifests_.begin(), unsynced_manifests_.end());
  if (unsynced_manifest_list_) files.push_back(*unsynced_manifest_list_);
  return files;
}

Result<spec::SnapshotPtr> SnapshotUpdate::Apply(const spec::TableMetadata& base,
                                                const WrittenManifestList* parent_list) {
  // A table another writer left at the largest sequence number has no next.
  if (base.format_version >= 2 &&
      base.last_sequence_number == std::numeric_limits<int64_t>::max()) {
    return InvalidArgument(
        "Cannot add a snapshot: the table's last sequence number is the largest "
        "there is");
  }
  spec::SnapshotPtr parent = base.SnapshotForRef(spec::kMainBranch);
  std::vector<spec::ManifestFile> read;  // the parent's list, when read from its file
  const std::vector<spec::ManifestFile>* current = &read;
  const avro::EncodedManifests* encoded_current = nullptr;
  if (parent) {
    if (parent->manifest_list.empty()) {
      return Unsupported("Cannot build on snapshot ", parent->snapshot_id,
                         ": it lists its manifests inline (format v1 without a manifest list)");
    }
    if (parent_list != nullptr && parent_list->location == parent->manifest_list) {
      current = &parent_list->manifests;
      encoded_current = parent_list->encoded.get();
    } else {
      SKADE_ASSIGN_OR_RAISE(std::string bytes, io().ReadFile(parent->manifest_list));
      SKADE_ASSIGN_OR_RAISE(avro::ManifestList list, avro::ReadManifestList(bytes));
      read = std::move(list.manifests);
    }
  }

  SnapshotSummaryBuilder summary;
  for (const auto& [key, value] : summary_properties_) summary.Set(key, value);
  SKADE_ASSIGN_OR_RAISE(std::vector<spec::ManifestFile> manifests,
                        Manifests(base, *current, &summary));
  if (MergesManifests()) {
    // Only the parent's manifests this update keeps as they are may merge
    // (not its own, nor the ones a filter rewrote, which are not written
    // yet). After a merge the others go first, as they are.
    // Appends and row deltas keep the whole list after their own: it merges
    // as it is, without copying it (the committer's every flush).
    const bool keeps_all = EndsWith(manifests, *current);
    absl::flat_hash_set<std::string_view> parents;
    std::vector<spec::ManifestFile> kept;
    if (!keeps_all) {
      for (const spec::ManifestFile& manifest : *current) parents.insert(manifest.manifest_path);
      for (const spec::ManifestFile& manifest : manifests) {
        if (parents.contains(manifest.manifest_path)) kept.push_back(manifest);
      }
    }
    SKADE_ASSIGN_OR_RAISE(
        auto merged,
        // The policy of the version the update started on, as
        // ReadsCurrentManifests() saw it: a rebase keeps it.
        merger_.Merge(base, io(), snapshot_id_, keeps_all ? *current : kept,
                      ManifestMergePolicy::Of(table_.metadata()),
                      [&](std::string_view bytes) { return StageNewManifest(base, bytes); }));
    if (merged) {
      if (keeps_all) {
        manifests.resize(manifests.size() - current->size());
      } else {
        std::erase_if(manifests, [&](const spec::ManifestFile& manifest) {
          return parents.contains(manifest.manifest_path);
        });
      }
      manifests.insert(manifests.end(), std::make_move_iterator(merged->begin()),
                       std::make_move_iterator(merged->end()));
    }
  }

  auto snapshot = std::make_shared<spec::Snapshot>();
  snapshot->snapshot_id = snapshot_id_;
  if (parent) snapshot->parent_snapshot_id = parent->snapshot_id;
  snapshot->sequence_number = base.format_version >= 2 ? base.last_sequence_number + 1 : 0;
  snapshot->timestamp_ms = NowMillis();
  snapshot->summary = summary.Build(operation(), parent.get());
  snapshot->schema_id = base.current_schema_id;

  avro::ManifestListWriterOptions options;
  options.format_version = base.format_version;
  options.snapshot_id = snapshot_id_;
  options.parent_snapshot_id = snapshot->parent_snapshot_id;
  options.sequence_number = snapshot->sequence_number;
  options.first_row_id = base.next_row_id;
  // An update that keeps every current manifest, after its own, copies
  // their encoded blocks instead of encoding them again.
  size_t own = manifests.size();
  if (encoded_current != nullptr && EndsWith(manifests, *current)) {
    options.avro.sync_marker = encoded_current->sync_marker;
    if (avro::ManifestListWriter::CanCopy(*encoded_current, options)) {
      own -= current->size();
    } else {
      options.avro.sync_marker.reset();
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto writer, avro::ManifestListWriter::Make(options));
  for (size_t i = 0; i < own; ++i) SKADE_RETURN_NOT_OK(writer->Add(manifests[i]));
  if (own < manifests.size()) {
    // The parent's manifests, as Manifests() copied them: moved on.
    std::vector<spec::ManifestFile> kept(std::make_move_iterator(manifests.begin() + own),
                                         std::make_move_iterator(manifests.end()));
    SKADE_RETURN_NOT_OK(writer->AddEncoded(*encoded_current, std::move(kept)));
  }
  if (base.format_version >= 3) {
    snapshot->first_row_id = base.next_row_id;
    snapshot->added_rows = writer->next_row_id() - base.next_row_id;
  }
  snapshot->manifest_list =
      spec::ManifestListLocation(base, snapshot_id_, ++attempt_, commit_uuid_);
  SKADE_ASSIGN_OR_RAISE(std::string list_bytes, writer->Finish());
  // As written: with the sequence numbers and row ids the writer assigned.
  auto applied = std::make_shared<const WrittenManifestList>(
      WrittenManifestList{snapshot->manifest_list, writer->TakeManifests(), writer->encoded()});
  unsynced_manifest_list_ = StageTableFile(snapshot->manifest_list, std::move(list_bytes));
  written_manifest_lists_.push_back(snapshot->manifest_list);
  applied_list_ = std::move(applied);
  return snapshot;
}

void SnapshotUpdate::CleanUp(bool committed) {
  auto keep = [&](const std::string& location) {
    if (!committed || !applied_list_) return false;
    const auto& kept = applied_list_->manifests;
    return location == applied_list_->location ||
           std::any_of(kept.begin(), kept.end(), [&](const spec::ManifestFile& manifest) {
             return manifest.manifest_path == location;
           });
  };
  for (const auto* files : {&written_manifest_lists_, &written_manifests_}) {
    for (const std::string& location : *files) {
      // Best effort: a file left behind is unreferenced, never harmful.
      if (!keep(location)) (void)io().DeleteFile(location);
    }
  }
  written_manifest_lists_.clear();
  written_manifests_.clear();
  files_to_write_.clear();
}

}  // namespace skade::table
