// The catalog's persistent state in LMDB: namespaces, table pointers, the
// commit log and the global commit sequence (layout in keys.h).
//
// Every method is one short LMDB transaction and checks its preconditions
// inside it, so concurrent threads and processes see each operation as
// atomic. Thread-safe. Errors: the catalog kinds (kNoSuchNamespace,
// kNoSuchTable, kAlreadyExists, kNamespaceNotEmpty, kCommitFailed) with
// Iceberg's messages, kIo/kCorruption from LMDB.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/store/keys.h"
#include "skade/store/lmdb.h"
#include "skade/util/result.h"

namespace skade::store {

using Properties = std::map<std::string, std::string>;

/// One table's part of an atomic commit: move its pointer from
/// `expected_location` to `new_location`. No `expected_location` means the
/// table is being created and must not exist yet.
struct PointerSwap {
  spec::TableIdentifier identifier;
  std::optional<std::string> expected_location;
  std::string new_location;
  std::vector<int64_t> added_snapshot_ids;
};

template <typename T>
struct StorePage {
  std::vector<T> items;
  std::string next_page_token;  // empty on the last page
};

class CatalogStore {
 public:
  /// Opens or creates the store in directory `path`.
  static Result<std::unique_ptr<CatalogStore>> Open(const std::string& path,
                                                    const LmdbOptions& options);

  // --- Namespaces ---------------------------------------------------------
  /// kAlreadyExists if present; kNoSuchNamespace if the parent is missing.
  Status CreateNamespace(const spec::Namespace& ns, const Properties& properties);
  /// The properties, or nullopt if the namespace does not exist.
  Result<std::optional<Properties>> GetNamespace(const spec::Namespace& ns);
  /// Direct children of `parent` (top-level when empty), in key order.
  /// kNoSuchNamespace if `parent` is given and missing.
  Result<StorePage<spec::Namespace>> ListNamespaces(const spec::Namespace& parent,
                                                    const std::string& page_token,
                                                    size_t page_size);
  /// kNamespaceNotEmpty if it has tables or children.
  Status DropNamespace(const spec::Namespace& ns);
  /// Applies removals then updates; returns the keys that were missing.
  Result<std::vector<std::string>> UpdateNamespaceProperties(
      const spec::Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates);

  // --- Tables -------------------------------------------------------------
  Result<std::optional<TableRecord>> GetTable(const spec::TableIdentifier& identifier);
  /// kNoSuchNamespace if `ns` is missing.
  Result<StorePage<spec::TableIdentifier>> ListTables(const spec::Namespace& ns,
                                                      const std::string& page_token,
                                                      size_t page_size);
  /// Removes the pointer and returns what it was; kNoSuchTable if missing.
  Result<TableRecord> DropTable(const spec::TableIdentifier& identifier);
  Status RenameTable(const spec::TableIdentifier& from, const spec::TableIdentifier& to);
  /// Points `identifier` at an existing metadata file. With `overwrite`, an
  /// existing table keeps its id and gets the new pointer.
  Result<TableRecord> RegisterTable(const spec::TableIdentifier& identifier,
                                    const std::string& metadata_location, bool overwrite);

  /// Applies all swaps in one transaction, or none: each table's pointer must
  /// still be at its expected location (else kCommitFailed, retryable), and
  /// created tables must not exist (kAlreadyExists) in existing namespaces.
  /// Appends one commit-log entry per swap and advances commit_seq. Returns
  /// the tables' records after the commit.
  Result<std::vector<TableRecord>> SwapPointers(const std::vector<PointerSwap>& swaps);

  /// The metadata location of the commit that added `snapshot_id` to the
  /// table with `table_id`, or nullopt.
  Result<std::optional<std::string>> FindSnapshot(uint64_t table_id, int64_t snapshot_id);

  /// Commit-log entries with commit_seq > `after`, in order, at most `limit`.
  Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadCommitLog(uint64_t after,
                                                                          size_t limit);

  /// The number of commits ever made (the last commit_seq).
  Result<uint64_t> CommitSeq();

  LmdbEnv& env() { return *env_; }

 private:
  explicit CatalogStore(std::shared_ptr<LmdbEnv> env) : env_(std::move(env)) {}

  std::shared_ptr<LmdbEnv> env_;
  MDB_dbi namespaces_ = 0;
  MDB_dbi tables_ = 0;
  MDB_dbi snapshots_ = 0;
  MDB_dbi commit_log_ = 0;
  MDB_dbi meta_ = 0;
};

}  // namespace skade::store
