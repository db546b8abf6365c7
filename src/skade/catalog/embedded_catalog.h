// EmbeddedCatalog: the Catalog on a store::CatalogStore, by default one
// inside the warehouse directory.
//
// Layout: the default store lives in `<warehouse>/.skade/catalog/`; tables
// default to `<warehouse>/<namespace levels>/<table>`. Metadata files are
// written through FileIO; table pointers, the commit log and the global
// commit sequence live in the store.
//
// Commits are optimistic: read the current metadata, check the requirements,
// apply the updates with TableMetadataBuilder, write the new metadata file,
// then compare-and-swap the pointer in one short store write transaction
// that also appends the commit log. Losing the swap to another writer
// (thread or process) re-reads and re-checks; only a failed requirement
// reaches the caller as kCommitFailed — except a stale append, which is
// rebased onto the table as it is now (append_rebase.h). In-process commits
// to one table queue up and commit in batches, one metadata file and one
// pointer swap per batch (table_commit_queue.h); concurrent batches of
// different tables share one store transaction and one sync (group commit,
// where the store has it).
//
// Reads go through two in-memory layers and touch neither the store nor a
// lock when warm: the TablePointerMirror (table -> current metadata
// location, fresh across processes) and the MetadataCache (location ->
// parsed metadata and JSON). Both are updated before a commit returns, so a read that starts
// after a commit returned sees it.
//
// At immediate, metadata files are journaled in the store (see
// EmbeddedCatalogOptions::journal_max_bytes): Open() first restores any
// journaled file a power loss took (journal_recovery.h), so no pointer it
// serves names a missing or torn file.
//
// Several processes may open the same warehouse at once. Thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "skade/cache/manifest_cache.h"
#include "skade/cache/metadata_cache.h"
#include "skade/catalog/catalog.h"
#include "skade/catalog/commit_log_retention.h"
#include "skade/catalog/commit_stats.h"
#include "skade/catalog/location_policy.h"
#include "skade/catalog/metadata_files.h"
#include "skade/catalog/metadata_flusher.h"
#include "skade/catalog/table_commit_queue.h"
#include "skade/catalog/table_locks.h"
#include "skade/catalog/table_pointer_mirror.h"
#include "skade/index/commit_log_index.h"
#include "skade/io/file_io.h"
#include "skade/io/file_io_registry.h"
#include "skade/store/catalog_store.h"
#include "skade/store/durability.h"
#include "skade/store/table_record.h"

namespace skade::catalog {

struct EmbeddedCatalogOptions {
  /// The warehouse: a local directory (a path, relative to the working
  /// directory or absolute, or a file: URI; created if missing), or a
  /// location of any FileIO registered in io::FileIORegistry::Default(),
  /// such as `s3://bucket/prefix` (then `store` must name a local store).
  std::string warehouse;
  store::Durability durability = store::Durability::kImmediate;
  /// How often the background flusher runs. For Durability::kEventual:
  /// files (metadata, manifests, manifest lists, data files written through
  /// file_io_ptr()) and their directories are synced before the store. For
  /// kImmediate: journaled metadata files are synced and released from the
  /// store (see journal_max_bytes).
  int flush_interval_ms = 1000;
  /// For Durability::kImmediate: a new metadata file of at most this many
  /// bytes is journaled — written without sync, its bytes kept in the
  /// store's transaction with the pointer swap, made durable and released
  /// later by the flusher, rewritten from the store by the next Open() after
  /// a power loss (journal_recovery.h) — so a group of concurrent commits
  /// costs the store's one sync. Larger files, and every file with 0, are
  /// fsynced with their directory before the swap.
  size_t journal_max_bytes = 1ull << 20;
  /// Where the catalog store is (store::CatalogStore::Open: a registered
  /// "<scheme>:…" location or a local directory). Empty: the default, in the
  /// warehouse at `.skade/catalog`, whose directory the catalog also makes
  /// durable; a store named here sees to its own. Required when the
  /// warehouse is not local (LMDB needs a local file system).
  std::string store;
  /// Upper bound of the store's file, for stores that map one
  /// (store::CatalogStoreOptions::map_size; virtual, the file grows as
  /// needed).
  uint64_t store_map_size = 64ull << 30;
  /// How many times a commit re-reads and retries after losing the pointer
  /// swap to a concurrent writer before giving up with kCommitFailed.
  int max_commit_attempts = 100;
  /// The FileIO of the warehouse and its tables. Null (the default) asks
  /// io::FileIORegistry::Default() for the warehouse's scheme, passing it
  /// `file_io_properties`; set it to inject one (tests, benchmarks).
  std::shared_ptr<io::FileIO> file_io;
  io::FileIOProperties file_io_properties;
  /// Bytes of parsed metadata kept in memory, from 10 MiB to 1 GiB.
  size_t metadata_cache_bytes = 128ull << 20;
  /// Parsed manifest lists: the server-side rebase of appends reads the
  /// branch's lists here and leaves the ones it writes (append_rebase.h).
  /// Share the process's scan-planning cache; null makes one of the default
  /// size (filled only by rebases).
  std::shared_ptr<cache::ManifestCache> manifest_cache;
  /// Coalesce concurrent commits to different tables into one store
  /// transaction and one sync. Off, every commit syncs on its own.
  bool group_commit = true;
  /// Where table locations may be (file: URIs or paths); "*" allows any.
  /// Empty means the warehouse only. See location_policy.h.
  std::vector<std::string> allowed_locations;
  /// Open() first rewrites the journaled files a power loss took
  /// (journal_recovery.h), then records the locations of tables the store
  /// has none for (table_location_claims.h). Off only for tools that must
  /// change nothing, such as `skade doctor` without --repair and `skade
  /// backup`.
  bool recover_journal = true;
  /// The static index of the commit log behind LoadTableAt and ResolveMany:
  /// when it rebuilds, whether it keeps files beside the store.
  index::CommitLogIndexOptions commit_log_index;
  /// The requester the commit log records for commits whose origin names
  /// none (CommitTableRequest::origin): the CLI's own name, say. Empty: none.
  std::string default_requester;
  /// Commit-log retention: commits older than this (ms) are pruned by a
  /// background thread (commit_log_retention.h), each table's last one
  /// kept. 0 keeps the whole log (the default: time travel and the change
  /// feed reach back to the first commit).
  int64_t commit_log_retention_ms = 0;
  /// How often the retention thread prunes.
  int64_t commit_log_retention_interval_ms = 60'000;
};

class EmbeddedCatalog : public Catalog {
 public:
  static Result<std::shared_ptr<EmbeddedCatalog>> Open(const EmbeddedCatalogOptions& options);
  ~EmbeddedCatalog() override;

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<Page<Namespace>> ListNamespaces(const Namespace& parent,
                                         const PageRequest& page = {}) override;
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  Status DropNamespace(const Namespace& ns) override;
  Result<UpdateNamespacePropertiesResult> UpdateNamespaceProperties(
      const Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates) override;

  Result<Page<TableIdentifier>> ListTables(const Namespace& ns,
                                           const PageRequest& page = {}) override;
  Result<LoadTableResult> CreateTable(const Namespace& ns,
                                      const CreateTableRequest& request) override;
  Result<LoadTableResult> LoadTable(const TableIdentifier& identifier) override;
  Result<bool> TableExists(const TableIdentifier& identifier) override;
  /// Whether LoadTable(identifier) would answer from memory: the mirror
  /// holds the table's pointer and the metadata cache its current metadata
  /// file. Reads no file and takes no lock (the mirror may catch up from the
  /// store, a local read, as LoadTable's does). False for an unknown or
  /// invalid table, or when the mirror cannot be read. A hint for deciding
  /// where a load runs (REST: off the I/O threads on a miss); a commit or an
  /// eviction may change the answer at once. Thread-safe.
  bool HoldsCurrentMetadata(const TableIdentifier& identifier);
  Status DropTable(const TableIdentifier& identifier, bool purge) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Result<LoadTableResult> RegisterTable(const TableIdentifier& identifier,
                                        const std::string& metadata_location, bool overwrite,
                                        const CommitOrigin& origin) override;

  Result<LoadTableResult> CommitTable(const CommitTableRequest& request) override;
  Status CommitTransaction(const std::vector<CommitTableRequest>& requests) override;
  /// At immediate, for the catalog's own FileIO (file_io()): journal_max_bytes.
  /// Unsynced files are journaled with the pointer swap, as metadata files
  /// are; a larger one a caller hands over anyway is synced before the swap.
  size_t UnsyncedFileLimit(const io::FileIO& io) const override;

  Result<std::optional<IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                 int64_t now_ms) override;
  Result<IdempotencyRecord> RecordIdempotency(const IdempotencyRecord& record) override;
  Result<LoadTableResult> LoadTableFromMetadata(const TableIdentifier& identifier,
                                                const std::string& metadata_location) override;

  /// Time travel through the commit-log index (index/commit_log_index.h):
  /// lock-free lookups in the static tree, then the live tail in the store.
  Result<LoadTableResult> LoadTableAt(const TableIdentifier& identifier,
                                      int64_t snapshot_id) override;
  Result<LoadTableResult> LoadTableAsOf(const TableIdentifier& identifier,
                                        int64_t timestamp_ms) override;
  Result<std::vector<std::optional<std::string>>> ResolveMany(
      std::span<const SnapshotKey> keys) override;
  Result<ChangePage> ReadChanges(const ChangePosition& since, size_t limit) override;
  Result<std::vector<TableCommit>> TableHistory(const TableIdentifier& identifier, uint64_t after,
                                                size_t limit) override;

  /// The table's current metadata and nothing else: the cheapest read (no
  /// allocation when warm). kNoSuchTable if it does not exist.
  Result<spec::TableMetadataPtr> ResolveMetadata(const TableIdentifier& identifier);

  /// Where Open() keeps the store of the local warehouse directory
  /// `warehouse_path` when EmbeddedCatalogOptions::store is empty.
  static std::string DefaultStorePath(std::string_view warehouse_path);

  /// The warehouse as a `file://` URI without a trailing slash.
  const std::string& warehouse_location() const { return warehouse_location_; }
  /// The default location of a new table.
  std::string DefaultTableLocation(const TableIdentifier& identifier) const;
  store::CatalogStore& store() { return *store_; }
  /// The roots table files may be in (location_policy.h).
  const LocationPolicy& location_policy() const { return *location_policy_; }
  /// The FileIO the catalog writes with. Tables and ingest should write
  /// through it (table::Table takes file_io_ptr()): below immediate it is
  /// what lets the flusher make their manifests and data files durable
  /// before the pointers that name them.
  io::FileIO& file_io() { return *io_; }
  const std::shared_ptr<io::FileIO>& file_io_ptr() const { return io_; }
  /// Makes every commit acknowledged so far durable, as the flusher does
  /// each interval (eventual) or at the clean close (none); at immediate
  /// (durable already) syncs the journaled metadata files and releases them
  /// from the store. Errors are also logged; the failed files are retried.
  Status Flush();
  const cache::MetadataCache& metadata_cache() const { return *metadata_cache_; }
  /// EmbeddedCatalogOptions::manifest_cache, or the one Open made.
  const std::shared_ptr<cache::ManifestCache>& manifest_cache_ptr() const {
    return manifest_cache_;
  }
  index::CommitLogIndex& commit_log_index() { return *commit_log_index_; }
  /// Commits waiting for a batch of their table (table_commit_queue.h).
  size_t queued_commits() const { return commit_queue_.waiting(); }
  /// What the table commits have done since Open() (commit_stats.h).
  const CommitStats& commit_stats() const { return commit_stats_; }
  store::Durability durability() const { return durability_; }

 private:
  struct PreparedCommit;

  EmbeddedCatalog() = default;
  /// CreateTable once its request is checked, at `location`.
  Result<LoadTableResult> CreateTableAt(const TableIdentifier& identifier,
                                        const CreateTableRequest& request, std::string location);
  bool durable_files() const { return durability_ == store::Durability::kImmediate; }
  [[nodiscard]] TableLocks::Held LockTable(const TableIdentifier& identifier);
  /// The table as the metadata file `location` of one of its commits (`what`
  /// names the commit in the error if the file is gone).
  Result<LoadTableResult> LoadCommitted(const TableIdentifier& identifier,
                                        const std::string& location, std::string_view what);
  /// The table's pointer from the mirror; a miss is confirmed in the store.
  Result<std::optional<store::TableRecord>> FindTable(const TableIdentifier& identifier);
  /// FindTable's table id alone: the time-travel reads need no location
  /// (no copy of it per key of a ResolveMany).
  Result<std::optional<uint64_t>> FindTableId(const TableIdentifier& identifier);
  /// The metadata file at `location`, through the metadata cache.
  Result<MetadataFile> ReadMetadata(const std::string& location);
  /// A historical metadata file (time travel): from the metadata cache if
  /// it is there, else read around it, not inserted. A sweep over history
  /// would otherwise evict the current metadata of hot tables, as a big
  /// scan would a database's buffer pool; evicting also costs the reader
  /// the free of a cold parsed file per load.
  Result<MetadataFile> ReadHistoricalMetadata(const std::string& location);
  /// One table's requests as one commit (CommitTable's batches): each
  /// request applies to the result of the ones before it; `outcomes` gets
  /// each request's own failure (its requirements or updates), and those
  /// requests are left out. An error fails them all.
  Result<PreparedCommit> Prepare(std::span<const CommitTableRequest* const> requests,
                                 std::vector<Status>* outcomes);
  /// Prepare of one request, whose failure is the error.
  Result<PreparedCommit> PrepareOne(const CommitTableRequest& request);
  /// Checks `request`'s requirements against `at` (rebasing a stale append,
  /// append_rebase.h) and applies its updates.
  Result<spec::TableMetadataPtr> ApplyRequest(const CommitTableRequest& request,
                                              const spec::TableMetadataPtr& at,
                                              const std::string& log_location,
                                              PreparedCommit* commit);
  Result<spec::TableMetadataPtr> ApplyUpdates(const std::vector<spec::TableUpdate>& updates,
                                              const spec::TableMetadataPtr& at,
                                              const std::string& log_location,
                                              PreparedCommit* commit);
  /// Commits a batch of the commit queue: one metadata file, one swap.
  std::vector<Result<LoadTableResult>> CommitBatch(
      std::span<const CommitTableRequest* const> requests);
  /// CommitTransaction without counting it in commit_stats_ (the caller
  /// counts its outcome once).
  Status CommitTransactionUncounted(const std::vector<CommitTableRequest>& requests);
  /// CommitBatch under the table's lock, one attempt loop.
  std::vector<Result<LoadTableResult>> CommitBatchLocked(
      std::span<const CommitTableRequest* const> requests);
  Status WritePrepared(PreparedCommit& commit);
  /// Deletes the files a commit that did not happen wrote.
  void DiscardWritten(const PreparedCommit& commit);
  /// kForbidden unless every unsynced file of `request` is allowed.
  Status CheckUnsyncedLocations(const CommitTableRequest& request) const;
  /// The request's unsynced files: journaled with the swap, or synced now.
  Status TakeUnsyncedFiles(const CommitTableRequest& request, PreparedCommit* commit);
  /// The pointer swap of a written commit, with its journaled file.
  store::PointerSwap SwapOf(const PreparedCommit& commit) const;
  // Swaps the pointer of `commit` alone. The swap is built in its vector, not
  // copied there: it carries the journaled files' bytes (the whole metadata).
  Result<std::vector<store::TableRecord>> SwapAlone(const PreparedCommit& commit);
  /// The origins the commit log records for a commit that answers
  /// `requested`: each distinct one, and default_requester for none.
  std::vector<CommitOrigin> RecordedOrigins(std::span<const CommitOrigin> requested) const;
  /// After a swap that committed or whose outcome is unknown: the flusher
  /// takes the journaled file.
  void AfterSwap(const PreparedCommit& commit);
  /// After a swap that committed: metadata cleanup.
  void AfterCommit(const PreparedCommit& commit);
  /// The old metadata files a commit deletes once it committed
  /// (write.metadata.delete-after-commit.enabled): the table's own files
  /// among those it drops from the metadata log.
  std::vector<std::string> CleanupFiles(const spec::TableMetadata& metadata,
                                        const spec::MetadataLog& removed) const;
  void DiscardFile(const std::string& location);
  /// Before metadata files are deleted: journal entries kept as differences
  /// from one of `files` (store::JournaledFile::base) are released, their
  /// files synced first, so that no recovery needs a deleted base.
  Status ReleaseDeltasOn(const std::vector<std::string>& files);

  /// kForbidden unless `metadata`'s location and `metadata_file` are allowed.
  Status CheckLocations(const spec::TableMetadata& metadata,
                        const std::string& metadata_file) const;
  /// Creates a new table's metadata and data directories, those of them the
  /// location policy allows, for clients that write a table's first files
  /// into them without creating them (DuckDB).
  Status CreateTableDirectories(const spec::TableMetadata& metadata);

  std::string warehouse_location_;
  std::unique_ptr<LocationPolicy> location_policy_;
  store::Durability durability_ = store::Durability::kImmediate;
  size_t journal_max_bytes_ = 0;  // 0: no journal
  int max_commit_attempts_ = 100;
  std::string default_requester_;
  std::shared_ptr<io::FileIO> io_;
  // Destroyed bottom-up: the mirror unregisters from the store first.
  std::unique_ptr<store::CatalogStore> store_;
  std::unique_ptr<TablePointerMirror> mirror_;
  std::unique_ptr<index::CommitLogIndex> commit_log_index_;
  std::unique_ptr<cache::MetadataCache> metadata_cache_;
  std::shared_ptr<cache::ManifestCache> manifest_cache_;
  std::unique_ptr<MetadataFlusher> flusher_;
  std::unique_ptr<CommitLogRetention> retention_;
  TableLocks table_locks_;
  TableCommitQueue commit_queue_;
  CommitStats commit_stats_;
};

}  // namespace skade::catalog
