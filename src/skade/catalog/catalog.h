// The catalog interface: namespaces and tables of Iceberg tables, with
// atomic commits. EmbeddedCatalog implements it on a store::CatalogStore;
// the REST server and the CLI are written against it.
//
// All methods are thread-safe. Errors use the catalog kinds of ErrorKind
// (kNoSuchNamespace, kNoSuchTable, kAlreadyExists, kNamespaceNotEmpty,
// kCommitFailed, kCommitStateUnknown, kInvalidArgument, kIo, …) with the
// messages Iceberg clients expect (Iceberg Java's, which PyIceberg and Spark
// match on; tests/catalog and the RCK pin them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "skade/catalog/change_position.h"
#include "skade/io/file_io.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/sort_order.h"
#include "skade/spec/table_identifier.h"
#include "skade/spec/table_metadata.h"
#include "skade/spec/table_requirement.h"
#include "skade/spec/table_update.h"
#include "skade/store/commit_log_record.h"
#include "skade/store/idempotency_record.h"
#include "skade/util/result.h"

namespace skade::catalog {

using spec::Namespace;
using spec::TableIdentifier;
using Properties = std::map<std::string, std::string>;
/// The answer to a request with an Idempotency-Key, as the catalog keeps it
/// (a plain value of the store's; callers see it only through this
/// interface).
using IdempotencyRecord = store::IdempotencyRecord;
/// Who asked for a commit, kept with it in the commit log (the change feed).
using CommitOrigin = store::CommitOrigin;

struct CreateTableRequest {
  std::string name;
  spec::SchemaPtr schema;
  spec::PartitionSpecPtr partition_spec;  // null = unpartitioned
  spec::SortOrderPtr write_order;         // null = unsorted
  std::optional<std::string> location;    // default <warehouse>/<ns…>/<name>
  Properties properties;                  // "format-version" selects 1–3 (default 2)
  bool stage_create = false;              // build the metadata, persist nothing
  /// As CommitTableRequest::idempotency, for the table's creation (not for a
  /// staged create, which persists nothing).
  std::optional<IdempotencyRecord> idempotency;
  CommitOrigin origin;
};

/// A table's current state. `metadata_json` holds the metadata file's bytes
/// as stored (uncompressed), so a REST response can embed them verbatim.
struct LoadTableResult {
  std::string metadata_location;  // empty for a staged table
  spec::TableMetadataPtr metadata;
  std::shared_ptr<const std::string> metadata_json;
};

/// A (table, snapshot id) pair to resolve (Catalog::ResolveMany).
struct SnapshotKey {
  TableIdentifier table;
  int64_t snapshot_id = 0;
};

/// One commit of a table as the catalog's commit log has it: the metadata
/// file it made current and the snapshots it added. The log keeps every
/// commit, so a table's history here includes snapshots its current
/// metadata has expired.
struct TableCommit {
  uint64_t commit_seq = 0;  // the catalog-wide commit sequence number
  int64_t committed_at_ms = 0;
  std::string metadata_location;
  std::vector<int64_t> added_snapshot_ids;
};

/// A page of the change feed (Catalog::ReadChanges): commits in commit_seq
/// order, each the commit-log entry as the store keeps it.
struct ChangePage {
  std::vector<std::pair<uint64_t, store::CommitLogRecord>> commits;
  /// The catalog's last commit_seq when read: a reader that got fewer than
  /// it asked for is caught up to here.
  uint64_t last_seq = 0;
  /// Retention has dropped commits up to here (see ReadChanges).
  uint64_t pruned_through = 0;
};

/// A file a commit references that its writer wrote without sync, with its
/// bytes (as written), so the catalog can make it durable together with the
/// commit instead of the writer paying a sync for each file.
struct UnsyncedFile {
  std::string location;
  /// Never null; shared by the request, the commit and the store's swap.
  std::shared_ptr<const std::string> contents;
};

struct CommitTableRequest {
  TableIdentifier identifier;
  std::vector<spec::TableRequirement> requirements;
  std::vector<spec::TableUpdate> updates;
  /// Files the updates reference that were written without sync through the
  /// FileIO the catalog accepted them for (UnsyncedFileLimit()); the commit
  /// is acknowledged only once they are durable too. Not part of the REST
  /// protocol: REST clients write their own files.
  std::vector<UnsyncedFile> unsynced_files;
  /// The record of the REST request (Idempotency-Key) this commit answers.
  /// A commit that moves the pointer writes it in the same store transaction
  /// as the pointer, so a commit is never durable without its key nor the
  /// key without the commit; a record with status 200 (a table answer) gets
  /// the table and the committed metadata file. If the key has a live record
  /// already, a commit whose requirements hold fails with kIdempotencyKeyUsed
  /// and changes nothing (the caller replays that record; a caller looks the
  /// key up first, this catches the key answered meanwhile, by another
  /// process). A commit that fails, or changes nothing, writes no record.
  /// Several requests of one transaction may carry the same record; it is
  /// written once.
  std::optional<IdempotencyRecord> idempotency;
  /// Kept with the commit in the commit log (the change feed's actor and
  /// request id); when requests share one commit, each one's.
  CommitOrigin origin;
};

/// True if `request` creates its table (it asserts assert-create).
inline bool CreatesTable(const CommitTableRequest& request) {
  for (const auto& requirement : request.requirements) {
    if (std::holds_alternative<spec::AssertCreate>(requirement.value())) return true;
  }
  return false;
}

struct UpdateNamespacePropertiesResult {
  std::vector<std::string> updated;
  std::vector<std::string> removed;
  std::vector<std::string> missing;
};

/// A page of a listing: up to `page_size` items after `page_token` (the
/// token the previous page returned; empty for the first page).
struct PageRequest {
  std::string page_token;
  size_t page_size = 0;  // 0 = everything
};

template <typename T>
struct Page {
  std::vector<T> items;
  std::string next_page_token;  // empty on the last page
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  // --- Namespaces ---------------------------------------------------------
  /// kAlreadyExists if present; kNoSuchNamespace if a parent level is missing.
  virtual Status CreateNamespace(const Namespace& ns, const Properties& properties) = 0;
  /// Direct children of `parent` (top level when empty), as full names.
  virtual Result<Page<Namespace>> ListNamespaces(const Namespace& parent,
                                                 const PageRequest& page = {}) = 0;
  virtual Result<Properties> LoadNamespaceProperties(const Namespace& ns) = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) = 0;
  /// kNamespaceNotEmpty while it holds tables or child namespaces.
  virtual Status DropNamespace(const Namespace& ns) = 0;
  /// kInvalidArgument (REST 422) if a key is both removed and updated.
  virtual Result<UpdateNamespacePropertiesResult> UpdateNamespaceProperties(
      const Namespace& ns, const std::vector<std::string>& removals, const Properties& updates) = 0;

  // --- Tables -------------------------------------------------------------
  virtual Result<Page<TableIdentifier>> ListTables(const Namespace& ns,
                                                   const PageRequest& page = {}) = 0;
  virtual Result<LoadTableResult> CreateTable(const Namespace& ns,
                                              const CreateTableRequest& request) = 0;
  virtual Result<LoadTableResult> LoadTable(const TableIdentifier& identifier) = 0;
  virtual Result<bool> TableExists(const TableIdentifier& identifier) = 0;
  /// With `purge`, the table's metadata, manifests and data files are deleted.
  virtual Status DropTable(const TableIdentifier& identifier, bool purge) = 0;
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
  /// Adopts an existing metadata file. With `overwrite`, replaces the
  /// pointer of an existing table. `origin` goes into the commit log.
  virtual Result<LoadTableResult> RegisterTable(const TableIdentifier& identifier,
                                                const std::string& metadata_location,
                                                bool overwrite, const CommitOrigin& origin) = 0;

  // --- Commits ------------------------------------------------------------
  /// Checks the requirements against the current metadata, applies the
  /// updates, writes a new metadata file and swaps the table pointer
  /// atomically. A concurrent change that breaks a requirement is
  /// kCommitFailed; a no-op commit writes nothing and returns the current
  /// state. With an assert-create requirement, creates the table.
  virtual Result<LoadTableResult> CommitTable(const CommitTableRequest& request) = 0;
  /// Commits changes to several tables atomically: all or nothing.
  virtual Status CommitTransaction(const std::vector<CommitTableRequest>& requests) = 0;

  // --- Idempotency (REST Idempotency-Key) --------------------------------
  /// The record of `key`, or nullopt if there is none or it has expired at
  /// `now_ms` (Unix milliseconds). Records are shared by every process on the
  /// warehouse and survive restarts.
  virtual Result<std::optional<IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                         int64_t now_ms) = 0;
  /// Keeps `record` for a request that finished without a commit carrying it
  /// (see CommitTableRequest::idempotency), unless its key has a live record;
  /// returns the record the key has afterwards: `record`, or the earlier one,
  /// whose answer is the one to give.
  virtual Result<IdempotencyRecord> RecordIdempotency(const IdempotencyRecord& record) = 0;
  // --- Time travel (the commit log) ---------------------------------------
  /// The table as it was when `snapshot_id` was committed: the metadata file
  /// that commit made current, with main set back to the snapshot when the
  /// commit added later ones to main too (a transaction, or appends batched
  /// into one commit). Works after the snapshot was expired from the
  /// current metadata, as long as that file exists; kNotFound, saying so,
  /// when it was deleted, and kNotFound when the table never had the
  /// snapshot.
  virtual Result<LoadTableResult> LoadTableAt(const TableIdentifier& identifier,
                                              int64_t snapshot_id) = 0;
  /// The table as it was at `timestamp_ms` (Unix milliseconds): the metadata
  /// file of its last commit at or before then, by the catalog's commit
  /// time. kNotFound if the table had no commit by then (or that file is
  /// gone).
  virtual Result<LoadTableResult> LoadTableAsOf(const TableIdentifier& identifier,
                                                int64_t timestamp_ms) = 0;
  /// The metadata location that LoadTableAt would load for each key, in one
  /// batched pass; nullopt where the table does not exist or never had the
  /// snapshot.
  virtual Result<std::vector<std::optional<std::string>>> ResolveMany(
      std::span<const SnapshotKey> keys) = 0;
  /// The table's commits in order, oldest first, with commit_seq > `after`,
  /// at most `limit`. kNoSuchTable if it does not exist.
  virtual Result<std::vector<TableCommit>> TableHistory(const TableIdentifier& identifier,
                                                        uint64_t after, size_t limit) = 0;

  // --- The change feed (the commit log) -----------------------------------
  /// Every commit with commit_seq > `since.seq`, oldest first, at most
  /// `limit` (paging on from the last one returned misses none and repeats
  /// none). kGone when retention has dropped commits after `since` (since <
  /// pruned_through: resume from pruned_through, knowing some are lost), or
  /// when `since` carries a check and the commit at its number is another
  /// one or there is none yet (a store restored from a backup since, or
  /// another catalog's position); kInvalidArgument when a bare `since` is
  /// past the last commit.
  virtual Result<ChangePage> ReadChanges(const ChangePosition& since, size_t limit) {
    (void)since;
    (void)limit;
    return MakeError(ErrorKind::kUnsupported, "This catalog has no change feed");
  }

  /// The table as the metadata file at `metadata_location` (one a record
  /// names) describes it, from the metadata cache or the file; if the file
  /// is gone, the table's current state. kForbidden for a location outside
  /// the allowed roots.
  virtual Result<LoadTableResult> LoadTableFromMetadata(const TableIdentifier& identifier,
                                                        const std::string& metadata_location) = 0;

  /// The largest file that a writer using `io` may leave unsynced and hand
  /// to a commit in CommitTableRequest::unsynced_files; 0 (the default): the
  /// catalog takes none, writers sync their files themselves.
  virtual size_t UnsyncedFileLimit(const io::FileIO& io) const {
    (void)io;
    return 0;
  }
};

}  // namespace skade::catalog
