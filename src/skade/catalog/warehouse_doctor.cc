#include "skade/catalog/warehouse_doctor.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "skade/avro/container_writer.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/catalog/journal_recovery.h"
#include "skade/catalog/metadata_files.h"
#include "skade/catalog/table_file_scope.h"
#include "skade/spec/table_locations.h"
#include "skade/store/table_key.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::catalog {

std::string_view DoctorProblemName(DoctorProblemKind kind) {
  switch (kind) {
    case DoctorProblemKind::kTableWithoutNamespace:
      return "table-without-namespace";
    case DoctorProblemKind::kLocationNotAllowed:
      return "location-not-allowed";
    case DoctorProblemKind::kMetadataMissing:
      return "metadata-missing";
    case DoctorProblemKind::kMetadataUnreadable:
      return "metadata-unreadable";
    case DoctorProblemKind::kMetadataLocationMismatch:
      return "metadata-location-mismatch";
    case DoctorProblemKind::kManifestListMissing:
      return "manifest-list-missing";
    case DoctorProblemKind::kManifestListUnreadable:
      return "manifest-list-unreadable";
    case DoctorProblemKind::kManifestMissing:
      return "manifest-missing";
    case DoctorProblemKind::kManifestDamaged:
      return "manifest-damaged";
    case DoctorProblemKind::kJournaledFileDamaged:
      return "journaled-file-damaged";
  }
  return "unknown";
}

size_t DoctorReport::unrepaired() const {
  size_t count = 0;
  for (const auto& problem : problems) count += problem.repair == DoctorRepair::kNone ? 1 : 0;
  return count;
}

std::string DoctorReport::ToJson() const {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("tables", static_cast<int64_t>(tables));
  writer.Field("files-checked", static_cast<int64_t>(files_checked));
  writer.Field("journaled", static_cast<int64_t>(journaled));
  writer.Key("problems");
  writer.StartArray();
  for (const auto& problem : problems) {
    writer.StartObject();
    writer.Field("kind", DoctorProblemName(problem.kind));
    writer.Key("table");
    if (problem.table) {
      writer.String(problem.table->ToString());
    } else {
      writer.Null();
    }
    writer.Field("location", problem.location);
    writer.Field("detail", problem.detail);
    writer.Field("journaled", problem.journaled);
    writer.Key("repair");
    switch (problem.repair) {
      case DoctorRepair::kNone:
        writer.Null();
        break;
      case DoctorRepair::kRewritten:
        writer.String("rewritten");
        break;
      case DoctorRepair::kDropped:
        writer.String("dropped");
        break;
      case DoctorRepair::kReleased:
        writer.String("released");
        break;
    }
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

namespace {

// One run's state: the journal, and what it has found so far.
class Examination {
 public:
  Examination(store::CatalogStore& store, io::FileIO& io, const LocationPolicy& policy,
              const DoctorOptions& options)
      : store_(store), io_(io), policy_(policy), options_(options) {}

  Status Run() {
    SKADE_ASSIGN_OR_RAISE(auto journal, store_.ReadJournaledFiles());
    for (const auto& file : journal) journal_.emplace(file.location, file);
    // Never read outside the allowed roots.
    auto lost = FindUnrebuildableFiles(
        io_, std::move(journal),
        [this](const std::string& location) { return static_cast<bool>(policy_.Check(location)); });
    for (auto& file : lost) unrebuildable_.emplace(file.location, std::move(file.reason));
    report_.journaled = journal_.size();
    SKADE_ASSIGN_OR_RAISE(auto pointers, store_.ReadTablePointers());
    uint64_t done = 0;
    for (const auto& table : pointers.tables) {
      if (options_.progress) options_.progress(done++, pointers.tables.size());
      if (!table.record) continue;
      ++report_.tables;
      SKADE_RETURN_NOT_OK(CheckTable(store::TableIdentifierFromKey(table.table_key),
                                     table.record->metadata_location));
    }
    if (options_.progress) options_.progress(done, pointers.tables.size());
    SKADE_RETURN_NOT_OK(CheckJournal());
    if (options_.repair) SKADE_RETURN_NOT_OK(Repair());
    return OkStatus();
  }

  DoctorReport Take() { return std::move(report_); }

 private:
  void Add(DoctorProblemKind kind, const std::optional<spec::TableIdentifier>& table,
           const std::string& location, std::string detail) {
    reported_.insert(location);
    // An entry that cannot rebuild its file is not a rewrite for repair.
    auto lost = unrebuildable_.find(location);
    bool journaled = journal_.contains(location) && lost == unrebuildable_.end();
    if (lost != unrebuildable_.end()) {
      detail = StrCat(detail, "; its journal entry cannot rebuild it: ", lost->second);
    }
    report_.problems.push_back({kind, table, location, std::move(detail), journaled});
  }

  Status CheckTable(const spec::TableIdentifier& table, const std::string& location) {
    SKADE_ASSIGN_OR_RAISE(auto ns, store_.GetNamespace(table.ns));
    if (!ns) {
      Add(DoctorProblemKind::kTableWithoutNamespace, table, location,
          StrCat("namespace ", spec::NamespaceToString(table.ns), " does not exist"));
    }
    if (Status allowed = policy_.Check(location); !allowed) {
      Add(DoctorProblemKind::kLocationNotAllowed, table, location, allowed.error().message);
      return OkStatus();
    }
    ++report_.files_checked;
    auto file = ReadMetadataFile(io_, location);
    bool missing = !file && file.error().kind == ErrorKind::kNotFound;
    allowed_metadata_.emplace_back(location, missing);
    if (!file) {
      Add(missing ? DoctorProblemKind::kMetadataMissing : DoctorProblemKind::kMetadataUnreadable,
          table, location, file.error().message);
      return OkStatus();
    }
    ++metadata_found_;
    const spec::TableMetadata& metadata = *file->metadata;
    CheckMetadataPlace(table, location, metadata);
    TableFileScope scope(metadata, policy_);
    std::set<int64_t> snapshot_ids;
    if (options_.all_snapshots) {
      for (const auto& snapshot : metadata.snapshots) snapshot_ids.insert(snapshot->snapshot_id);
    } else {
      for (const auto& [name, ref] : metadata.refs) snapshot_ids.insert(ref.snapshot_id);
      if (metadata.current_snapshot_id) snapshot_ids.insert(*metadata.current_snapshot_id);
    }
    std::map<std::string, int64_t> manifests;  // location → recorded length
    for (int64_t id : snapshot_ids) {
      auto snapshot = metadata.SnapshotById(id);
      if (!snapshot) continue;  // the metadata parser rejects refs to unknown snapshots
      for (const auto& manifest : snapshot->manifests) manifests.emplace(manifest, 0);
      if (!snapshot->manifest_list.empty()) {
        CheckManifestList(table, scope, snapshot->manifest_list, &manifests);
      }
    }
    for (const auto& [manifest, length] : manifests) CheckManifest(table, scope, manifest, length);
    return OkStatus();
  }

  // Every metadata file is written into the metadata directory of the table
  // it describes; one outside it is most likely another table's (copied or
  // restored over this one's), whose location and uuid the table would now
  // take. Reported only: which file is right is the operator's call.
  void CheckMetadataPlace(const spec::TableIdentifier& table, const std::string& location,
                          const spec::TableMetadata& metadata) {
    auto file = policy_.Normalize(location);
    if (!file) return;  // passed Check, so normalises
    // `<location>/metadata` is accepted too when `write.metadata.path` is
    // set: a writer that ignores the property puts its files there.
    const std::string directory = spec::MetadataDirectory(metadata);
    for (const std::string& allowed : {directory, JoinLocation(metadata.location, "metadata")}) {
      auto normalized = policy_.Normalize(allowed);
      if (normalized && file->IsUnder(*normalized)) return;
    }
    Add(DoctorProblemKind::kMetadataLocationMismatch, table, location,
        StrCat("the file describes the table at ", metadata.location, " (uuid ",
               metadata.table_uuid.empty() ? "none" : metadata.table_uuid,
               ") but lies outside that table's metadata directory ", directory,
               ": it is probably another table's file, copied or restored over this one's. "
               "Not repaired: point the table at one of its own metadata files (skade table "
               "register --overwrite ",
               spec::QuotedIdentifier(table),
               " LOCATION), or if this file is right, at a copy of it in ", directory));
  }

  void CheckManifestList(const spec::TableIdentifier& table, const TableFileScope& scope,
                         const std::string& location, std::map<std::string, int64_t>* manifests) {
    // Read where the check said it leads, through no link made since.
    auto resolved = scope.CheckRead(location);
    if (!resolved) {
      Add(DoctorProblemKind::kLocationNotAllowed, table, location, resolved.error().message);
      return;
    }
    ++report_.files_checked;
    auto bytes = io_.ReadCheckedFileUpTo(location, *resolved, kMaxMetadataReadBytes);
    if (!bytes) {
      Add(bytes.error().kind == ErrorKind::kNotFound ? DoctorProblemKind::kManifestListMissing
                                                     : DoctorProblemKind::kManifestListUnreadable,
          table, location, bytes.error().message);
      return;
    }
    auto list = avro::ReadManifestList(*bytes);
    if (!list) {
      Add(DoctorProblemKind::kManifestListUnreadable, table, location, list.error().message);
      return;
    }
    for (const auto& manifest : list->manifests) {
      manifests->emplace(manifest.manifest_path, manifest.manifest_length);
    }
  }

  // Its length, and its first 4 bytes (one small read, not the manifest):
  // a file zeroed or torn at its own length has the right size.
  void CheckManifest(const spec::TableIdentifier& table, const TableFileScope& scope,
                     const std::string& location, int64_t length) {
    // Read where the check said it leads.
    auto resolved = scope.CheckRead(location);
    if (!resolved) {
      Add(DoctorProblemKind::kLocationNotAllowed, table, location, resolved.error().message);
      return;
    }
    ++report_.files_checked;
    auto file = io_.NewInputFile(resolved->ToString());
    if (!file) {
      Add(file.error().kind == ErrorKind::kNotFound ? DoctorProblemKind::kManifestMissing
                                                    : DoctorProblemKind::kManifestDamaged,
          table, location, file.error().message);
      return;
    }
    int64_t size = (*file)->Size();
    if (length > 0 && size != length) {
      Add(DoctorProblemKind::kManifestDamaged, table, location,
          StrCat("the file has ", size, " bytes, its manifest list says ", length));
      return;
    }
    char magic[sizeof(avro::kMagic)];
    auto read = (*file)->ReadAt(0, sizeof(magic), magic);
    if (!read) {
      Add(DoctorProblemKind::kManifestDamaged, table, location, read.error().message);
    } else if (*read != static_cast<int64_t>(sizeof(magic)) ||
               !std::equal(magic, magic + sizeof(magic), avro::kMagic)) {
      Add(DoctorProblemKind::kManifestDamaged, table, location,
          "not an Avro file (it does not start with Obj\\x01): torn, or overwritten");
    }
  }

  // Journaled files no table check reported: the catalog's next open would
  // rewrite a missing or different one.
  Status CheckJournal() {
    for (const auto& [location, file] : journal_) {
      if (reported_.contains(location)) continue;
      if (Status allowed = policy_.Check(location); !allowed) {
        Add(DoctorProblemKind::kLocationNotAllowed, std::nullopt, location,
            StrCat("journaled: ", allowed.error().message));
        continue;
      }
      ++report_.files_checked;
      auto bytes = io_.ReadFileUpTo(location, kMaxMetadataReadBytes);
      if (bytes && store::Holds(file, *bytes)) continue;  // intact: the flusher releases it
      if (!bytes && bytes.error().kind != ErrorKind::kNotFound &&
          bytes.error().kind != ErrorKind::kInvalidArgument) {
        return tl::unexpected(bytes.error());
      }
      Add(DoctorProblemKind::kJournaledFileDamaged, std::nullopt, location,
          bytes ? "differs from its journaled bytes" : bytes.error().message);
    }
    return OkStatus();
  }

  Status Repair() {
    if (options_.drop_dangling && metadata_found_ == 0 && report_.tables > 0 &&
        std::any_of(report_.problems.begin(), report_.problems.end(), Dangling)) {
      // Every table gone at once is a warehouse not there (unmounted, moved,
      // a wrong --warehouse), not tables to forget.
      return InvalidArgument("Not dropping any table: none of the ", report_.tables,
                             " tables' metadata files is there. Is the warehouse mounted, and is "
                             "it the right one? (Drop a table that is really gone by itself.)");
    }
    std::vector<std::string> rewrite;
    std::set<std::string> allowed;
    for (const auto& problem : report_.problems) {
      if (problem.journaled && problem.kind != DoctorProblemKind::kLocationNotAllowed &&
          problem.kind != DoctorProblemKind::kTableWithoutNamespace &&
          allowed.insert(problem.location).second) {
        rewrite.push_back(problem.location);
      }
    }
    std::set<std::string> rewritten;
    std::map<std::string, std::string> in_the_way;  // location → why it was not rewritten
    std::vector<store::JournaledFile> entries;
    for (const auto& [location, file] : journal_) entries.push_back(file);
    JournalSnapshot journal(io_, std::move(entries), ReadBaseWithin(policy_));
    // One at a time, as the catalog's recovery: what is in one file's way
    // keeps only that one.
    for (const std::string& location : rewrite) {
      SKADE_ASSIGN_OR_RAISE(RestoreOutcome outcome,
                            RestoreAlone(io_, store_, policy_, journal, location));
      // Also a file restored by another process before the hold is right now.
      if (outcome.restored) rewritten.insert(location);
      if (!outcome.in_the_way.empty()) in_the_way.emplace(location, outcome.in_the_way);
    }
    for (auto& problem : report_.problems) {
      if (problem.kind == DoctorProblemKind::kLocationNotAllowed ||
          problem.kind == DoctorProblemKind::kTableWithoutNamespace) {
        continue;
      }
      if (rewritten.contains(problem.location)) problem.repair = DoctorRepair::kRewritten;
      if (auto why = in_the_way.find(problem.location); why != in_the_way.end()) {
        problem.detail = StrCat(problem.detail, "; not rewritten: ", why->second);
      }
    }
    if (!options_.drop_dangling) return OkStatus();
    const std::map<std::string, std::string> kept = PointersToKeep();
    for (auto& problem : report_.problems) {
      if (!Dangling(problem)) continue;
      if (auto why = kept.find(problem.location); why != kept.end()) {
        problem.detail = StrCat(problem.detail, "; not dropped: ", why->second,
                                " (drop a table that is really gone by itself: skade table drop ",
                                spec::QuotedIdentifier(*problem.table), ")");
        continue;
      }
      SKADE_ASSIGN_OR_RAISE(bool dropped, DropIfDangling(*problem.table, problem.location));
      if (dropped) problem.repair = DoctorRepair::kDropped;
    }
    // What cannot be rebuilt is lost already; its entry would keep the
    // catalog from opening.
    std::vector<std::string> release;
    for (const auto& [location, reason] : unrebuildable_) release.push_back(location);
    SKADE_RETURN_NOT_OK(store_.ReleaseJournaledFiles(release));
    // Only the journal's own problem is repaired by it: a table whose
    // current file is damaged stays a problem.
    for (auto& problem : report_.problems) {
      if (unrebuildable_.contains(problem.location) && problem.repair == DoctorRepair::kNone &&
          problem.kind == DoctorProblemKind::kJournaledFileDamaged) {
        problem.repair = DoctorRepair::kReleased;
      }
    }
    return OkStatus();
  }

  // A pointer to missing metadata the journal cannot rebuild.
  static bool Dangling(const DoctorProblem& problem) {
    return problem.kind == DoctorProblemKind::kMetadataMissing && !problem.journaled;
  }

  // The root a metadata file lies under, as warehouse_doctor.h says: the
  // warehouse, else the outermost location the policy allows above it (the
  // policy does not tell its roots; an allowed location's parents are
  // allowed up to the root).
  io::Location RootOf(const io::Location& location) const {
    if (location.IsUnder(policy_.warehouse_directory())) return policy_.warehouse_directory();
    io::Location root = location;
    for (io::Location up = root.Parent(); up != root && policy_.Check(up); up = root.Parent()) {
      root = up;
    }
    return root;
  }

  // Whether the directory `location` holds anything besides the store's own
  // directory; false also when it cannot be listed (nothing is dropped on
  // what cannot be told).
  bool HoldsFiles(const io::Location& location) const {
    auto names = io_.ListDirectory(location.ToString());
    if (!names) return false;
    return std::any_of(names->begin(), names->end(), [&](const std::string& name) {
      return location.Child(name) != policy_.reserved_directory();
    });
  }

  // The dangling pointers not to drop, by metadata location, each with why:
  // those under a root that looks not mounted (warehouse_doctor.h).
  std::map<std::string, std::string> PointersToKeep() const {
    struct Root {
      io::Location location;
      uint64_t tables = 0;
      uint64_t missing = 0;
      std::vector<std::string> dangling;
    };
    std::set<std::string> dangling;
    for (const auto& problem : report_.problems) {
      if (Dangling(problem)) dangling.insert(problem.location);
    }
    std::map<std::string, Root> roots;
    for (const auto& [location, missing] : allowed_metadata_) {
      auto normalized = policy_.Normalize(location);
      if (!normalized) continue;  // passed Check, so normalises
      io::Location root = RootOf(*normalized);
      Root& entry = roots.try_emplace(root.ToString(), Root{root}).first->second;
      ++entry.tables;
      entry.missing += missing ? 1 : 0;
      if (dangling.contains(location)) entry.dangling.push_back(location);
    }
    std::map<std::string, std::string> kept;
    for (const auto& [name, root] : roots) {
      if (root.dangling.empty()) continue;
      const std::string shown = DescribeLocations({root.location});
      std::string why;
      if (!HoldsFiles(root.location)) {
        why = StrCat("root ", shown,
                     " looks unmounted: its directory is missing, empty or cannot be listed");
      } else if (root.tables > 1 && root.missing == root.tables) {
        why = StrCat("root ", shown, " looks unmounted: all ", root.tables,
                     " tables under it are missing");
      }
      for (const std::string& location : root.dangling) {
        if (!why.empty()) {
          kept.emplace(location, why);
          continue;
        }
        if (root.tables > 1) continue;
        // One table: its missing file is all the root says. Its directory
        // holding other files shows the storage under it is there.
        auto directory = policy_.Normalize(io::ParentLocation(location));
        if (!directory || !HoldsFiles(*directory)) {
          kept.emplace(location,
                       StrCat("it is the only table under root ", shown,
                              " and the directory of its metadata file is missing or empty: a "
                              "root not mounted cannot be told from a table deleted"));
        }
      }
    }
    return kept;
  }

  // Drops `table` if its pointer still names `location` and that is still
  // missing. (A commit cannot move such a pointer: it reads the current
  // metadata first.)
  Result<bool> DropIfDangling(const spec::TableIdentifier& table, const std::string& location) {
    SKADE_ASSIGN_OR_RAISE(auto record, store_.GetTable(table));
    if (!record || record->metadata_location != location) return false;
    SKADE_ASSIGN_OR_RAISE(bool exists, io_.Exists(location));
    if (exists) return false;
    // Unconditional: the store has no drop that compares the pointer. What
    // landed since the check (a register --overwrite) is seen in what was
    // dropped, and said, since only the operator can put it back.
    auto dropped = store_.DropTable(table);
    if (!dropped) {
      if (dropped.error().kind == ErrorKind::kNoSuchTable) return false;
      return tl::unexpected(dropped.error());
    }
    if (dropped->metadata_location != location || dropped->table_id != record->table_id) {
      return MakeError(ErrorKind::kCommitFailed, "Dropped ", table.ToString(),
                       " while it was registered again (at ", dropped->metadata_location,
                       ") after the doctor found its metadata file ", location,
                       " missing; put it back: skade table register ",
                       spec::QuotedIdentifier(table), " ", dropped->metadata_location);
    }
    return true;
  }

  store::CatalogStore& store_;
  io::FileIO& io_;
  const LocationPolicy& policy_;
  const DoctorOptions& options_;
  std::map<std::string, store::JournaledFile> journal_;  // by location
  std::map<std::string, std::string> unrebuildable_;     // location → why (journal_recovery.h)
  std::set<std::string> reported_;
  // Tables whose metadata file the policy allows: its location, and
  // whether it is missing.
  std::vector<std::pair<std::string, bool>> allowed_metadata_;
  uint64_t metadata_found_ = 0;  // tables whose current metadata file was read
  DoctorReport report_;
};

}  // namespace

Result<DoctorReport> WarehouseDoctor::Run(const DoctorOptions& options) {
  Examination examination(store_, io_, policy_, options);
  SKADE_RETURN_NOT_OK(examination.Run());
  return examination.Take();
}

}  // namespace skade::catalog
