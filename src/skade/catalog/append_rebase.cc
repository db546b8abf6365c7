#include "skade/catalog/append_rebase.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <limits>
#include <semaphore>
#include <string_view>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/avro/manifest_reader.h"
#include "skade/catalog/table_location_claims.h"
#include "skade/spec/snapshot_totals.h"
#include "skade/spec/table_locations.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::catalog {

namespace {

// Why a request is not rebased; the caller appends it to the 409's message.
tl::unexpected<Error> NotRebased(const auto&... parts) {
  return MakeError(ErrorKind::kCommitFailed, parts...);
}

// The parts of a pure append request.
struct AppendRequest {
  const spec::AssertRefSnapshotId* asserted = nullptr;
  spec::SnapshotPtr snapshot;
  const spec::SetSnapshotRef* set_ref = nullptr;
  std::vector<spec::TableUpdate> property_updates;
};

Status CheckRequirements(const CommitTableRequest& request, const spec::TableMetadata& current,
                         AppendRequest* append) {
  for (const auto& requirement : request.requirements) {
    const auto& value = requirement.value();
    if (const auto* ref = std::get_if<spec::AssertRefSnapshotId>(&value)) {
      if (append->asserted != nullptr) return NotRebased("it asserts more than one ref");
      append->asserted = ref;
      continue;
    }
    const bool commutes = std::holds_alternative<spec::AssertTableUuid>(value) ||
                          std::holds_alternative<spec::AssertCurrentSchemaId>(value) ||
                          std::holds_alternative<spec::AssertDefaultSpecId>(value) ||
                          std::holds_alternative<spec::AssertDefaultSortOrderId>(value) ||
                          std::holds_alternative<spec::AssertLastAssignedFieldId>(value) ||
                          std::holds_alternative<spec::AssertLastAssignedPartitionId>(value);
    if (!commutes) return NotRebased("it has the requirement ", requirement.type());
    auto holds = requirement.Validate(&current);
    if (!holds) return NotRebased(holds.error().message);
  }
  if (append->asserted == nullptr) return NotRebased("it asserts no ref");
  return OkStatus();
}

Status CheckUpdates(const CommitTableRequest& request, AppendRequest* append) {
  for (const auto& update : request.updates) {
    const auto& value = update.value();
    if (const auto* added = std::get_if<spec::AddSnapshot>(&value)) {
      if (append->snapshot || append->set_ref != nullptr) {
        return NotRebased("it adds more than one snapshot");
      }
      append->snapshot = added->snapshot;
    } else if (const auto* set_ref = std::get_if<spec::SetSnapshotRef>(&value)) {
      if (append->set_ref != nullptr || !append->snapshot) {
        return NotRebased("it sets a ref other than to its new snapshot");
      }
      append->set_ref = set_ref;
    } else if (std::holds_alternative<spec::SetProperties>(value) ||
               std::holds_alternative<spec::RemoveProperties>(value)) {
      append->property_updates.push_back(update);
    } else {
      return NotRebased("it has the update ", update.action());
    }
  }
  if (!append->snapshot || append->set_ref == nullptr) {
    return NotRebased("it does not add a snapshot and set a ref to it");
  }
  const spec::Snapshot& snapshot = *append->snapshot;
  if (snapshot.operation() != spec::kOperationAppend) {
    return NotRebased("its snapshot's operation is '", snapshot.operation(), "', not append");
  }
  const auto& ref = *append->set_ref;
  if (ref.ref_name != append->asserted->ref || !ref.ref.is_branch() ||
      ref.ref.snapshot_id != snapshot.snapshot_id) {
    return NotRebased("it does not move the asserted branch to its snapshot");
  }
  if (snapshot.parent_snapshot_id != append->asserted->snapshot_id) {
    return NotRebased("its snapshot's parent is not the asserted snapshot");
  }
  return OkStatus();
}

// The asserted snapshot must be an ancestor of the branch's head: the branch
// moved forward from what the client saw.
Result<spec::SnapshotPtr> BranchHead(const spec::TableMetadata& current,
                                     const AppendRequest& append) {
  const spec::SnapshotRef* ref = current.Ref(append.asserted->ref);
  if (ref == nullptr || !ref->is_branch()) {
    return NotRebased("the branch ", append.asserted->ref, " no longer exists");
  }
  spec::SnapshotPtr head = current.SnapshotById(ref->snapshot_id);
  if (!head) return NotRebased("the branch's snapshot ", ref->snapshot_id, " is missing");
  if (!append.asserted->snapshot_id) return head;  // every branch descends from "empty"
  // Bounded: clients choose parent ids, and a cycle (a snapshot its own
  // parent) must not loop forever under the table's lock.
  size_t steps = current.snapshots.size() + 1;
  for (spec::SnapshotPtr at = head; at && steps-- > 0;) {
    if (at->snapshot_id == *append.asserted->snapshot_id) return head;
    if (!at->parent_snapshot_id) break;
    at = current.SnapshotById(*at->parent_snapshot_id);
  }
  return NotRebased("snapshot ", *append.asserted->snapshot_id, " is no longer an ancestor of ",
                    append.asserted->ref, " (", head->snapshot_id, ")");
}

// A rebase reads manifest lists and manifests whole and parses them (about
// three times a file's size in memory), on as many threads as commit at once.
// A file over kMaxRebaseRead is not rebased, and one over kLargeRebaseRead
// needs one of kLargeRebases slots, held until its rebase ends; with none
// free the request is not rebased either. Not rebased is the 409 the client
// would get from any catalog, and its own retry.
constexpr uint64_t kMaxRebaseRead = 64ull << 20;
constexpr uint64_t kLargeRebaseRead = 8ull << 20;
constexpr std::ptrdiff_t kLargeRebases = 2;

class LargeRebaseSlot {
 public:
  LargeRebaseSlot() = default;
  LargeRebaseSlot(const LargeRebaseSlot&) = delete;
  LargeRebaseSlot& operator=(const LargeRebaseSlot&) = delete;
  ~LargeRebaseSlot() {
    if (held_) Slots().release();
  }
  bool Take() {
    if (!held_) held_ = Slots().try_acquire();
    return held_;
  }

 private:
  static std::counting_semaphore<kLargeRebases>& Slots() {
    static std::counting_semaphore<kLargeRebases> slots(kLargeRebases);
    return slots;
  }
  bool held_ = false;
};

// Where RebaseAppend reads: the table's files, the lists earlier rebases of
// the same batch will write, and the cache of parsed manifest lists.
struct Files {
  io::FileIO& io;
  const TableFileScope& scope;
  const std::vector<UnsyncedFile>& pending;
  cache::ManifestCache& lists;
  LargeRebaseSlot& large;
};

const UnsyncedFile* Pending(const Files& files, const std::string& location) {
  for (const UnsyncedFile& file : files.pending) {
    if (file.location == location) return &file;
  }
  return nullptr;
}

// A client-named file, read only inside the table's scope.
Result<std::string> ReadTableFile(const Files& files, const std::string& location) {
  if (const UnsyncedFile* pending = Pending(files, location)) return *pending->contents;
  auto allowed = files.scope.CheckRead(location);
  if (!allowed) return NotRebased(allowed.error().message);
  // Small files are read at once; a larger one only with a slot, before
  // any of it is read, so commit threads never hold more than the slots'.
  auto bytes = files.io.ReadCheckedFileUpTo(location, *allowed, kLargeRebaseRead);
  if (!bytes) {
    auto size = files.io.FileSize(location);
    if (!size || static_cast<uint64_t>(*size) <= kLargeRebaseRead) {
      return NotRebased("cannot read ", location, ": ", bytes.error().message);
    }
    if (static_cast<uint64_t>(*size) > kMaxRebaseRead) {
      return NotRebased("cannot read ", location, ": it is larger than the ", kMaxRebaseRead >> 20,
                        " MiB a rebase reads");
    }
    if (!files.large.Take()) {
      return NotRebased("the server is rebasing ", kLargeRebases, " appends with files over ",
                        kLargeRebaseRead >> 20, " MiB already (", location, ")");
    }
    bytes = files.io.ReadCheckedFileUpTo(location, *allowed, kMaxRebaseRead);
    if (!bytes) return NotRebased("cannot read ", location, ": ", bytes.error().message);
  }
  return bytes;
}

// A manifest list as written, parsed: the client's (read inside the
// table's scope) or one of this batch's rebases.
Result<std::shared_ptr<const avro::ManifestList>> ParseList(const Files& files,
                                                            const std::string& location) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, ReadTableFile(files, location));
  auto list = avro::ReadManifestList(bytes);
  if (!list) return NotRebased("cannot read ", location, ": ", list.error().message);
  return std::make_shared<const avro::ManifestList>(std::move(*list));
}

// A committed snapshot's manifest list: from the cache, where the rebase
// that wrote it (maybe one of this batch, not written yet) or the last one
// that read it left it — each rebase reads its head's list and its base's,
// which was a head before — else read into it. Inside the table's scope
// either way.
Result<std::shared_ptr<const avro::ManifestList>> CommittedList(const Files& files,
                                                                const std::string& location) {
  auto allowed = files.scope.CheckRead(location);
  if (!allowed) return NotRebased(allowed.error().message);
  if (auto cached = files.lists.CachedManifestList(location)) return cached;
  SKADE_ASSIGN_OR_RAISE(auto list, ParseList(files, location));
  if (!Pending(files, location)) files.lists.InsertManifestList(location, list);
  return list;
}

// Whose manifest list ReadManifests reads. The client's new one is not
// cached: the rebase replaces it.
enum class ListOf { kCommitted, kClient };

Result<std::shared_ptr<const avro::ManifestList>> ReadManifests(const Files& files,
                                                                const spec::Snapshot& snapshot,
                                                                ListOf whose) {
  const std::string& location = snapshot.manifest_list;
  if (location.empty()) {
    return NotRebased("snapshot ", snapshot.snapshot_id, " has no manifest list");
  }
  SKADE_ASSIGN_OR_RAISE(auto list, whose == ListOf::kCommitted ? CommittedList(files, location)
                                                               : ParseList(files, location));
  if (list->metadata.snapshot_id && *list->metadata.snapshot_id != snapshot.snapshot_id) {
    return NotRebased(location, " is not the manifest list of snapshot ", snapshot.snapshot_id);
  }
  return list;
}

// A manifest the appended snapshot wrote: data files it added, nothing else,
// with sequence numbers and row ids left to inheritance.
Status CheckNewManifest(const Files& files, const spec::TableMetadata& current,
                        const spec::Snapshot& snapshot, const spec::ManifestFile& manifest) {
  const std::string& path = manifest.manifest_path;
  if (manifest.content != spec::ManifestContent::kData ||
      manifest.added_snapshot_id != snapshot.snapshot_id || manifest.existing_files_count != 0 ||
      manifest.deleted_files_count != 0 || manifest.existing_rows_count != 0 ||
      manifest.deleted_rows_count != 0) {
    return NotRebased("manifest ", path, " is not a data manifest that only adds files");
  }
  if (manifest.partition_spec_id != current.default_spec_id) {
    return NotRebased("manifest ", path, " has partition spec ", manifest.partition_spec_id,
                      ", the table's is ", current.default_spec_id);
  }
  if (manifest.sequence_number != snapshot.sequence_number) {
    return NotRebased("manifest ", path, " has sequence number ", manifest.sequence_number,
                      ", its snapshot ", snapshot.sequence_number);
  }
  SKADE_ASSIGN_OR_RAISE(std::string bytes, ReadTableFile(files, path));
  auto read = avro::ReadManifest(bytes);
  if (!read) return NotRebased("cannot read ", path, ": ", read.error().message);
  if (read->metadata.content != spec::ManifestContent::kData) {
    return NotRebased("manifest ", path, " is not a data manifest");
  }
  for (const spec::ManifestEntry& entry : read->entries) {
    const bool inherits = entry.status == spec::ManifestEntryStatus::kAdded &&
                          (!entry.snapshot_id || *entry.snapshot_id == snapshot.snapshot_id) &&
                          !entry.sequence_number && !entry.file_sequence_number &&
                          !entry.data_file.first_row_id &&
                          entry.data_file.content == spec::DataFileContent::kData;
    if (!inherits) {
      return NotRebased("manifest ", path, " has an entry (", entry.data_file.file_path,
                        ") that is not an added data file inheriting its sequence number");
    }
  }
  return OkStatus();
}

// The client's new manifests: its list less the asserted snapshot's, which
// must all be there unchanged.
Result<std::vector<spec::ManifestFile>> NewManifests(const Files& files,
                                                     const spec::TableMetadata& current,
                                                     const AppendRequest& append) {
  std::shared_ptr<const avro::ManifestList> base;
  absl::flat_hash_map<std::string_view, const spec::ManifestFile*> inherited;
  if (append.asserted->snapshot_id) {
    spec::SnapshotPtr snapshot = current.SnapshotById(*append.asserted->snapshot_id);
    SKADE_ASSIGN_OR_RAISE(base, ReadManifests(files, *snapshot, ListOf::kCommitted));
    for (const spec::ManifestFile& manifest : base->manifests) {
      inherited.emplace(manifest.manifest_path, &manifest);
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto listed, ReadManifests(files, *append.snapshot, ListOf::kClient));
  std::vector<spec::ManifestFile> added;
  absl::flat_hash_set<std::string> new_paths;  // as parsed: one file, however spelled
  for (const spec::ManifestFile& manifest : listed->manifests) {
    auto it = inherited.find(manifest.manifest_path);
    if (it == inherited.end()) {
      // Listed twice, its rows would count twice in the list skade writes.
      auto parsed = io::Location::Parse(manifest.manifest_path);
      if (!new_paths.insert(parsed ? ClaimForm(*parsed) : manifest.manifest_path).second) {
        return NotRebased("manifest ", manifest.manifest_path, " is listed twice");
      }
      SKADE_RETURN_NOT_OK(CheckNewManifest(files, current, *append.snapshot, manifest));
      added.push_back(manifest);
      continue;
    }
    if (*it->second != manifest) {
      return NotRebased("manifest ", manifest.manifest_path, " of the base snapshot was changed");
    }
    inherited.erase(it);
  }
  if (!inherited.empty()) {
    return NotRebased("its manifest list drops or rewrites ", inherited.size(),
                      " manifest(s) of the base snapshot");
  }
  return added;
}

Result<RebasedAppend> Rebase(const CommitTableRequest& request, const spec::TableMetadata& current,
                             const Files& files) {
  if (!current.PropertyAsBool(kRebaseAppendsProperty, kRebaseAppendsDefault)) {
    return NotRebased(kRebaseAppendsProperty, " is false");
  }
  if (current.format_version < 2) return NotRebased("the table is format v1");
  AppendRequest append;
  SKADE_RETURN_NOT_OK(CheckRequirements(request, current, &append));
  SKADE_RETURN_NOT_OK(CheckUpdates(request, &append));
  const spec::Snapshot& snapshot = *append.snapshot;
  if (current.SnapshotById(snapshot.snapshot_id)) {
    return NotRebased("snapshot ", snapshot.snapshot_id, " already exists");
  }
  if (snapshot.schema_id != current.current_schema_id) {
    return NotRebased("its snapshot was written with schema ",
                      snapshot.schema_id ? StrCat(*snapshot.schema_id) : "(none)",
                      ", the table's is ", current.current_schema_id);
  }
  const bool v3 = current.format_version >= 3;
  if (v3 != (snapshot.first_row_id.has_value() && snapshot.added_rows.has_value())) {
    return NotRebased("its snapshot was not written for format v", current.format_version);
  }
  if (current.last_sequence_number == std::numeric_limits<int64_t>::max()) {
    return NotRebased("the table's last sequence number is the largest there is");
  }
  SKADE_ASSIGN_OR_RAISE(spec::SnapshotPtr head, BranchHead(current, append));
  SKADE_ASSIGN_OR_RAISE(auto added, NewManifests(files, current, append));
  SKADE_ASSIGN_OR_RAISE(auto existing, ReadManifests(files, *head, ListOf::kCommitted));

  auto rebased = std::make_shared<spec::Snapshot>(snapshot);
  rebased->parent_snapshot_id = head->snapshot_id;
  rebased->sequence_number = current.last_sequence_number + 1;
  rebased->timestamp_ms = std::max(snapshot.timestamp_ms, head->timestamp_ms);
  rebased->manifest_list = spec::ManifestListLocation(current, snapshot.snapshot_id, 1, NewUuid());
  spec::CarryTotals(head.get(), &rebased->summary);
  // Says why the parent is not the one the client wrote.
  rebased->summary[kRebasedFromSummaryKey] =
      snapshot.parent_snapshot_id ? StrCat(*snapshot.parent_snapshot_id) : "none";

  avro::ManifestListWriterOptions options;
  options.format_version = current.format_version;
  options.snapshot_id = snapshot.snapshot_id;
  options.parent_snapshot_id = head->snapshot_id;
  options.sequence_number = rebased->sequence_number;
  options.first_row_id = current.next_row_id;
  SKADE_ASSIGN_OR_RAISE(auto writer, avro::ManifestListWriter::Make(options));
  for (spec::ManifestFile& manifest : added) {
    manifest.sequence_number = spec::kUnassignedSequenceNumber;
    manifest.min_sequence_number = spec::kUnassignedSequenceNumber;
    manifest.first_row_id.reset();
    SKADE_RETURN_NOT_OK(writer->Add(manifest));
  }
  for (const spec::ManifestFile& manifest : existing->manifests) {
    SKADE_RETURN_NOT_OK(writer->Add(manifest));
  }
  if (v3) {
    rebased->first_row_id = current.next_row_id;
    rebased->added_rows = writer->next_row_id() - current.next_row_id;
  }
  SKADE_ASSIGN_OR_RAISE(std::string bytes, writer->Finish());
  // The next rebase reads it as its head's list.
  files.lists.InsertManifestList(rebased->manifest_list,
                                 std::make_shared<const avro::ManifestList>(
                                     avro::ManifestList{writer->metadata(), writer->manifests()}));

  RebasedAppend result;
  result.updates.push_back(spec::AddSnapshot{rebased});
  result.updates.push_back(*append.set_ref);
  for (auto& update : append.property_updates) result.updates.push_back(std::move(update));
  result.manifest_list = {rebased->manifest_list,
                          std::make_shared<const std::string>(std::move(bytes))};
  result.replaced_manifest_list = snapshot.manifest_list;
  return result;
}

}  // namespace

Result<RebasedAppend> RebaseAppend(const CommitTableRequest& request,
                                   const spec::TableMetadata& current, const Error& ref_failure,
                                   io::FileIO& io, const TableFileScope& scope,
                                   const std::vector<UnsyncedFile>& pending,
                                   cache::ManifestCache& lists) {
  LargeRebaseSlot large;
  auto rebased = Rebase(request, current, Files{io, scope, pending, lists, large});
  if (rebased) return rebased;
  Error error = ref_failure;
  StrAppend(&error.message, "; not rebased: ", rebased.error().message);
  return tl::unexpected(std::move(error));
}

}  // namespace skade::catalog
