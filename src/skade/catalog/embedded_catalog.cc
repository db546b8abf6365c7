#include "skade/catalog/embedded_catalog.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "skade/cache/epoch.h"
#include "skade/catalog/append_rebase.h"
#include "skade/catalog/journal_recovery.h"
#include "skade/catalog/skade_table_properties.h"
#include "skade/catalog/table_file_scope.h"
#include "skade/catalog/table_location_claims.h"
#include "skade/catalog/table_purge.h"
#include "skade/io/file_io_registry.h"
#include "skade/io/location.h"
#include "skade/io/tracking_file_io.h"
#include "skade/spec/catalog_errors.h"
#include "skade/spec/new_table_metadata.h"
#include "skade/spec/table_locations.h"
#include "skade/spec/table_metadata_builder.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/spec/table_properties.h"
#include "skade/store/table_key.h"
#include "skade/util/log.h"
#include "skade/util/random.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::catalog {

namespace {

// Deletes a client-named file of a table if it is in the table's scope,
// checked again now and deleted through no link made since.
void DeleteInScope(io::FileIO& io, const TableFileScope& scope, const std::string& location) {
  auto resolved = scope.CheckDelete(location);
  if (!resolved) {
    LogWarning(StrCat("cleanup skipped ", resolved.error().message));
    return;
  }
  (void)io.DeleteCheckedFile(location, *resolved);  // an unreferenced file is harmless
}

constexpr char kReservedNamespace[] = ".skade";

// `loaded` as right after `snapshot_id` became main's head: the file of the
// commit that added it may hold later snapshots too (a transaction of
// several, or concurrent appends batched into one commit), so main (and
// the snapshot log) are set back to it. Unchanged when it is main's head or
// no ancestor of it (a snapshot of another branch).
LoadTableResult WithMainAt(LoadTableResult loaded, int64_t snapshot_id) {
  const spec::TableMetadata& metadata = *loaded.metadata;
  auto main = metadata.refs.find(spec::kMainBranch);
  if (main == metadata.refs.end() || main->second.snapshot_id == snapshot_id) return loaded;
  // Main's snapshots after it; bounded, as a registered file's parents may
  // form a cycle.
  std::set<int64_t> later;
  spec::SnapshotPtr snapshot = metadata.SnapshotById(main->second.snapshot_id);
  for (size_t steps = 0; snapshot && snapshot->snapshot_id != snapshot_id;
       snapshot = metadata.SnapshotById(*snapshot->parent_snapshot_id), ++steps) {
    if (steps == metadata.snapshots.size() || !snapshot->parent_snapshot_id) return loaded;
    later.insert(snapshot->snapshot_id);
  }
  if (!snapshot) return loaded;
  auto rewound = std::make_shared<spec::TableMetadata>(metadata);
  rewound->refs[spec::kMainBranch].snapshot_id = snapshot_id;
  rewound->current_snapshot_id = snapshot_id;
  // The log lists main's heads as commits left them, so it may not name
  // this one (a commit logs only the last of those it adds).
  auto& log = rewound->snapshot_log;
  while (!log.empty() && later.contains(log.back().snapshot_id)) log.pop_back();
  if (log.empty() || log.back().snapshot_id != snapshot_id) {
    log.push_back({snapshot->timestamp_ms, snapshot_id});
  }
  loaded.metadata_json = spec::TableMetadataToSharedJson(*rewound);
  loaded.metadata = std::move(rewound);
  return loaded;
}

Status ValidateNewNamespace(const Namespace& ns) {
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  if (ns.front() == kReservedNamespace) {
    return InvalidArgument("Invalid namespace: '", kReservedNamespace, "' is reserved");
  }
  return OkStatus();
}

// Short randomized pause between attempts after losing a pointer swap to
// another process, so contending writers spread out.
void BackOff(int attempt) {
  int max_us = std::min(50 << std::min(attempt, 6), 5000);
  std::this_thread::sleep_for(std::chrono::microseconds(RandomU64() % (max_us + 1)));
}

}  // namespace

struct EmbeddedCatalog::PreparedCommit {
  TableIdentifier identifier;
  std::optional<std::string> base_location;  // nullopt when creating the table
  spec::TableMetadataPtr metadata;
  std::shared_ptr<const std::string> json;
  std::string new_location;  // empty when nothing changed
  std::vector<int64_t> added_snapshot_ids;
  std::vector<std::string> snapshot_operations;  // parallel to added_snapshot_ids
  std::vector<CommitOrigin> origins;             // of the requests it answers
  std::vector<std::string> cleanup_files;        // deleted once committed
  // Set by WritePrepared when the file is journaled: its bytes as written.
  std::shared_ptr<const std::string> journaled_bytes;
  // The base file's JSON text, which the journal may keep the new file as a
  // difference from (store::JournaledFile::base), and where `json` copies a
  // text (set by WritePrepared).
  std::shared_ptr<const std::string> base_json;
  spec::CopiedText json_copies;
  // The request's unsynced files that go into the journal with the swap.
  std::vector<UnsyncedFile> unsynced_files;
  // Manifest lists of rebased appends (append_rebase.h), written with the
  // metadata file, and the client lists they replace (deleted once committed).
  std::vector<UnsyncedFile> rebased_manifest_lists;
  std::vector<std::string> replaced_files;
  // The records of the REST requests this commit answers, written with the
  // swap (CommitTableRequest::idempotency).
  std::vector<IdempotencyRecord> idempotency_records;
  // The locations the table claims with this commit, when it is created or
  // its roots change (PointerSwap::owned_locations).
  std::optional<std::vector<std::string>> owned_locations;
};

Result<std::shared_ptr<EmbeddedCatalog>> EmbeddedCatalog::Open(
    const EmbeddedCatalogOptions& options) {
  if (options.warehouse.empty()) return InvalidArgument("A warehouse directory is required");
  SKADE_ASSIGN_OR_RAISE(io::Location warehouse, io::Location::ParseUserInput(options.warehouse));
  std::shared_ptr<io::FileIO> base_io = options.file_io;
  if (!base_io) {
    SKADE_ASSIGN_OR_RAISE(base_io, io::FileIORegistry::Default().Create(
                                       warehouse.ToString(), options.file_io_properties));
  }
  // As the storage names it (locally: symbolic links resolved), so that
  // default table locations match the roots the location policy resolves.
  SKADE_ASSIGN_OR_RAISE(warehouse, base_io->ResolveLocation(warehouse));
  // The default store is an LMDB directory inside the warehouse, so a
  // warehouse elsewhere (an object store) needs a store named on its own.
  std::string store_path;
  if (options.store.empty()) {
    auto path = io::LocalPath(warehouse.ToString());
    if (!path) {
      return InvalidArgument("The warehouse ", warehouse.ToString(),
                             " is not on a local file system, so the catalog store cannot live in "
                             "it: name a local directory for the store (--store DIR)");
    }
    store_path = DefaultStorePath(*path);
  }

  std::shared_ptr<EmbeddedCatalog> catalog(new EmbeddedCatalog());
  catalog->warehouse_location_ = warehouse.ToString();
  if (catalog->warehouse_location_.ends_with('/')) catalog->warehouse_location_.pop_back();
  catalog->durability_ = options.durability;
  if (options.durability == store::Durability::kImmediate) {
    catalog->journal_max_bytes_ = options.journal_max_bytes;
  }
  catalog->max_commit_attempts_ = std::max(1, options.max_commit_attempts);
  catalog->default_requester_ = options.default_requester;
  // Below immediate, files are written without sync; the tracking FileIO
  // tells the flusher which, including the manifests and data files that
  // tables and ingest write through file_io_ptr().
  std::shared_ptr<io::TrackingFileIO> tracking_io;
  if (options.durability != store::Durability::kImmediate) {
    tracking_io = std::make_shared<io::TrackingFileIO>(std::move(base_io));
    catalog->io_ = tracking_io;
  } else {
    catalog->io_ = std::move(base_io);
  }
  catalog->location_policy_ = std::make_unique<LocationPolicy>(
      catalog->warehouse_location_, options.allowed_locations, catalog->io_);
  cache::MetadataCacheOptions cache_options;
  cache_options.capacity_bytes = options.metadata_cache_bytes;
  SKADE_ASSIGN_OR_RAISE(catalog->metadata_cache_, cache::MetadataCache::Make(cache_options));
  catalog->manifest_cache_ =
      options.manifest_cache ? options.manifest_cache : std::make_shared<cache::ManifestCache>();
  store::CatalogStoreOptions store_options;
  store_options.durability = options.durability;
  store_options.group_commit = options.group_commit;
  store_options.map_size = options.store_map_size;
  SKADE_ASSIGN_OR_RAISE(
      catalog->store_,
      store::CatalogStore::Open(options.store.empty() ? store_path : options.store, store_options));
  if (options.store.empty()) {
    // The default store syncs its files, not the directories they are in:
    // without this a power loss soon after the warehouse was created could
    // take the whole store. Cheap on every later open (the directories are
    // clean).
    SKADE_ASSIGN_OR_RAISE(auto store_io, io::FileIORegistry::Default().Create(store_path));
    SKADE_RETURN_NOT_OK(store_io->SyncDirectory(store_path));
  }
  // The warehouse is the operator's directory, not a client's: the files
  // commits create ahead of need are made there. After the store, which
  // makes the warehouse directory when it is new.
  catalog->io_->MakeSpareFilesIn(catalog->warehouse_location_);
  // Before anything is served, at every level: the journal may hold files of
  // an earlier process at immediate.
  if (options.recover_journal) {
    SKADE_RETURN_NOT_OK(
        RecoverJournaledFiles(*catalog->io_, *catalog->store_, *catalog->location_policy_));
    SKADE_RETURN_NOT_OK(
        ClaimUnclaimedTables(*catalog->io_, *catalog->store_, *catalog->location_policy_));
  }
  SKADE_ASSIGN_OR_RAISE(catalog->mirror_, TablePointerMirror::Open(catalog->store_.get()));
  SKADE_ASSIGN_OR_RAISE(catalog->commit_log_index_,
                        index::CommitLogIndex::Open(catalog->store_.get(), io::NewLocalFileIO(),
                                                    options.commit_log_index));
  if (tracking_io) {
    // At none the flusher has no thread: it runs once, at the clean close.
    int interval_ms = options.durability == store::Durability::kEventual
                          ? std::max(1, options.flush_interval_ms)
                          : 0;
    catalog->flusher_ = std::make_unique<MetadataFlusher>(tracking_io.get(), tracking_io.get(),
                                                          catalog->store_.get(), interval_ms);
  } else if (catalog->journal_max_bytes_ > 0) {
    catalog->flusher_ = std::make_unique<MetadataFlusher>(
        catalog->io_.get(), nullptr, catalog->store_.get(), std::max(1, options.flush_interval_ms));
  }
  if (options.commit_log_retention_ms > 0) {
    catalog->retention_ = std::make_unique<CommitLogRetention>(
        catalog->store_.get(), options.commit_log_retention_ms,
        std::max<int64_t>(1, options.commit_log_retention_interval_ms));
  }
  return catalog;
}

std::string EmbeddedCatalog::DefaultStorePath(std::string_view warehouse_path) {
  return StrCat(warehouse_path, "/", kReservedNamespace, "/catalog");
}

// The flusher's final round needs the store and the FileIO: it goes first.
EmbeddedCatalog::~EmbeddedCatalog() {
  retention_.reset();
  flusher_.reset();
}

Status EmbeddedCatalog::Flush() { return flusher_ ? flusher_->Flush() : OkStatus(); }

namespace {

// `<warehouse>/<namespace levels>/<name>`, each part encoded, with `suffix`
// appended to part `suffixed` (0 the first namespace level, ns.size() the
// name).
std::string TableLocationUnder(std::string_view warehouse, const TableIdentifier& identifier,
                               size_t suffixed, std::string_view suffix) {
  std::string location(warehouse);
  for (size_t i = 0; i <= identifier.ns.size(); ++i) {
    const std::string& part = i < identifier.ns.size() ? identifier.ns[i] : identifier.name;
    StrAppend(&location, "/", spec::EncodePathComponent(part), i == suffixed ? suffix : "");
  }
  return location;
}

}  // namespace

std::string EmbeddedCatalog::DefaultTableLocation(const TableIdentifier& identifier) const {
  return TableLocationUnder(warehouse_location_, identifier, 0, "");
}

TableLocks::Held EmbeddedCatalog::LockTable(const TableIdentifier& identifier) {
  return table_locks_.Lock(store::TableKey(identifier));
}

Result<std::optional<store::TableRecord>> EmbeddedCatalog::FindTable(
    const TableIdentifier& identifier) {
  {
    cache::EpochGuard guard;
    SKADE_ASSIGN_OR_RAISE(const auto* pointer, mirror_->Find(identifier));
    if (pointer != nullptr) {
      return store::TableRecord{pointer->table_id(), std::string(pointer->metadata_location())};
    }
  }
  return store_->GetTable(identifier);
}

Result<std::optional<uint64_t>> EmbeddedCatalog::FindTableId(const TableIdentifier& identifier) {
  {
    cache::EpochGuard guard;
    SKADE_ASSIGN_OR_RAISE(const auto* pointer, mirror_->Find(identifier));
    if (pointer != nullptr) return std::optional<uint64_t>(pointer->table_id());
  }
  SKADE_ASSIGN_OR_RAISE(auto record, store_->GetTable(identifier));
  if (!record) return std::optional<uint64_t>();
  return std::optional<uint64_t>(record->table_id);
}

Result<MetadataFile> EmbeddedCatalog::ReadMetadata(const std::string& location) {
  return metadata_cache_->GetOrLoad(location, cache::MetadataCache::Hash(location), [&] {
    return ReadOwnMetadataFile(*location_policy_, location);
  });
}

Result<MetadataFile> EmbeddedCatalog::ReadHistoricalMetadata(const std::string& location) {
  std::optional<MetadataFile> cached;
  {
    cache::EpochGuard guard;
    if (const auto* file =
            metadata_cache_->Lookup(location, cache::MetadataCache::Hash(location))) {
      cached = *file;
    }
  }
  if (!cached) return ReadOwnMetadataFile(*location_policy_, location);
  // Asked of the disk too, so the answer does not depend on the cache: a
  // file deleted since is gone, cached or not.
  SKADE_ASSIGN_OR_RAISE(bool exists, io_->Exists(location));
  if (!exists) return MakeError(ErrorKind::kNotFound, "File does not exist: ", location);
  return std::move(*cached);
}

Status EmbeddedCatalog::ReleaseDeltasOn(const std::vector<std::string>& files) {
  // Any process's: the journal is the warehouse's.
  SKADE_ASSIGN_OR_RAISE(auto dependents, store_->ReadJournaledDeltasOn(files));
  if (dependents.empty()) return OkStatus();
  // Complete on disk (written before their swaps committed): synced, they
  // no longer need their entries, nor the base.
  SKADE_RETURN_NOT_OK(io_->SyncFiles(dependents));
  return store_->ReleaseJournaledFiles(dependents);
}

void EmbeddedCatalog::DiscardFile(const std::string& location) {
  // An unreferenced file is harmless; removing it just keeps the warehouse tidy.
  (void)io_->DeleteFile(location);
}

// --- Namespaces ---------------------------------------------------------------

Status EmbeddedCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  SKADE_RETURN_NOT_OK(ValidateNewNamespace(ns));
  return store_->CreateNamespace(ns, properties);
}

Result<Page<Namespace>> EmbeddedCatalog::ListNamespaces(const Namespace& parent,
                                                        const PageRequest& page) {
  if (!parent.empty()) SKADE_RETURN_NOT_OK(spec::ValidateNamespace(parent));
  SKADE_ASSIGN_OR_RAISE(auto result,
                        store_->ListNamespaces(parent, page.page_token, page.page_size));
  Page<Namespace> out{std::move(result.items), std::move(result.next_page_token)};
  // The store's own directory is not a namespace.
  std::erase_if(out.items, [](const Namespace& ns) { return ns.front() == kReservedNamespace; });
  return out;
}

Result<Properties> EmbeddedCatalog::LoadNamespaceProperties(const Namespace& ns) {
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  SKADE_ASSIGN_OR_RAISE(auto properties, store_->GetNamespace(ns));
  if (!properties) return spec::NoSuchNamespace(ns);
  return std::move(*properties);
}

Result<bool> EmbeddedCatalog::NamespaceExists(const Namespace& ns) {
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  SKADE_ASSIGN_OR_RAISE(auto properties, store_->GetNamespace(ns));
  return properties.has_value();
}

Status EmbeddedCatalog::DropNamespace(const Namespace& ns) {
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  return store_->DropNamespace(ns);
}

Result<UpdateNamespacePropertiesResult> EmbeddedCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::vector<std::string>& removals, const Properties& updates) {
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  for (const auto& key : removals) {
    if (updates.count(key) != 0) {
      return InvalidArgument("Duplicate key to update and remove: ", key);
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto missing, store_->UpdateNamespaceProperties(ns, removals, updates));
  UpdateNamespacePropertiesResult result;
  for (const auto& [key, value] : updates) result.updated.push_back(key);
  for (const auto& key : removals) {
    if (std::find(missing.begin(), missing.end(), key) == missing.end()) {
      result.removed.push_back(key);
    }
  }
  result.missing = std::move(missing);
  return result;
}

// --- Tables -----------------------------------------------------------------

Result<Page<TableIdentifier>> EmbeddedCatalog::ListTables(const Namespace& ns,
                                                          const PageRequest& page) {
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  SKADE_ASSIGN_OR_RAISE(auto result, store_->ListTables(ns, page.page_token, page.page_size));
  return Page<TableIdentifier>{std::move(result.items), std::move(result.next_page_token)};
}

Result<LoadTableResult> EmbeddedCatalog::CreateTable(const Namespace& ns,
                                                     const CreateTableRequest& request) {
  TableIdentifier identifier{ns, request.name};
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  if (!request.schema)
    return InvalidArgument("Cannot create table ", identifier.ToString(), ": no schema");
  SKADE_ASSIGN_OR_RAISE(auto ns_properties, store_->GetNamespace(ns));
  if (!ns_properties) return spec::NoSuchNamespace(ns);
  SKADE_ASSIGN_OR_RAISE(auto existing, FindTable(identifier));
  if (existing) return spec::TableAlreadyExists(identifier);
  if (request.location) return CreateTableAt(identifier, request, *request.location);
  auto created = CreateTableAt(identifier, request, DefaultTableLocation(identifier));
  if (created || created.error().kind != ErrorKind::kForbidden) {
    return created;
  }
  // The default location belongs to another table (one renamed from this
  // name keeps its files there): a location of this table's own beside it.
  const std::string suffix = StrCat("-", NewUuid().substr(0, 8));
  created = CreateTableAt(
      identifier, request,
      TableLocationUnder(warehouse_location_, identifier, identifier.ns.size(), suffix));
  if (created || created.error().kind != ErrorKind::kForbidden || identifier.ns.empty()) {
    return created;
  }
  // Or the namespace's directory lies inside another table's (namespace
  // `a.t` nests in table `a.t`'s directory): the namespace path beside it.
  return CreateTableAt(identifier, request,
                       TableLocationUnder(warehouse_location_, identifier, 0, suffix));
}

Result<LoadTableResult> EmbeddedCatalog::CreateTableAt(const TableIdentifier& identifier,
                                                       const CreateTableRequest& request,
                                                       std::string location) {
  while (location.size() > 1 && location.ends_with('/')) location.pop_back();
  SKADE_RETURN_NOT_OK(CheckSkadeProperties(request.properties));
  SKADE_ASSIGN_OR_RAISE(
      auto metadata,
      spec::NewTableMetadata(
          *request.schema,
          request.partition_spec ? *request.partition_spec : *spec::PartitionSpec::Unpartitioned(),
          request.write_order ? *request.write_order : *spec::SortOrder::Unsorted(), location,
          request.properties));
  std::string first_location = spec::NewMetadataLocation(*metadata, 0);
  SKADE_RETURN_NOT_OK(CheckLocations(*metadata, first_location));
  SKADE_ASSIGN_OR_RAISE(auto owned_locations, OwnedLocations(*metadata, *location_policy_));
  // Refused before its directories are made, not only by the swap (which
  // checks again: a table created meanwhile may still leave them behind).
  SKADE_RETURN_NOT_OK(store_->CheckLocationsFree(identifier, owned_locations));
  // A staged table's too: its client writes data, manifests and a manifest
  // list before the commit that creates it.
  SKADE_RETURN_NOT_OK(CreateTableDirectories(*metadata));
  if (request.stage_create) {
    return LoadTableResult{
        "", metadata, std::make_shared<const std::string>(spec::TableMetadataToJson(*metadata))};
  }
  PreparedCommit commit{identifier, std::nullopt, metadata, nullptr, first_location};
  commit.owned_locations = std::move(owned_locations);
  if (request.idempotency) commit.idempotency_records.push_back(*request.idempotency);
  commit.origins.push_back(request.origin);
  SKADE_RETURN_NOT_OK(WritePrepared(commit));
  auto swapped = SwapAlone(commit);
  if (!swapped) {
    if (swapped.error().kind == ErrorKind::kCommitStateUnknown) {
      AfterSwap(commit);
    } else {
      DiscardFile(commit.new_location);
    }
    return tl::unexpected(swapped.error());
  }
  AfterSwap(commit);
  return LoadTableResult{commit.new_location, commit.metadata, commit.json};
}

Result<LoadTableResult> EmbeddedCatalog::LoadTable(const TableIdentifier& identifier) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  {
    cache::EpochGuard guard;
    SKADE_ASSIGN_OR_RAISE(const auto* pointer, mirror_->Find(identifier));
    if (pointer != nullptr) {
      if (const auto* file =
              metadata_cache_->Lookup(pointer->metadata_location(), pointer->location_hash())) {
        return LoadTableResult{std::string(pointer->metadata_location()), file->metadata,
                               file->json};
      }
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto record, FindTable(identifier));
  if (!record) return spec::NoSuchTable(identifier);
  SKADE_ASSIGN_OR_RAISE(auto file, ReadMetadata(record->metadata_location));
  return LoadTableResult{std::move(record->metadata_location), std::move(file.metadata),
                         std::move(file.json)};
}

bool EmbeddedCatalog::HoldsCurrentMetadata(const TableIdentifier& identifier) {
  cache::EpochGuard guard;
  auto pointer = mirror_->Find(identifier);
  return pointer && *pointer != nullptr &&
         metadata_cache_->Holds((*pointer)->metadata_location(), (*pointer)->location_hash());
}

Result<spec::TableMetadataPtr> EmbeddedCatalog::ResolveMetadata(const TableIdentifier& identifier) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  {
    cache::EpochGuard guard;
    SKADE_ASSIGN_OR_RAISE(const auto* pointer, mirror_->Find(identifier));
    if (pointer != nullptr) {
      if (const auto* file =
              metadata_cache_->Lookup(pointer->metadata_location(), pointer->location_hash())) {
        return file->metadata;
      }
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto loaded, LoadTable(identifier));
  return std::move(loaded.metadata);
}

Result<bool> EmbeddedCatalog::TableExists(const TableIdentifier& identifier) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  {
    cache::EpochGuard guard;
    SKADE_ASSIGN_OR_RAISE(const auto* pointer, mirror_->Find(identifier));
    if (pointer != nullptr) return true;
  }
  SKADE_ASSIGN_OR_RAISE(auto record, store_->GetTable(identifier));
  return record.has_value();
}

Status EmbeddedCatalog::DropTable(const TableIdentifier& identifier, bool purge) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  auto dropped = [&] {
    const auto held = LockTable(identifier);
    return store_->DropTable(identifier);
  }();
  SKADE_ASSIGN_OR_RAISE(auto record, std::move(dropped));
  if (!purge) return OkStatus();
  // The table is gone from the catalog either way, so purging is best effort
  // and runs off the table's lock: it reads and deletes many files, each
  // named by client-written metadata and checked against the table's scope.
  auto file = ReadMetadata(record.metadata_location);
  if (!file) {
    LogWarning(
        StrCat("purge of ", identifier.ToString(), " read no metadata: ", file.error().message));
    return OkStatus();
  }
  // Released before they are deleted, so that no recovery brings a
  // journaled metadata file back (these are the metadata files the purge
  // deletes). If the store cannot release them, the files stay. The log is
  // client-written: only files in the table's scope, so that another
  // table's journaled file keeps its entry.
  const TableFileScope scope(*file->metadata, *location_policy_);
  std::vector<std::string> metadata_files{record.metadata_location};
  for (const auto entry : file->metadata->metadata_log) {
    std::string logged(entry.metadata_file);
    if (scope.Check(logged)) metadata_files.push_back(std::move(logged));
  }
  Status released = ReleaseDeltasOn(metadata_files);
  if (released) released = store_->ReleaseJournaledFiles(metadata_files);
  if (!released) {
    LogWarning(
        StrCat("purge of ", identifier.ToString(),
               " skipped: journaled metadata files not released: ", released.error().message));
    return OkStatus();
  }
  // Its locations were released with the drop: a table that owns one now
  // was made there since (or shares it from an older store), and keeps it.
  auto purged = PurgeTableFiles(*io_, *file->metadata, record.metadata_location, scope,
                                FilesOwnedByTables(*store_, *location_policy_));
  if (!purged) {
    LogWarning(StrCat("purge of ", identifier.ToString(), " incomplete: ", purged.error().message));
  }
  return OkStatus();
}

Status EmbeddedCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(from));
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(to));
  return store_->RenameTable(from, to);
}

Result<LoadTableResult> EmbeddedCatalog::RegisterTable(const TableIdentifier& identifier,
                                                       const std::string& metadata_location,
                                                       bool overwrite, const CommitOrigin& origin) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  // Checked before anything is read, so a client learns nothing about files
  // outside the allowed roots (the same 403 whether or not one exists), nor
  // through a link inside them. Then read as every later load reads it: a
  // link in the file's own place is refused now, not after a restart.
  if (auto checked = location_policy_->CheckRead(metadata_location); !checked) {
    return tl::unexpected(checked.error());
  }
  auto read = metadata_cache_->GetOrLoad(
      metadata_location, cache::MetadataCache::Hash(metadata_location),
      [&] { return ReadOwnMetadataFile(*location_policy_, metadata_location); });
  if (!read) {
    // The file is the client's choice: an unreadable one is bad input.
    if (read.error().kind == ErrorKind::kNotFound || read.error().kind == ErrorKind::kForbidden) {
      return tl::unexpected(read.error());
    }
    return InvalidArgument("Cannot register ", identifier.ToString(), ": ", read.error().message);
  }
  MetadataFile file = std::move(*read);
  // After the cache: a vended-credentials register loaded it there first.
  SKADE_RETURN_NOT_OK(CheckMetadataFileKeys(file, metadata_location));
  SKADE_RETURN_NOT_OK(CheckLocations(*file.metadata, metadata_location));
  SKADE_ASSIGN_OR_RAISE(auto owned, OwnedLocations(*file.metadata, *location_policy_));
  const auto held = LockTable(identifier);
  const auto recorded = RecordedOrigins({&origin, 1});
  auto mode = store::RegisterMode::kNew;
  if (overwrite) {
    // A file of the table registered already (its uuid) keeps its history;
    // another table's replaces it, as a drop and a create would — also when
    // the table's own metadata cannot tell (unreadable, or no uuid), so two
    // tables' histories are never mixed.
    mode = store::RegisterMode::kReplace;
    auto replaced = LoadTable(identifier);
    if (replaced && !file.metadata->table_uuid.empty() &&
        replaced->metadata->table_uuid == file.metadata->table_uuid) {
      mode = store::RegisterMode::kRepoint;
    }
  }
  SKADE_RETURN_NOT_OK(store_->RegisterTable(identifier, metadata_location, mode,
                                            recorded.empty() ? CommitOrigin{} : recorded.front(),
                                            owned));
  return LoadTableResult{metadata_location, std::move(file.metadata), std::move(file.json)};
}

// --- Commits ------------------------------------------------------------------

Result<EmbeddedCatalog::PreparedCommit> EmbeddedCatalog::Prepare(
    std::span<const CommitTableRequest* const> requests, std::vector<Status>* outcomes) {
  const CommitTableRequest& first = *requests.front();
  outcomes->assign(requests.size(), OkStatus());
  PreparedCommit commit;
  commit.identifier = first.identifier;
  SKADE_ASSIGN_OR_RAISE(auto record, FindTable(first.identifier));

  if (CreatesTable(first)) {  // always alone in its batch (table_commit_queue.h)
    if (first.requirements.size() != 1) {
      return InvalidArgument("Invalid create request: assert-create must be the only requirement");
    }
    if (record) return CommitFailed("Requirement failed: table already exists");
    SKADE_RETURN_NOT_OK(CheckUnsyncedLocations(first));
    int format_version = spec::kDefaultFormatVersion;
    for (const auto& update : first.updates) {
      if (auto* upgrade = std::get_if<spec::UpgradeFormatVersion>(&update.value())) {
        format_version = upgrade->format_version;
      }
    }
    SKADE_RETURN_NOT_OK(CheckSkadePropertyUpdates(first.updates));
    auto builder = spec::TableMetadataBuilder::BuildFromEmpty(format_version);
    SKADE_RETURN_NOT_OK(builder.SetLocation(DefaultTableLocation(first.identifier)));
    SKADE_RETURN_NOT_OK(builder.ApplyAll(first.updates));
    SKADE_ASSIGN_OR_RAISE(commit.metadata, builder.Build());
    if (first.idempotency) commit.idempotency_records.push_back(*first.idempotency);
    commit.origins.push_back(first.origin);
    commit.new_location = spec::NewMetadataLocation(*commit.metadata, 0);
    SKADE_ASSIGN_OR_RAISE(commit.owned_locations,
                          OwnedLocations(*commit.metadata, *location_policy_));
    for (const auto& snapshot : commit.metadata->snapshots) {
      commit.added_snapshot_ids.push_back(snapshot->snapshot_id);
      commit.snapshot_operations.push_back(snapshot->operation());
    }
    return commit;
  }

  if (!record) return spec::NoSuchTable(first.identifier);
  SKADE_ASSIGN_OR_RAISE(auto current, ReadMetadata(record->metadata_location));
  commit.base_location = record->metadata_location;
  commit.base_json = current.json;
  // Each request applies to the table as the ones before it left it; the
  // first to change something logs the base file in the metadata log.
  spec::TableMetadataPtr at = current.metadata;
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string& log_location =
        at == current.metadata ? record->metadata_location : std::string();
    auto applied = ApplyRequest(*requests[i], at, log_location, &commit);
    if (!applied) {
      (*outcomes)[i] = tl::unexpected(std::move(applied.error()));
      continue;
    }
    at = std::move(*applied);
    // Its answer goes into the store with the swap that commits it.
    if (requests[i]->idempotency) commit.idempotency_records.push_back(*requests[i]->idempotency);
    commit.origins.push_back(requests[i]->origin);
  }
  if (at == current.metadata) {
    commit.metadata = current.metadata;
    commit.json = current.json;
    return commit;
  }
  commit.metadata = std::move(at);
  if (!SameOwnedRoots(*current.metadata, *commit.metadata)) {
    SKADE_ASSIGN_OR_RAISE(commit.owned_locations,
                          OwnedLocations(*commit.metadata, *location_policy_));
  }
  int64_t version = spec::ParseMetadataVersion(record->metadata_location);
  if (version == std::numeric_limits<int64_t>::max()) {  // a registered file may say so
    return InvalidArgument("Cannot commit to ", first.identifier.ToString(), ": metadata version ",
                           version, " cannot be incremented");
  }
  commit.new_location = spec::NewMetadataLocation(*commit.metadata, version + 1);
  return commit;
}

Result<EmbeddedCatalog::PreparedCommit> EmbeddedCatalog::PrepareOne(
    const CommitTableRequest& request) {
  const CommitTableRequest* requests[] = {&request};
  std::vector<Status> outcomes;
  SKADE_ASSIGN_OR_RAISE(PreparedCommit commit, Prepare(requests, &outcomes));
  SKADE_RETURN_NOT_OK(outcomes.front());
  return commit;
}

Result<spec::TableMetadataPtr> EmbeddedCatalog::ApplyRequest(const CommitTableRequest& request,
                                                             const spec::TableMetadataPtr& at,
                                                             const std::string& log_location,
                                                             PreparedCommit* commit) {
  SKADE_RETURN_NOT_OK(CheckUnsyncedLocations(request));
  for (const auto& requirement : request.requirements) {
    auto holds = requirement.Validate(at.get());
    if (holds) continue;
    if (!std::holds_alternative<spec::AssertRefSnapshotId>(requirement.value())) {
      return tl::unexpected(std::move(holds.error()));
    }
    // The branch moved since the client loaded the table: an append can be
    // rebased onto where it is now (append_rebase.h).
    SKADE_ASSIGN_OR_RAISE(
        RebasedAppend rebased,
        RebaseAppend(request, *at, holds.error(), *io_, TableFileScope(*at, *location_policy_),
                     commit->rebased_manifest_lists, *manifest_cache_));
    SKADE_ASSIGN_OR_RAISE(auto metadata, ApplyUpdates(rebased.updates, at, log_location, commit));
    commit->rebased_manifest_lists.push_back(std::move(rebased.manifest_list));
    commit->replaced_files.push_back(std::move(rebased.replaced_manifest_list));
    return metadata;
  }
  return ApplyUpdates(request.updates, at, log_location, commit);
}

Result<spec::TableMetadataPtr> EmbeddedCatalog::ApplyUpdates(
    const std::vector<spec::TableUpdate>& updates, const spec::TableMetadataPtr& at,
    const std::string& log_location, PreparedCommit* commit) {
  auto builder = spec::TableMetadataBuilder::BuildFrom(at, log_location);
  SKADE_RETURN_NOT_OK(builder.ApplyAll(updates));
  if (!builder.HasChanges()) return at;
  // Only what this request changes: a table registered with a bad value
  // stays writable.
  SKADE_RETURN_NOT_OK(CheckSkadePropertyUpdates(builder.changes()));
  SKADE_ASSIGN_OR_RAISE(auto metadata, builder.Build());
  // Here, not with the batch's claims: a bad root fails its request alone.
  if (!SameOwnedRoots(*at, *metadata)) {
    SKADE_RETURN_NOT_OK(CheckOwnRoots(*metadata, *location_policy_));
  }
  for (const auto& change : builder.changes()) {
    if (auto* added = std::get_if<spec::AddSnapshot>(&change.value())) {
      commit->added_snapshot_ids.push_back(added->snapshot->snapshot_id);
      commit->snapshot_operations.push_back(added->snapshot->operation());
    }
  }
  for (auto& file : CleanupFiles(*metadata, builder.removed_metadata_log())) {
    commit->cleanup_files.push_back(std::move(file));
  }
  return metadata;
}

Status EmbeddedCatalog::CheckLocations(const spec::TableMetadata& metadata,
                                       const std::string& metadata_file) const {
  SKADE_RETURN_NOT_OK(location_policy_->Check(metadata.location));
  return location_policy_->Check(metadata_file);
}

Status EmbeddedCatalog::CreateTableDirectories(const spec::TableMetadata& metadata) {
  for (const std::string& directory :
       {spec::MetadataDirectory(metadata), spec::DataDirectory(metadata)}) {
    // `write.data.path` may lead outside the roots skade owns: the client's
    // to make, then.
    if (!location_policy_->Check(directory)) continue;
    SKADE_RETURN_NOT_OK(location_policy_->CreateDirectories(directory));
  }
  return OkStatus();
}

Status EmbeddedCatalog::WritePrepared(PreparedCommit& commit) {
  // Every metadata file skade writes passes here: the one place that keeps
  // client-chosen locations inside the allowed roots.
  SKADE_RETURN_NOT_OK(CheckLocations(*commit.metadata, commit.new_location));
  for (const UnsyncedFile& list : commit.rebased_manifest_lists) {
    // Journaled with the swap like the metadata file, or durable before it.
    bool journaled = journal_max_bytes_ > 0 && list.contents->size() <= journal_max_bytes_;
    SKADE_RETURN_NOT_OK(
        location_policy_->WriteFile(list.location, *list.contents, durable_files() && !journaled));
    if (journaled) commit.unsynced_files.push_back(list);
  }
  EncodedMetadataFile file = EncodeMetadataFile(*commit.metadata, commit.new_location);
  // A journaled file is durable through the store, with the swap.
  bool journaled = journal_max_bytes_ > 0 && file.bytes->size() <= journal_max_bytes_;
  SKADE_RETURN_NOT_OK(
      location_policy_->WriteFile(commit.new_location, *file.bytes, durable_files() && !journaled));
  commit.json = std::move(file.json);
  commit.json_copies = std::move(file.copied);
  if (journaled) commit.journaled_bytes = std::move(file.bytes);
  // Cached before the pointer swap, so the first read after the commit hits.
  // Safe: the location is new and the file complete, and nothing looks it up
  // until a pointer names it (if the swap fails, the entry just ages out).
  metadata_cache_->Insert(commit.new_location, cache::MetadataCache::Hash(commit.new_location),
                          {commit.metadata, commit.json});
  return OkStatus();
}

std::vector<CommitOrigin> EmbeddedCatalog::RecordedOrigins(
    std::span<const CommitOrigin> requested) const {
  std::vector<CommitOrigin> out;
  for (CommitOrigin origin : requested) {
    if (origin.requester.empty()) origin.requester = default_requester_;
    if (origin != CommitOrigin{} && std::find(out.begin(), out.end(), origin) == out.end()) {
      out.push_back(std::move(origin));
    }
  }
  if (out.empty() && !default_requester_.empty()) out.push_back({default_requester_, ""});
  return out;
}

Result<std::vector<store::TableRecord>> EmbeddedCatalog::SwapAlone(const PreparedCommit& commit) {
  std::vector<store::PointerSwap> swaps;
  swaps.push_back(SwapOf(commit));
  return store_->SwapPointers(swaps);
}

store::PointerSwap EmbeddedCatalog::SwapOf(const PreparedCommit& commit) const {
  store::PointerSwap swap{commit.identifier,   commit.base_location, commit.new_location, {}, {},
                          commit.cleanup_files};
  // Only what the new file holds: a request may remove a snapshot it or an
  // earlier request of the batch added, and the log must not name it.
  for (size_t i = 0; i < commit.added_snapshot_ids.size(); ++i) {
    if (commit.metadata->SnapshotById(commit.added_snapshot_ids[i]) == nullptr) continue;
    swap.added_snapshot_ids.push_back(commit.added_snapshot_ids[i]);
    swap.snapshot_operations.push_back(commit.snapshot_operations[i]);
  }
  swap.origins = RecordedOrigins(commit.origins);
  swap.owned_locations = commit.owned_locations;
  if (commit.journaled_bytes) {
    store::JournaledFile file{commit.new_location, commit.journaled_bytes, std::nullopt, {}};
    // A gzip file shares nothing with its base's text.
    if (commit.base_location && commit.base_json &&
        commit.journaled_bytes.get() == commit.json.get()) {
      file.base = store::JournalBase{*commit.base_location, commit.base_json, {}};
      // Where the serializer copied the base's text, the journal copies it
      // without comparing the two.
      if (commit.json_copies.from == commit.base_json) file.base->copied = commit.json_copies.runs;
    }
    swap.journaled_files.push_back(std::move(file));
  }
  for (const UnsyncedFile& file : commit.unsynced_files) {
    swap.journaled_files.push_back({file.location, file.contents});
  }
  for (IdempotencyRecord record : commit.idempotency_records) {
    if (record.status == 200) {  // a table answer: the file this swap commits
      record.table = commit.identifier;
      record.metadata_location = commit.new_location;
      record.table_uuid = commit.metadata->table_uuid;
    }
    swap.idempotency_records.push_back(std::move(record));
  }
  return swap;
}

void EmbeddedCatalog::AfterSwap(const PreparedCommit& commit) {
  if (!flusher_) return;
  if (commit.journaled_bytes) flusher_->AddJournaled(commit.new_location);
  for (const UnsyncedFile& file : commit.unsynced_files) flusher_->AddJournaled(file.location);
}

size_t EmbeddedCatalog::UnsyncedFileLimit(const io::FileIO& io) const {
  return &io == io_.get() ? journal_max_bytes_ : 0;
}

Status EmbeddedCatalog::CheckUnsyncedLocations(const CommitTableRequest& request) const {
  for (const UnsyncedFile& file : request.unsynced_files) {
    SKADE_RETURN_NOT_OK(location_policy_->Check(file.location));
  }
  return OkStatus();
}

Status EmbeddedCatalog::TakeUnsyncedFiles(const CommitTableRequest& request,
                                          PreparedCommit* commit) {
  for (const UnsyncedFile& file : request.unsynced_files) {
    if (journal_max_bytes_ > 0 && file.contents->size() <= journal_max_bytes_) {
      commit->unsynced_files.push_back(file);
      continue;
    }
    // Not journaled: durable before the pointer that needs it. (Below
    // immediate the flusher syncs it, as every file written through io_.)
    if (durable_files()) {
      SKADE_RETURN_NOT_OK(io_->SyncFile(file.location));
      SKADE_RETURN_NOT_OK(io_->SyncDirectory(io::ParentLocation(file.location)));
    }
  }
  return OkStatus();
}

std::vector<std::string> EmbeddedCatalog::CleanupFiles(const spec::TableMetadata& metadata,
                                                       const spec::MetadataLog& removed) const {
  std::vector<std::string> files;
  if (!metadata.PropertyAsBool(spec::kDeleteAfterCommitEnabled,
                               spec::kDeleteAfterCommitEnabledDefault)) {
    return files;
  }
  // The log's entries are client-written: delete only the table's own files.
  TableFileScope scope(metadata, *location_policy_);
  for (const auto& entry : removed) {
    std::string file(entry.metadata_file);
    auto owned = scope.Check(file);
    if (owned) {
      files.push_back(std::move(file));
    } else {
      LogWarning(StrCat("metadata cleanup skipped ", owned.error().message));
    }
  }
  return files;
}

void EmbeddedCatalog::AfterCommit(const PreparedCommit& commit) {
  AfterSwap(commit);
  if (commit.cleanup_files.empty() && commit.replaced_files.empty()) return;
  const TableFileScope scope(*commit.metadata, *location_policy_);
  // Their journal entries went with the swap (PointerSwap::released_files).
  if (Status released = ReleaseDeltasOn(commit.cleanup_files); !released) {
    LogWarning(StrCat("metadata cleanup skipped: ", released.error().message));
  } else {
    for (const auto& location : commit.cleanup_files) DeleteInScope(*io_, scope, location);
  }
  // Client manifest lists a rebase replaced: read through the table's scope,
  // and deleted only if no snapshot names them (a client may name any file).
  for (const auto& location : commit.replaced_files) {
    bool referenced = std::any_of(
        commit.metadata->snapshots.begin(), commit.metadata->snapshots.end(),
        [&](const spec::SnapshotPtr& snapshot) { return snapshot->manifest_list == location; });
    if (!referenced) DeleteInScope(*io_, scope, location);
  }
}

void EmbeddedCatalog::DiscardWritten(const PreparedCommit& commit) {
  if (!commit.new_location.empty()) DiscardFile(commit.new_location);
  for (const auto& list : commit.rebased_manifest_lists) DiscardFile(list.location);
}

Result<LoadTableResult> EmbeddedCatalog::CommitTable(const CommitTableRequest& request) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(request.identifier));
  auto result = commit_queue_.Commit(
      request,
      [this](std::span<const CommitTableRequest* const> batch) { return CommitBatch(batch); });
  if (result) {
    commit_stats_.logical_commits.Increment();
  } else if (result.error().kind == ErrorKind::kCommitFailed) {
    commit_stats_.conflicts.Increment();
  }
  return result;
}

std::vector<Result<LoadTableResult>> EmbeddedCatalog::CommitBatch(
    std::span<const CommitTableRequest* const> requests) {
  auto answers = CommitBatchLocked(requests);
  // Some failures of the merged commit are one request's, not the batch's:
  // another process answered one of its Idempotency-Keys meanwhile, one
  // moved the table where it may not be (a location outside the allowed
  // roots or another table's), or one named a metadata path that cannot be
  // written (kInvalidArgument from writing the file). Commit the requests one
  // by one, so that only that request learns it — but only when the merged
  // commit failed as a whole: once it committed, or may have (its state is
  // unknown), a request that failed on its own (its own answer) must not
  // make the others commit twice.
  const bool none_committed = std::none_of(answers.begin(), answers.end(), [](const auto& answer) {
    return answer.has_value() || answer.error().kind == ErrorKind::kCommitStateUnknown;
  });
  bool one_requests_failure = std::any_of(answers.begin(), answers.end(), [](const auto& answer) {
    return !answer && (answer.error().kind == ErrorKind::kIdempotencyKeyUsed ||
                       answer.error().kind == ErrorKind::kForbidden ||
                       answer.error().kind == ErrorKind::kInvalidArgument);
  });
  if (none_committed && one_requests_failure && requests.size() > 1) {
    answers.clear();
    for (const CommitTableRequest* request : requests) {
      answers.push_back(std::move(CommitBatchLocked({&request, 1}).front()));
    }
  }
  return answers;
}

std::vector<Result<LoadTableResult>> EmbeddedCatalog::CommitBatchLocked(
    std::span<const CommitTableRequest* const> requests) {
  std::vector<Status> outcomes(requests.size(), OkStatus());
  // Requests that failed on their own keep their error; the others get
  // `result`.
  auto answer = [&](const Result<LoadTableResult>& result) {
    std::vector<Result<LoadTableResult>> answers;
    for (const Status& outcome : outcomes) {
      if (outcome) {
        answers.push_back(result);
      } else {
        answers.push_back(tl::unexpected(outcome.error()));
      }
    }
    return answers;
  };
  const CommitTableRequest& first = *requests.front();
  const auto held = LockTable(first.identifier);
  for (int attempt = 0; attempt < max_commit_attempts_; ++attempt) {
    auto prepared = Prepare(requests, &outcomes);
    if (!prepared) {
      outcomes.assign(requests.size(), OkStatus());
      return answer(tl::unexpected(prepared.error()));
    }
    PreparedCommit& commit = *prepared;
    if (commit.new_location.empty()) {
      return answer(LoadTableResult{*commit.base_location, commit.metadata, commit.json});
    }
    Status written = OkStatus();
    for (size_t i = 0; i < requests.size() && written; ++i) {
      if (outcomes[i]) written = TakeUnsyncedFiles(*requests[i], &commit);
    }
    if (written) written = WritePrepared(commit);
    if (!written) {
      DiscardWritten(commit);
      return answer(tl::unexpected(written.error()));
    }
    auto swapped = SwapAlone(commit);
    if (swapped) {
      commit_stats_.physical_commits.Increment();
      commit_stats_.rebases.Increment(commit.rebased_manifest_lists.size());
      commit_stats_.batch_size.Observe(static_cast<double>(std::count_if(
          outcomes.begin(), outcomes.end(), [](const Status& s) { return s.has_value(); })));
      AfterCommit(commit);
      return answer(LoadTableResult{commit.new_location, commit.metadata, commit.json});
    }
    const Error& error = swapped.error();
    if (error.kind == ErrorKind::kCommitStateUnknown) {
      AfterSwap(commit);
      return answer(tl::unexpected(error));
    }
    DiscardWritten(commit);
    if (!error.retryable) {
      if (error.kind == ErrorKind::kAlreadyExists && CreatesTable(first)) {
        return answer(CommitFailed("Requirement failed: table already exists"));
      }
      return answer(tl::unexpected(error));
    }
    commit_stats_.swap_retries.Increment();
    BackOff(attempt);
  }
  return answer(MakeRetryableError(
      ErrorKind::kCommitFailed, "Commit failed: table ", first.identifier.ToString(),
      " is changing too fast; gave up after ", max_commit_attempts_, " attempts"));
}

Status EmbeddedCatalog::CommitTransaction(const std::vector<CommitTableRequest>& requests) {
  Status status = CommitTransactionUncounted(requests);
  if (status) {
    commit_stats_.logical_commits.Increment(requests.size());
  } else if (status.error().kind == ErrorKind::kCommitFailed) {
    commit_stats_.conflicts.Increment();
  }
  return status;
}

Status EmbeddedCatalog::CommitTransactionUncounted(
    const std::vector<CommitTableRequest>& requests) {
  std::set<std::string> keys;
  for (const auto& request : requests) {
    SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(request.identifier));
    if (!keys.insert(store::TableKey(request.identifier)).second) {
      return InvalidArgument("Invalid transaction: table ", request.identifier.ToString(),
                             " appears more than once");
    }
  }
  // In key order (the set's), so concurrent transactions cannot deadlock.
  std::vector<TableLocks::Held> locks;
  locks.reserve(keys.size());
  for (const std::string& key : keys) locks.push_back(table_locks_.Lock(key));

  for (int attempt = 0; attempt < max_commit_attempts_; ++attempt) {
    std::vector<PreparedCommit> commits;
    for (const auto& request : requests) {
      SKADE_ASSIGN_OR_RAISE(PreparedCommit commit, PrepareOne(request));
      if (!commit.new_location.empty()) SKADE_RETURN_NOT_OK(TakeUnsyncedFiles(request, &commit));
      commits.push_back(std::move(commit));
    }
    std::vector<store::PointerSwap> swaps;
    Status written = OkStatus();
    bool changes = false;
    for (auto& commit : commits) {
      if (commit.new_location.empty()) {
        // A table the transaction only checks: its requirements held against
        // this pointer, so the swap asserts it is still the pointer, in the
        // same store transaction (another process may change it meanwhile).
        swaps.push_back(store::PointerSwap::CompareOnly(commit.identifier, *commit.base_location));
        continue;
      }
      written = WritePrepared(commit);
      if (!written) break;
      changes = true;
      swaps.push_back(SwapOf(commit));
    }
    auto discard_all = [&] {
      for (const auto& commit : commits) DiscardWritten(commit);
    };
    if (!written) {
      discard_all();
      return written;
    }
    if (!changes) return OkStatus();
    auto swapped = store_->SwapPointers(swaps);
    if (swapped) {
      for (const auto& commit : commits) {
        if (commit.new_location.empty()) continue;
        commit_stats_.physical_commits.Increment();
        commit_stats_.rebases.Increment(commit.rebased_manifest_lists.size());
        AfterCommit(commit);
      }
      return OkStatus();
    }
    const Error& error = swapped.error();
    if (error.kind == ErrorKind::kCommitStateUnknown) {
      for (const auto& commit : commits) AfterSwap(commit);
      return tl::unexpected(error);
    }
    discard_all();
    if (!error.retryable) return tl::unexpected(error);
    commit_stats_.swap_retries.Increment();
    BackOff(attempt);
  }
  return MakeRetryableError(
      ErrorKind::kCommitFailed,
      "Commit failed: the transaction's tables are changing too fast; gave up "
      "after ",
      max_commit_attempts_, " attempts");
}

// --- Idempotency records ------------------------------------------------------

Result<std::optional<IdempotencyRecord>> EmbeddedCatalog::FindIdempotencyRecord(
    const std::string& key, int64_t now_ms) {
  return store_->FindIdempotencyRecord(key, now_ms);
}

Result<IdempotencyRecord> EmbeddedCatalog::RecordIdempotency(const IdempotencyRecord& record) {
  return store_->RecordIdempotency(record);
}

Result<LoadTableResult> EmbeddedCatalog::LoadTableFromMetadata(
    const TableIdentifier& identifier, const std::string& metadata_location) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  SKADE_RETURN_NOT_OK(location_policy_->Check(metadata_location));
  // Cleaned up since (write.metadata.delete-after-commit, a purge): the
  // table as it is now is an answer the REST spec allows. Asked of the
  // disk, as the metadata cache may still hold a deleted file.
  SKADE_ASSIGN_OR_RAISE(bool exists, io_->Exists(metadata_location));
  if (!exists) return LoadTable(identifier);
  auto file = ReadMetadata(metadata_location);
  if (file) return LoadTableResult{metadata_location, std::move(file->metadata), file->json};
  if (file.error().kind != ErrorKind::kNotFound) return tl::unexpected(file.error());
  return LoadTable(identifier);
}

// --- Time travel ----------------------------------------------------------------

Result<LoadTableResult> EmbeddedCatalog::LoadCommitted(const TableIdentifier& identifier,
                                                       const std::string& location,
                                                       std::string_view what) {
  auto file = ReadHistoricalMetadata(location);
  if (!file && file.error().kind == ErrorKind::kNotFound) {
    return MakeError(ErrorKind::kNotFound, "The metadata file of ", what, " of table ",
                     identifier.ToString(), ", ", location,
                     ", no longer exists (deleted by write.metadata.delete-after-commit.enabled "
                     "or by hand)");
  }
  if (!file) return tl::unexpected(file.error());
  return LoadTableResult{location, std::move(file->metadata), std::move(file->json)};
}

Result<LoadTableResult> EmbeddedCatalog::LoadTableAt(const TableIdentifier& identifier,
                                                     int64_t snapshot_id) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  SKADE_ASSIGN_OR_RAISE(auto table_id, FindTableId(identifier));
  if (!table_id) return spec::NoSuchTable(identifier);
  SKADE_ASSIGN_OR_RAISE(auto location, commit_log_index_->Find(*table_id, snapshot_id));
  if (!location) {
    // Snapshots that predate the table's registration are not in the commit
    // log; the current metadata still knows them.
    SKADE_ASSIGN_OR_RAISE(auto current, LoadTable(identifier));
    if (current.metadata->SnapshotById(snapshot_id)) return WithMainAt(current, snapshot_id);
    return MakeError(ErrorKind::kNotFound, "Cannot find snapshot ", snapshot_id, " in table ",
                     identifier.ToString());
  }
  auto committed = LoadCommitted(identifier, *location, StrCat("snapshot ", snapshot_id));
  if (!committed && committed.error().kind == ErrorKind::kNotFound) {
    // That file was cleaned up; the current metadata may still hold the
    // snapshot.
    auto current = LoadTable(identifier);
    if (current && current->metadata->SnapshotById(snapshot_id)) {
      return WithMainAt(std::move(*current), snapshot_id);
    }
  }
  if (!committed) return tl::unexpected(committed.error());
  return WithMainAt(std::move(*committed), snapshot_id);
}

Result<LoadTableResult> EmbeddedCatalog::LoadTableAsOf(const TableIdentifier& identifier,
                                                       int64_t timestamp_ms) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  SKADE_ASSIGN_OR_RAISE(auto table_id, FindTableId(identifier));
  if (!table_id) return spec::NoSuchTable(identifier);
  SKADE_ASSIGN_OR_RAISE(auto commit, store_->FindCommitAsOf(*table_id, timestamp_ms));
  if (!commit) {
    SKADE_ASSIGN_OR_RAISE(auto retained, store_->ReadCommitLogPage(0, 0));
    // (pruned_before_ms is 0 until retention ran: a time before 1970 is not
    // its doing.)
    if (retained.bounds.pruned_through > 0 && timestamp_ms < retained.bounds.pruned_before_ms) {
      return MakeError(ErrorKind::kNotFound, "Table ", identifier.ToString(),
                       " has no commit at or before ", timestamp_ms,
                       " ms that the commit log still keeps: retention pruned its history before ",
                       retained.bounds.pruned_before_ms, " ms");
    }
    return MakeError(ErrorKind::kNotFound, "Table ", identifier.ToString(),
                     " has no commit at or before ", timestamp_ms, " ms");
  }
  return LoadCommitted(identifier, commit->second.metadata_location,
                       StrCat("commit ", commit->first));
}

Result<std::vector<std::optional<std::string>>> EmbeddedCatalog::ResolveMany(
    std::span<const SnapshotKey> keys) {
  std::vector<std::optional<std::string>> out(keys.size());
  std::vector<index::SnapshotIndexKey> lookups;
  std::vector<size_t> lookup_at;
  lookups.reserve(keys.size());
  lookup_at.reserve(keys.size());
  // Planning asks for runs of one table's snapshots: its id is found once
  // per run.
  std::optional<uint64_t> table_id;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || keys[i].table != keys[i - 1].table) {
      table_id.reset();
      if (spec::ValidateTableIdentifier(keys[i].table)) {
        SKADE_ASSIGN_OR_RAISE(table_id, FindTableId(keys[i].table));
      }
    }
    if (!table_id) continue;
    lookups.emplace_back(*table_id, keys[i].snapshot_id);
    lookup_at.push_back(i);
  }
  SKADE_ASSIGN_OR_RAISE(auto found, commit_log_index_->FindMany(lookups));
  // As LoadTableAt: a registered table's earlier snapshots, in its current
  // metadata. Loaded once per table, not per key: a table's metadata may be
  // megabytes, and a request names up to a thousand keys.
  std::map<uint64_t, std::optional<LoadTableResult>> current;  // by table id
  for (size_t j = 0; j < lookups.size(); ++j) {
    size_t i = lookup_at[j];
    if (found[j]) {
      out[i] = std::move(found[j]);
      continue;
    }
    auto [it, first] = current.try_emplace(lookups[j].first);
    if (first) {
      auto loaded = LoadTable(keys[i].table);
      if (loaded) it->second = std::move(*loaded);
    }
    if (it->second && it->second->metadata->SnapshotById(keys[i].snapshot_id)) {
      out[i] = it->second->metadata_location;
    }
  }
  return out;
}

Result<ChangePage> EmbeddedCatalog::ReadChanges(const ChangePosition& since, size_t limit) {
  // A checked position reads from its own commit, to compare it.
  const bool checked = since.check && since.seq > 0;
  SKADE_ASSIGN_OR_RAISE(auto page, store_->ReadCommitLogPage(checked ? since.seq - 1 : since.seq,
                                                             checked ? limit + 1 : limit));
  const auto& bounds = page.bounds;
  if (since.seq < bounds.pruned_through) {
    return MakeError(ErrorKind::kGone, "Commits up to ", bounds.pruned_through,
                     " were pruned by the commit log's retention; commits after ", since.seq,
                     " are lost to this reader: resume from since=", bounds.pruned_through);
  }
  if (since.seq > bounds.last_seq) {
    // A checked position was read from this log's commits or another's: past
    // the end, the log was restored from an earlier backup since.
    if (checked) {
      return MakeError(ErrorKind::kGone, "Commit ", since.seq,
                       " is past the catalog's last commit (", bounds.last_seq,
                       "): the catalog's store was restored from a backup since (or the position "
                       "is another catalog's). Reload the tables you follow and resume from "
                       "since=",
                       bounds.last_seq);
    }
    return InvalidArgument("since=", since.seq, " is past the catalog's last commit (",
                           bounds.last_seq,
                           "): a position from another catalog, or from before a restore");
  }
  auto& entries = page.entries;
  if (checked) {
    if (!entries.empty() && entries.front().first == since.seq) {
      if (ChangePosition::After(since.seq, entries.front().second) != since) {
        return MakeError(ErrorKind::kGone, "Commit ", since.seq,
                         " is not the commit this reader saw there: the catalog's store was "
                         "restored from a backup since (or the position is another catalog's), "
                         "and later commits may have been replaced. Reload the tables you follow "
                         "and resume from since=",
                         bounds.last_seq);
      }
      entries.erase(entries.begin());
    }
    // Its commit pruned (it was at pruned_through): nothing to compare.
    if (entries.size() > limit) entries.resize(limit);
  }
  return ChangePage{std::move(entries), bounds.last_seq, bounds.pruned_through};
}

Result<std::vector<TableCommit>> EmbeddedCatalog::TableHistory(const TableIdentifier& identifier,
                                                               uint64_t after, size_t limit) {
  SKADE_RETURN_NOT_OK(spec::ValidateTableIdentifier(identifier));
  SKADE_ASSIGN_OR_RAISE(auto table_id, FindTableId(identifier));
  if (!table_id) return spec::NoSuchTable(identifier);
  SKADE_ASSIGN_OR_RAISE(auto log, store_->ReadTableHistory(*table_id, after, limit));
  std::vector<TableCommit> commits;
  commits.reserve(log.size());
  for (auto& [seq, entry] : log) {
    commits.push_back({seq, entry.committed_at_ms, std::move(entry.metadata_location),
                       std::move(entry.added_snapshot_ids)});
  }
  return commits;
}

}  // namespace skade::catalog
