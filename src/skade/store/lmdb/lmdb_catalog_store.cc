#include "skade/store/lmdb/lmdb_catalog_store.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <limits>
#include <set>

#include "skade/spec/catalog_errors.h"
#include "skade/store/lmdb/lmdb_keys.h"
#include "skade/util/clock.h"
#include "skade/util/json_parser.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::store::lmdb {

namespace {

std::string EncodeProperties(const Properties& properties) {
  JsonWriter writer;
  writer.StartObject();
  for (const auto& [key, value] : properties) writer.Field(key, value);
  writer.EndObject();
  return writer.Take();
}

Result<Properties> DecodeProperties(std::string_view bytes) {
  // A namespace's properties grow with each update: a parser of its own
  // past a size, so a thread keeps no large one.
  JsonParser parser(JsonParser::WhenBusy::kWait);
  SKADE_ASSIGN_OR_RAISE(auto element, parser.Parse(bytes));
  auto properties = json::ToStringMap(element, "namespace properties");
  if (!properties) return Corruption("Invalid namespace record in the catalog store");
  return std::move(*properties);
}

using spec::NoSuchNamespace;
using spec::NoSuchTable;
using spec::TableAlreadyExists;

template <typename Txn>
Result<bool> KeyExists(const Txn& txn, MDB_dbi dbi, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(dbi, key));
  return value.has_value();
}

/// True if some key in `dbi` starts with `prefix`.
Result<bool> HasPrefix(MDB_txn* txn, MDB_dbi dbi, std::string_view prefix) {
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn, dbi));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(prefix));
  return found && cursor.key().starts_with(prefix);
}

template <typename Txn>
Result<uint64_t> ReadCounter(const Txn& txn, MDB_dbi meta, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(meta, key));
  if (!value) return uint64_t{0};
  auto decoded = DecodeU64(*value);
  if (!decoded) return Corruption("Invalid counter ", key, " in the catalog store");
  return *decoded;
}

// The database of each write's changed tables (lmdb_keys.h), keyed by change
// version: a backup empties it, for the copy's versions start again.
constexpr char kTableChangesDatabase[] = "table_changes";

// A leader takes at most this many queued requests into one transaction.
constexpr size_t kMaxBatch = 256;

// Expired idempotency records a write that adds records deletes at most: more
// than one, so a backlog drains while keys keep coming.
constexpr size_t kPrunePerWrite = 8;

// Keys are the REST layer's canonical UUIDs; anything that fits an LMDB key
// is accepted.
constexpr size_t kMaxIdempotencyKey = 256;

Status CheckIdempotencyKey(std::string_view key) {
  if (key.empty() || key.size() > kMaxIdempotencyKey) {
    return InvalidArgument("Invalid idempotency key of ", key.size(), " bytes");
  }
  return OkStatus();
}

// A namespace's properties, encoded, are at most this size: every load of
// the namespace returns them all, and a client adding to them request by
// request could otherwise grow one value without bound (a review made one of
// 146 MB that took 12 s per GET). Generous for any real use.
constexpr size_t kMaxNamespacePropertiesBytes = size_t{1} << 20;

Result<std::string> EncodeNamespaceProperties(const spec::Namespace& ns,
                                              const Properties& properties) {
  std::string encoded = EncodeProperties(properties);
  if (encoded.size() > kMaxNamespacePropertiesBytes) {
    return InvalidArgument("The properties of namespace ", spec::NamespaceToString(ns),
                           " would take ", encoded.size(), " bytes, more than the ",
                           kMaxNamespacePropertiesBytes, " a namespace keeps");
  }
  return encoded;
}

// A page token names the last key of the page before it, which lies under
// the listing's prefix (and, for a namespace listing, one level below it):
// any other token is another listing's, or forged, and would answer an empty
// page as if the listing had ended.
Status CheckPageTokenOf(std::string_view token, std::string_view last, std::string_view prefix,
                        char child_separator = '\0') {
  if (!last.starts_with(prefix) || last.size() == prefix.size() ||
      (child_separator != '\0' &&
       last.find(child_separator, prefix.size()) != std::string_view::npos)) {
    return InvalidArgument("Invalid page token ", token, ": not one of this listing's");
  }
  return OkStatus();
}

tl::unexpected<Error> IdempotencyKeyUsed(std::string_view key) {
  return MakeError(ErrorKind::kIdempotencyKeyUsed, "Idempotency-Key ", key,
                   " was used by an earlier request, whose answer is recorded");
}

}  // namespace

/// One caller of SwapPointers() waiting in the group-commit queue.
struct LmdbCatalogStore::SwapRequest {
  const std::vector<PointerSwap>* swaps;
  // The journal values of the swaps' journaled files, in order: encoded
  // (compressed) by the caller's thread before it queues, not by the leader
  // under the writer lock.
  std::vector<std::string> journal_values;
  Result<std::vector<TableRecord>> result;
  bool applied = false;  // in the batch's transaction; set by the leader
  bool done = false;     // under queue_mutex_
  std::condition_variable wake;
};

/// The counters a batch advances, read once and written once per transaction.
struct LmdbCatalogStore::Counters {
  uint64_t commit_seq = 0;
  uint64_t next_table_id = 0;
  // The time of this transaction's commits: never before the last one's.
  int64_t committed_at_ms = 0;
};

namespace {

template <typename Txn>
Result<int64_t> CommitTime(const Txn& txn, MDB_dbi meta) {
  SKADE_ASSIGN_OR_RAISE(uint64_t last, ReadCounter(txn, meta, kLastCommitMsKey));
  return std::max(NowMillis(), static_cast<int64_t>(last));
}

}  // namespace

Result<std::unique_ptr<CatalogStore>> OpenLmdbCatalogStore(const std::string& location,
                                                           const CatalogStoreOptions& options) {
  std::string_view path = location;
  ConsumePrefix(&path, "lmdb:");
  LmdbCatalogStoreOptions lmdb_options;
  lmdb_options.lmdb.map_size = options.map_size;
  lmdb_options.lmdb.durability = options.durability;
  lmdb_options.lmdb.whole_copy = options.whole_copy;
  lmdb_options.group_commit = options.group_commit;
  SKADE_ASSIGN_OR_RAISE(auto store, LmdbCatalogStore::Open(std::string(path), lmdb_options));
  return std::unique_ptr<CatalogStore>(std::move(store));
}

Result<std::unique_ptr<LmdbCatalogStore>> LmdbCatalogStore::Open(
    const std::string& path, const LmdbCatalogStoreOptions& options) {
  SKADE_ASSIGN_OR_RAISE(auto env, LmdbEnv::Open(path, options.lmdb));
  std::unique_ptr<LmdbCatalogStore> store(
      new LmdbCatalogStore(std::move(env), options.group_commit));
  SKADE_ASSIGN_OR_RAISE(store->namespaces_, store->env_->OpenDatabase("namespaces"));
  SKADE_ASSIGN_OR_RAISE(store->tables_, store->env_->OpenDatabase("tables"));
  SKADE_ASSIGN_OR_RAISE(store->snapshots_, store->env_->OpenDatabase("snapshots"));
  SKADE_ASSIGN_OR_RAISE(store->commit_log_, store->env_->OpenDatabase("commit_log"));
  SKADE_ASSIGN_OR_RAISE(store->table_history_, store->env_->OpenDatabase("table_history"));
  SKADE_ASSIGN_OR_RAISE(store->table_changes_, store->env_->OpenDatabase(kTableChangesDatabase));
  SKADE_ASSIGN_OR_RAISE(store->meta_, store->env_->OpenDatabase("meta"));
  SKADE_ASSIGN_OR_RAISE(store->journal_, store->env_->OpenDatabase("journal"));
  SKADE_ASSIGN_OR_RAISE(store->idempotency_, store->env_->OpenDatabase("idempotency"));
  SKADE_ASSIGN_OR_RAISE(store->idempotency_expiry_,
                        store->env_->OpenDatabase("idempotency_expiry"));
  SKADE_ASSIGN_OR_RAISE(MDB_dbi claims, store->env_->OpenDatabase("location_claims"));
  SKADE_ASSIGN_OR_RAISE(MDB_dbi table_locations, store->env_->OpenDatabase("table_locations"));
  store->claims_ = LocationClaims(claims, table_locations);
  return store;
}

template <typename Body>
auto LmdbCatalogStore::Write(Body&& body) -> decltype(body(std::declval<WriteTxn&>())) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginWrite());
  while (true) {
    auto result = body(txn);
    if (result || !txn.map_full()) return result;
    // A full map dooms the transaction; on a larger map the same writes fit.
    // Its error says why not: the map is at its limit, or (retryable) other
    // transactions of this process kept the resize out.
    Status grown = env_->GrowMap(txn);
    if (!grown) return tl::unexpected(grown.error());
  }
}

Status LmdbCatalogStore::Commit(WriteTxn& txn, const std::vector<TableChange>& changes,
                                bool* commit_started) {
  uint64_t txn_id = txn.id();
  if (!changes.empty()) {
    std::vector<std::string> keys;
    keys.reserve(changes.size());
    for (const auto& change : changes) keys.push_back(change.table_key);
    SKADE_RETURN_NOT_OK(txn.Put(table_changes_, TableChangesKey(txn_id), EncodeStringList(keys)));
  }
  // A write transaction's id is one past the last committed one (LMDB).
  // One listener hears a write from its start to its end.
  CommitListener* listener = listener_.load();
  if (listener != nullptr) listener->OnCommitting(txn_id - 1, txn_id);
  if (commit_started != nullptr) *commit_started = true;
  Status committed = txn.Commit();
  if (listener != nullptr) {
    if (committed) {
      listener->OnCommitted(txn_id - 1, txn_id, changes);
    } else {
      listener->OnCommitFailed(txn_id);
    }
  }
  return committed;
}

// --- Namespaces -------------------------------------------------------------

Status LmdbCatalogStore::CreateNamespace(const spec::Namespace& ns, const Properties& properties) {
  return Write([&](WriteTxn& txn) -> Status {
    std::string key = NamespaceKey(ns);
    SKADE_ASSIGN_OR_RAISE(bool exists, KeyExists(txn, namespaces_, key));
    if (exists) return spec::NamespaceAlreadyExists(ns);
    if (ns.size() > 1) {
      spec::Namespace parent(ns.begin(), ns.end() - 1);
      SKADE_ASSIGN_OR_RAISE(bool parent_exists, KeyExists(txn, namespaces_, NamespaceKey(parent)));
      if (!parent_exists) {
        return MakeError(ErrorKind::kNoSuchNamespace, "Cannot create namespace ",
                         spec::NamespaceToString(ns),
                         ". Parent namespace does not exist: ", spec::NamespaceToString(parent));
      }
    }
    SKADE_ASSIGN_OR_RAISE(std::string encoded, EncodeNamespaceProperties(ns, properties));
    SKADE_RETURN_NOT_OK(txn.Put(namespaces_, key, encoded));
    return Commit(txn, {});
  });
}

Result<std::optional<Properties>> LmdbCatalogStore::GetNamespace(const spec::Namespace& ns) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(namespaces_, NamespaceKey(ns)));
  if (!value) return std::optional<Properties>();
  SKADE_ASSIGN_OR_RAISE(auto properties, DecodeProperties(*value));
  return std::optional<Properties>(std::move(properties));
}

Result<StorePage<spec::Namespace>> LmdbCatalogStore::ListNamespaces(const spec::Namespace& parent,
                                                                    const std::string& page_token,
                                                                    size_t page_size) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  std::string prefix;
  if (!parent.empty()) {
    prefix = NamespaceKey(parent);
    SKADE_ASSIGN_OR_RAISE(bool exists, KeyExists(txn, namespaces_, prefix));
    if (!exists) return NoSuchNamespace(parent);
    prefix.push_back(kNamespaceSeparator);
  }
  std::string start = prefix;
  if (!page_token.empty()) {
    SKADE_ASSIGN_OR_RAISE(std::string last, DecodePageToken(page_token));
    SKADE_RETURN_NOT_OK(CheckPageTokenOf(page_token, last, prefix, kNamespaceSeparator));
    // Resume after the last child returned and all of its descendants.
    start = last + '\x20';
  }
  StorePage<spec::Namespace> page;
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), namespaces_));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(start));
  while (found && cursor.key().starts_with(prefix)) {
    std::string_view rest = cursor.key().substr(prefix.size());
    size_t separator = rest.find(kNamespaceSeparator);
    std::string child_key = StrCat(prefix, rest.substr(0, separator));
    if (page_size != 0 && page.items.size() == page_size) {
      page.next_page_token = EncodePageToken(NamespaceKey(page.items.back()));
      break;
    }
    page.items.push_back(NamespaceFromKey(child_key));
    // Skip the child's descendants: they sort between "<child>\x1F" and "<child>\x20".
    SKADE_ASSIGN_OR_RAISE(found, cursor.Seek(child_key + '\x20'));
  }
  return page;
}

Status LmdbCatalogStore::DropNamespace(const spec::Namespace& ns) {
  return Write([&](WriteTxn& txn) -> Status {
    std::string key = NamespaceKey(ns);
    SKADE_ASSIGN_OR_RAISE(bool exists, KeyExists(txn, namespaces_, key));
    if (!exists) return NoSuchNamespace(ns);
    SKADE_ASSIGN_OR_RAISE(bool has_tables, HasPrefix(txn.raw(), tables_, TablePrefix(ns)));
    if (has_tables) {
      return MakeError(ErrorKind::kNamespaceNotEmpty, "Namespace ", spec::NamespaceToString(ns),
                       " is not empty: it contains tables");
    }
    SKADE_ASSIGN_OR_RAISE(bool has_children,
                          HasPrefix(txn.raw(), namespaces_, key + kNamespaceSeparator));
    if (has_children) {
      return MakeError(ErrorKind::kNamespaceNotEmpty, "Namespace ", spec::NamespaceToString(ns),
                       " is not empty: it contains namespaces");
    }
    SKADE_RETURN_NOT_OK(txn.Delete(namespaces_, key));
    return Commit(txn, {});
  });
}

Result<std::vector<std::string>> LmdbCatalogStore::UpdateNamespaceProperties(
    const spec::Namespace& ns, const std::vector<std::string>& removals,
    const Properties& updates) {
  return Write([&](WriteTxn& txn) -> Result<std::vector<std::string>> {
    std::string key = NamespaceKey(ns);
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(namespaces_, key));
    if (!value) return NoSuchNamespace(ns);
    SKADE_ASSIGN_OR_RAISE(Properties properties, DecodeProperties(*value));
    std::vector<std::string> missing;
    for (const auto& removal : removals) {
      if (properties.erase(removal) == 0) missing.push_back(removal);
    }
    for (const auto& [k, v] : updates) properties[k] = v;
    SKADE_ASSIGN_OR_RAISE(std::string encoded, EncodeNamespaceProperties(ns, properties));
    SKADE_RETURN_NOT_OK(txn.Put(namespaces_, key, encoded));
    SKADE_RETURN_NOT_OK(Commit(txn, {}));
    return missing;
  });
}

// --- Tables -----------------------------------------------------------------

Result<std::optional<TableRecord>> LmdbCatalogStore::GetTable(
    const spec::TableIdentifier& identifier) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, TableKey(identifier)));
  if (!value) return std::optional<TableRecord>();
  SKADE_ASSIGN_OR_RAISE(auto record, DecodeTableRecord(*value));
  return std::optional<TableRecord>(std::move(record));
}

Result<StorePage<spec::TableIdentifier>> LmdbCatalogStore::ListTables(const spec::Namespace& ns,
                                                                      const std::string& page_token,
                                                                      size_t page_size) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(bool exists, KeyExists(txn, namespaces_, NamespaceKey(ns)));
  if (!exists) return NoSuchNamespace(ns);
  std::string prefix = TablePrefix(ns);
  std::string start = prefix;
  std::string after;
  if (!page_token.empty()) {
    SKADE_ASSIGN_OR_RAISE(after, DecodePageToken(page_token));
    SKADE_RETURN_NOT_OK(CheckPageTokenOf(page_token, after, prefix));
    start = after;
  }
  StorePage<spec::TableIdentifier> page;
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), tables_));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(start));
  std::string last_key;
  while (found && cursor.key().starts_with(prefix)) {
    if (cursor.key() != after) {
      if (page_size != 0 && page.items.size() == page_size) {
        page.next_page_token = EncodePageToken(last_key);
        break;
      }
      last_key = std::string(cursor.key());
      page.items.push_back(TableIdentifierFromKey(cursor.key()));
    }
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return page;
}

Result<TableRecord> LmdbCatalogStore::DropTable(const spec::TableIdentifier& identifier) {
  return Write([&](WriteTxn& txn) -> Result<TableRecord> {
    std::string key = TableKey(identifier);
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, key));
    if (!value) return NoSuchTable(identifier);
    SKADE_ASSIGN_OR_RAISE(TableRecord record, DecodeTableRecord(*value));
    SKADE_RETURN_NOT_OK(txn.Delete(tables_, key));
    SKADE_RETURN_NOT_OK(claims_.Release(txn, record.table_id));
    SKADE_RETURN_NOT_OK(Commit(txn, {{key, std::nullopt}}));
    return record;
  });
}

Status LmdbCatalogStore::RenameTable(const spec::TableIdentifier& from,
                                     const spec::TableIdentifier& to) {
  return Write([&](WriteTxn& txn) -> Status {
    std::string from_key = TableKey(from);
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, from_key));
    if (!value) return NoSuchTable(from);
    std::string record(*value);
    SKADE_ASSIGN_OR_RAISE(TableRecord decoded, DecodeTableRecord(record));
    SKADE_ASSIGN_OR_RAISE(bool to_ns_exists, KeyExists(txn, namespaces_, NamespaceKey(to.ns)));
    if (!to_ns_exists) return NoSuchNamespace(to.ns);
    std::string to_key = TableKey(to);
    SKADE_ASSIGN_OR_RAISE(bool to_exists, KeyExists(txn, tables_, to_key));
    if (to_exists) return TableAlreadyExists(to);
    SKADE_RETURN_NOT_OK(txn.Delete(tables_, from_key));
    SKADE_RETURN_NOT_OK(txn.Put(tables_, to_key, record));
    return Commit(txn, {{from_key, std::nullopt}, {to_key, std::move(decoded)}});
  });
}

Result<TableRecord> LmdbCatalogStore::RegisterTable(
    const spec::TableIdentifier& identifier, const std::string& metadata_location,
    RegisterMode mode, const CommitOrigin& origin,
    const std::vector<std::string>& owned_locations) {
  return Write([&](WriteTxn& txn) -> Result<TableRecord> {
    SKADE_ASSIGN_OR_RAISE(bool ns_exists, KeyExists(txn, namespaces_, NamespaceKey(identifier.ns)));
    if (!ns_exists) return NoSuchNamespace(identifier.ns);
    std::string key = TableKey(identifier);
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, key));
    TableRecord record;
    if (value && mode == RegisterMode::kNew) return TableAlreadyExists(identifier);
    if (value && mode == RegisterMode::kRepoint) {
      SKADE_ASSIGN_OR_RAISE(record, DecodeTableRecord(*value));
    } else {
      if (value) {  // kReplace: dropped, so time travel never mixes the two
        SKADE_ASSIGN_OR_RAISE(TableRecord replaced, DecodeTableRecord(*value));
        SKADE_RETURN_NOT_OK(claims_.Release(txn, replaced.table_id));
      }
      SKADE_ASSIGN_OR_RAISE(uint64_t next_id, ReadCounter(txn, meta_, kNextTableIdKey));
      record.table_id = next_id + 1;
      SKADE_RETURN_NOT_OK(txn.Put(meta_, kNextTableIdKey, EncodeU64(record.table_id)));
    }
    record.metadata_location = metadata_location;
    SKADE_RETURN_NOT_OK(claims_.Claim(txn, record.table_id, identifier, owned_locations));
    SKADE_RETURN_NOT_OK(txn.Put(tables_, key, EncodeTableRecord(record)));
    SKADE_ASSIGN_OR_RAISE(uint64_t seq, ReadCounter(txn, meta_, kCommitSeqKey));
    ++seq;
    SKADE_ASSIGN_OR_RAISE(int64_t now_ms, CommitTime(txn, meta_));
    SKADE_RETURN_NOT_OK(txn.Put(meta_, kCommitSeqKey, EncodeU64(seq)));
    SKADE_RETURN_NOT_OK(txn.Put(meta_, kLastCommitMsKey, EncodeU64(now_ms)));
    CommitLogRecord commit{record.table_id, metadata_location, {},
                           now_ms,          identifier,        CommitKind::kRegister};
    if (origin != CommitOrigin{}) commit.origins.push_back(origin);
    SKADE_RETURN_NOT_OK(PutCommit(txn, seq, commit));
    SKADE_RETURN_NOT_OK(Commit(txn, {{key, record}}));
    return record;
  });
}

Result<std::vector<std::pair<spec::TableIdentifier, TableRecord>>>
LmdbCatalogStore::ReadUnclaimedTables() {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  std::vector<std::pair<spec::TableIdentifier, TableRecord>> unclaimed;
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), tables_));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(""));
  while (found) {
    SKADE_ASSIGN_OR_RAISE(TableRecord record, DecodeTableRecord(cursor.value()));
    SKADE_ASSIGN_OR_RAISE(bool recorded, claims_.Recorded(txn, record.table_id));
    if (!recorded) unclaimed.emplace_back(TableIdentifierFromKey(cursor.key()), std::move(record));
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return unclaimed;
}

Status LmdbCatalogStore::ClaimTableLocations(const spec::TableIdentifier& identifier,
                                             const std::string& metadata_location,
                                             const std::vector<std::string>& locations) {
  return Write([&](WriteTxn& txn) -> Status {
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, TableKey(identifier)));
    if (!value) return NoSuchTable(identifier);
    SKADE_ASSIGN_OR_RAISE(TableRecord record, DecodeTableRecord(*value));
    if (record.metadata_location != metadata_location) {
      return MakeRetryableError(ErrorKind::kCommitFailed, "Table ", identifier.ToString(),
                                " was changed concurrently");
    }
    SKADE_RETURN_NOT_OK(
        claims_.Claim(txn, record.table_id, identifier, locations, /*check_overlap=*/false));
    return Commit(txn, {});
  });
}

Result<std::vector<bool>> LmdbCatalogStore::FindOwnedLocations(
    const std::vector<std::string>& locations) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  std::vector<bool> owned;
  owned.reserve(locations.size());
  for (const auto& location : locations) {
    SKADE_ASSIGN_OR_RAISE(bool found, claims_.Owned(txn.raw(), location));
    owned.push_back(found);
  }
  return owned;
}

Status LmdbCatalogStore::CheckLocationsFree(const spec::TableIdentifier& identifier,
                                            const std::vector<std::string>& locations) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  for (const auto& location : locations) {
    SKADE_RETURN_NOT_OK(claims_.CheckFree(txn, LocationClaims::kNewTable, identifier, location));
  }
  return OkStatus();
}

Result<StoreStats> LmdbCatalogStore::Stats() {
  LmdbEnvInfo info = env_->Info();
  StoreStats stats;
  stats.file_bytes = info.file_bytes;
  stats.map_size_bytes = info.map_size;
  stats.map_used_bytes = info.used_bytes;
  stats.group_commit_batch_size = group_commit_batch_size_.Snapshot();
  return stats;
}

Result<std::vector<TableRecord>> LmdbCatalogStore::SwapPointers(
    const std::vector<PointerSwap>& swaps) {
  SwapRequest request{&swaps, EncodeJournal(swaps), {}};
  if (!group_commit_) {
    bool commit_started = false;
    try {
      auto txn = env_->BeginWrite();
      if (!txn) return tl::unexpected(txn.error());
      group_commit_batch_size_.Observe(1);
      CommitBatch(*txn, {&request}, &commit_started);
    } catch (const std::exception& e) {
      FailThrownBatch({&request}, commit_started, e.what());
    } catch (...) {
      FailThrownBatch({&request}, commit_started, "unknown exception");
    }
    return std::move(request.result);
  }
  std::unique_lock<std::mutex> lock(queue_mutex_);
  queue_.push_back(&request);
  while (!request.done && queue_.front() != &request) request.wake.wait(lock);
  if (request.done) return std::move(request.result);

  // The leader. It takes the batch only once it holds the writer lock, so
  // everyone who queued while it waited (for another batch's sync, another
  // process, …) rides along. Whatever happens in between, it must hand every
  // member a result and pass the lead on, or they wait forever: exceptions
  // are caught here.
  lock.unlock();
  std::vector<SwapRequest*> batch;
  bool commit_started = false;
  try {
    auto txn = env_->BeginWrite();
    lock.lock();
    batch.assign(queue_.begin(), queue_.begin() + std::min(queue_.size(), kMaxBatch));
    lock.unlock();
    group_commit_batch_size_.Observe(static_cast<double>(batch.size()));
    if (txn) {
      CommitBatch(*txn, batch, &commit_started);
    } else {
      for (SwapRequest* member : batch) member->result = tl::unexpected(txn.error());
    }
    // Destroying txn releases the writer lock before anyone wakes: the next
    // leader needs it.
  } catch (const std::exception& e) {
    if (lock.owns_lock()) lock.unlock();
    if (batch.empty()) batch.push_back(&request);
    FailThrownBatch(batch, commit_started, e.what());
  } catch (...) {
    if (lock.owns_lock()) lock.unlock();
    if (batch.empty()) batch.push_back(&request);
    FailThrownBatch(batch, commit_started, "unknown exception");
  }
  lock.lock();
  for (SwapRequest* member : batch) {
    queue_.pop_front();
    member->done = true;
    if (member != &request) member->wake.notify_one();
  }
  if (!queue_.empty()) queue_.front()->wake.notify_one();
  return std::move(request.result);
}

size_t LmdbCatalogStore::QueuedSwaps() {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  return queue_.size();
}

void LmdbCatalogStore::FailThrownBatch(const std::vector<SwapRequest*>& batch, bool commit_started,
                                       std::string_view what) {
  for (SwapRequest* request : batch) {
    if (!commit_started) {
      // Nothing reached the store; even a request that had failed on its own
      // gets the same answer, since its result may not have been set yet.
      request->result = MakeRetryableError(
          ErrorKind::kCommitFailed, "Commit not applied: the commit path failed (", what, ")");
    } else if (request->applied) {
      request->result = MakeError(ErrorKind::kCommitStateUnknown,
                                  "Commit state unknown: the commit path failed (", what, ")");
    }
  }
}

void LmdbCatalogStore::CommitBatch(WriteTxn& txn, const std::vector<SwapRequest*>& batch,
                                   bool* commit_started) {
  while (true) {
    TryCommitBatch(txn, batch, commit_started);
    if (!txn.map_full()) return;
    // A full map dooms the transaction; on a larger map the batch fits.
    Status grown = env_->GrowMap(txn);
    if (!grown) {
      // Nothing was committed: those that had fit, and those that failed on
      // the full map (kIo), fail with the reason it could not grow.
      for (SwapRequest* request : batch) {
        if (request->applied ||
            (!request->result && request->result.error().kind == ErrorKind::kIo)) {
          request->result = tl::unexpected(grown.error());
        }
      }
      return;
    }
  }
}

void LmdbCatalogStore::TryCommitBatch(WriteTxn& txn, const std::vector<SwapRequest*>& batch,
                                      bool* commit_started) {
  // A previous attempt that filled the map did not commit.
  *commit_started = false;
  for (SwapRequest* request : batch) request->applied = false;
  auto fail_all = [&](const Error& error) {
    for (SwapRequest* request : batch) request->result = tl::unexpected(error);
  };
  auto seq = ReadCounter(txn, meta_, kCommitSeqKey);
  auto next_table_id = ReadCounter(txn, meta_, kNextTableIdKey);
  auto now_ms = CommitTime(txn, meta_);
  if (!seq) return fail_all(seq.error());
  if (!next_table_id) return fail_all(next_table_id.error());
  if (!now_ms) return fail_all(now_ms.error());
  Counters counters{*seq, *next_table_id, *now_ms};

  std::vector<TableChange> changes;
  std::vector<SwapRequest*> applied;
  for (SwapRequest* request : batch) {
    // A nested transaction per request: one that fails leaves no trace.
    auto nested = txn.BeginNested();
    if (!nested) {
      request->result = tl::unexpected(nested.error());
      continue;
    }
    Counters before = counters;
    size_t changes_before = changes.size();
    request->result = ApplySwaps(*nested, *request, &counters, &changes);
    if (request->result) {
      Status merged = nested->Commit();
      if (merged) {
        applied.push_back(request);
        request->applied = true;
        continue;
      }
      request->result = tl::unexpected(merged.error());
    }
    counters = before;
    changes.resize(changes_before);
  }
  // A full map fails every later request too: the caller grows the map and
  // redoes the whole batch, so nothing of this attempt may commit.
  if (txn.map_full()) return;
  // Nothing to write (all failed, or only compare-only swaps): the checks
  // were made under the writer lock, so the results stand without a commit.
  if (applied.empty() || (changes.empty() && counters.commit_seq == *seq &&
                          counters.next_table_id == *next_table_id)) {
    return;
  }

  Status committed = txn.Put(meta_, kCommitSeqKey, EncodeU64(counters.commit_seq));
  if (committed) committed = txn.Put(meta_, kNextTableIdKey, EncodeU64(counters.next_table_id));
  if (committed) committed = txn.Put(meta_, kLastCommitMsKey, EncodeU64(counters.committed_at_ms));
  if (committed) committed = Commit(txn, changes, commit_started);
  if (!committed) {
    for (SwapRequest* request : applied) request->result = tl::unexpected(committed.error());
  }
}

Status LmdbCatalogStore::PutCommit(WriteTxn& txn, uint64_t commit_seq,
                                   const CommitLogRecord& record) {
  SKADE_RETURN_NOT_OK(
      txn.Put(commit_log_, CommitLogKey(commit_seq), EncodeCommitLogRecord(record)));
  return txn.Put(table_history_,
                 TableHistoryKey(record.table_id, record.committed_at_ms, commit_seq), "");
}

std::vector<std::string> LmdbCatalogStore::EncodeJournal(const std::vector<PointerSwap>& swaps) {
  std::vector<std::string> values;
  for (const auto& swap : swaps) {
    for (const auto& file : swap.journaled_files) values.push_back(EncodeJournaledFile(file));
  }
  return values;
}

Result<std::vector<TableRecord>> LmdbCatalogStore::ApplySwaps(WriteTxn& txn,
                                                              const SwapRequest& request,
                                                              Counters* counters,
                                                              std::vector<TableChange>* changes) {
  const std::vector<PointerSwap>& swaps = *request.swaps;
  size_t journal_value = 0;
  std::vector<TableRecord> records;
  records.reserve(swaps.size());
  // Before the pointers: a key answered before fails the call whatever they
  // say (its caller replays the answer rather than retrying).
  SKADE_RETURN_NOT_OK(PutSwapIdempotencyRecords(txn, swaps));
  for (const auto& swap : swaps) {
    std::string key = TableKey(swap.identifier);
    if (swap.compare_only() && (!swap.expected_location || !swap.added_snapshot_ids.empty() ||
                                !swap.journaled_files.empty() || !swap.released_files.empty() ||
                                !swap.idempotency_records.empty() || swap.owned_locations)) {
      return InvalidArgument("A compare-only pointer swap for ", swap.identifier.ToString(),
                             " needs an expected location and no snapshots, files, records or "
                             "locations");
    }
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, key));
    TableRecord record;
    if (!swap.expected_location) {
      if (value) return TableAlreadyExists(swap.identifier);
      SKADE_ASSIGN_OR_RAISE(bool ns_exists,
                            KeyExists(txn, namespaces_, NamespaceKey(swap.identifier.ns)));
      if (!ns_exists) return NoSuchNamespace(swap.identifier.ns);
      record.table_id = ++counters->next_table_id;
    } else {
      if (!value) return NoSuchTable(swap.identifier);
      SKADE_ASSIGN_OR_RAISE(record, DecodeTableRecord(*value));
      if (record.metadata_location != *swap.expected_location) {
        return MakeRetryableError(ErrorKind::kCommitFailed, "Commit conflict: table ",
                                  swap.identifier.ToString(), " was changed concurrently");
      }
      if (swap.compare_only()) {
        records.push_back(std::move(record));
        continue;
      }
    }
    record.metadata_location = swap.new_location;
    if (swap.owned_locations) {
      SKADE_RETURN_NOT_OK(
          claims_.Claim(txn, record.table_id, swap.identifier, *swap.owned_locations));
    }
    SKADE_RETURN_NOT_OK(txn.Put(tables_, key, EncodeTableRecord(record)));
    uint64_t seq = ++counters->commit_seq;
    SKADE_RETURN_NOT_OK(PutCommit(
        txn, seq,
        {record.table_id, swap.new_location, swap.added_snapshot_ids, counters->committed_at_ms,
         swap.identifier, swap.expected_location ? CommitKind::kUpdate : CommitKind::kCreate,
         swap.snapshot_operations, swap.origins}));
    // A snapshot id is the table's from its first commit on: one reused after
    // its snapshot expired still resolves there, as the commit-log index has it.
    for (int64_t snapshot_id : swap.added_snapshot_ids) {
      std::string snapshot_key = SnapshotKey(record.table_id, snapshot_id);
      SKADE_ASSIGN_OR_RAISE(auto known, txn.Get(snapshots_, snapshot_key));
      if (!known) SKADE_RETURN_NOT_OK(txn.Put(snapshots_, snapshot_key, swap.new_location));
    }
    for (const auto& file : swap.journaled_files) {
      SKADE_RETURN_NOT_OK(
          txn.Put(journal_, JournalKey(file.location), request.journal_values[journal_value++]));
    }
    for (const auto& location : swap.released_files) {
      SKADE_RETURN_NOT_OK(txn.Delete(journal_, JournalKey(location)));
    }
    changes->push_back({std::move(key), record});
    records.push_back(std::move(record));
  }
  return records;
}

Status LmdbCatalogStore::PutSwapIdempotencyRecords(WriteTxn& txn,
                                                   const std::vector<PointerSwap>& swaps) {
  int64_t now_ms = 0;
  bool any = false;
  for (const auto& swap : swaps) {
    for (const auto& record : swap.idempotency_records) {
      SKADE_RETURN_NOT_OK(CheckIdempotencyKey(record.key));
      now_ms = any ? std::max(now_ms, record.created_at_ms) : record.created_at_ms;
      any = true;
    }
  }
  if (!any) return OkStatus();
  // Pruned first, so that nothing this call writes is pruned with them.
  SKADE_RETURN_NOT_OK(PruneExpiredIdempotencyRecords(txn, now_ms, kPrunePerWrite));
  std::vector<const IdempotencyRecord*> written;
  for (const auto& swap : swaps) {
    for (const auto& record : swap.idempotency_records) {
      auto same_key = std::find_if(written.begin(), written.end(), [&](const IdempotencyRecord* w) {
        return w->key == record.key;
      });
      if (same_key != written.end()) {
        if (**same_key == record) continue;  // a transaction's tables share one record
        return IdempotencyKeyUsed(record.key);
      }
      SKADE_ASSIGN_OR_RAISE(auto live,
                            GetLiveIdempotencyRecord(txn, record.key, record.created_at_ms));
      if (live) return IdempotencyKeyUsed(record.key);
      SKADE_RETURN_NOT_OK(PutIdempotencyRecord(txn, record));
      written.push_back(&record);
    }
  }
  return OkStatus();
}

template <typename Txn>
Result<std::optional<IdempotencyRecord>> LmdbCatalogStore::GetLiveIdempotencyRecord(
    const Txn& txn, std::string_view key, int64_t now_ms) {
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(idempotency_, key));
  if (!value) return std::optional<IdempotencyRecord>();
  SKADE_ASSIGN_OR_RAISE(auto record, DecodeIdempotencyRecord(key, *value));
  if (record.expires_at_ms <= now_ms) return std::optional<IdempotencyRecord>();
  return std::optional<IdempotencyRecord>(std::move(record));
}

Status LmdbCatalogStore::PutIdempotencyRecord(WriteTxn& txn, const IdempotencyRecord& record) {
  SKADE_ASSIGN_OR_RAISE(auto existing, txn.Get(idempotency_, record.key));
  if (existing) {
    // An expired record of the key: its expiry entry goes with it.
    SKADE_ASSIGN_OR_RAISE(auto old, DecodeIdempotencyRecord(record.key, *existing));
    SKADE_RETURN_NOT_OK(txn.Delete(idempotency_expiry_, IdempotencyExpiryKey(old)));
  }
  SKADE_RETURN_NOT_OK(txn.Put(idempotency_, record.key, EncodeIdempotencyRecord(record)));
  return txn.Put(idempotency_expiry_, IdempotencyExpiryKey(record), "");
}

Result<size_t> LmdbCatalogStore::PruneExpiredIdempotencyRecords(WriteTxn& txn, int64_t now_ms,
                                                                size_t limit) {
  std::vector<std::string> expired;
  {
    SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), idempotency_expiry_));
    SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(""));
    while (found && expired.size() < limit &&
           static_cast<int64_t>(ReadBigEndian(cursor.key())) <= now_ms) {
      expired.emplace_back(cursor.key());
      SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
    }
  }
  for (const auto& expiry_key : expired) {
    SKADE_RETURN_NOT_OK(txn.Delete(idempotency_, KeyOfIdempotencyExpiryKey(expiry_key)));
    SKADE_RETURN_NOT_OK(txn.Delete(idempotency_expiry_, expiry_key));
  }
  return expired.size();
}

Result<std::optional<IdempotencyRecord>> LmdbCatalogStore::FindIdempotencyRecord(
    const std::string& key, int64_t now_ms) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  return GetLiveIdempotencyRecord(txn, key, now_ms);
}

Result<IdempotencyRecord> LmdbCatalogStore::RecordIdempotency(const IdempotencyRecord& record) {
  SKADE_RETURN_NOT_OK(CheckIdempotencyKey(record.key));
  return Write([&](WriteTxn& txn) -> Result<IdempotencyRecord> {
    SKADE_ASSIGN_OR_RAISE(auto live,
                          GetLiveIdempotencyRecord(txn, record.key, record.created_at_ms));
    // The earlier answer stands; nothing to write (the transaction aborts).
    if (live) return std::move(*live);
    SKADE_RETURN_NOT_OK(PruneExpiredIdempotencyRecords(txn, record.created_at_ms, kPrunePerWrite));
    SKADE_RETURN_NOT_OK(PutIdempotencyRecord(txn, record));
    SKADE_RETURN_NOT_OK(Commit(txn, {}));
    return record;
  });
}

Result<size_t> LmdbCatalogStore::PruneIdempotencyRecords(int64_t now_ms, size_t limit) {
  return Write([&](WriteTxn& txn) -> Result<size_t> {
    SKADE_ASSIGN_OR_RAISE(size_t pruned, PruneExpiredIdempotencyRecords(txn, now_ms, limit));
    // Nothing expired: no transaction, no sync.
    if (pruned == 0) return pruned;
    SKADE_RETURN_NOT_OK(Commit(txn, {}));
    return pruned;
  });
}

Result<TablePointers> LmdbCatalogStore::ReadTablePointers() {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  TablePointers pointers{txn.id(), {}};
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), tables_));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(""));
  while (found) {
    SKADE_ASSIGN_OR_RAISE(auto record, DecodeTableRecord(cursor.value()));
    pointers.tables.push_back({std::string(cursor.key()), std::move(record)});
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return pointers;
}

Result<TablePointers> LmdbCatalogStore::ReadTablePointersChangedAfter(uint64_t version) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  TablePointers pointers{txn.id(), {}};
  if (pointers.version <= version) return pointers;
  std::set<std::string> keys;
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), table_changes_));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(TableChangesKey(version + 1)));
  while (found) {
    SKADE_ASSIGN_OR_RAISE(auto changed, DecodeStringList(cursor.value(), "table change record"));
    keys.insert(std::make_move_iterator(changed.begin()), std::make_move_iterator(changed.end()));
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  for (const auto& key : keys) {
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(tables_, key));
    std::optional<TableRecord> record;
    if (value) {
      SKADE_ASSIGN_OR_RAISE(record, DecodeTableRecord(*value));
    }
    pointers.tables.push_back({key, std::move(record)});
  }
  return pointers;
}

Result<std::optional<std::string>> LmdbCatalogStore::FindSnapshot(uint64_t table_id,
                                                                  int64_t snapshot_id) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(snapshots_, SnapshotKey(table_id, snapshot_id)));
  if (!value) return std::optional<std::string>();
  return std::optional<std::string>(std::string(*value));
}

Result<std::vector<std::optional<std::string>>> LmdbCatalogStore::FindSnapshots(
    std::span<const std::pair<uint64_t, int64_t>> keys) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  std::vector<std::optional<std::string>> locations;
  locations.reserve(keys.size());
  for (const auto& [table_id, snapshot_id] : keys) {
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(snapshots_, SnapshotKey(table_id, snapshot_id)));
    locations.push_back(value ? std::optional<std::string>(std::string(*value)) : std::nullopt);
  }
  return locations;
}

Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> LmdbCatalogStore::ReadTableHistory(
    uint64_t table_id, uint64_t after, size_t limit) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  std::string start = TableHistoryKey(table_id, 0, 0);
  if (after > 0) {
    // Entries sort by time, then commit_seq: resume just past `after`'s.
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(commit_log_, CommitLogKey(after)));
    if (!value) {
      return InvalidArgument("Commit ", after,
                             " is not in the commit log (a position from another catalog, or "
                             "pruned by its retention): read the history from its start");
    }
    SKADE_ASSIGN_OR_RAISE(auto record, DecodeCommitLogRecord(*value));
    start = TableHistoryKey(table_id, record.committed_at_ms, after + 1);
  }
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), table_history_));
  std::vector<std::pair<uint64_t, CommitLogRecord>> out;
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(start));
  while (found && out.size() < limit) {
    auto [id, seq] = DecodeTableHistoryKey(cursor.key());
    if (id != table_id) break;
    if (seq > after) {
      SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(commit_log_, CommitLogKey(seq)));
      if (!value) return Corruption("Commit ", seq, " of the table history is not in the log");
      SKADE_ASSIGN_OR_RAISE(auto record, DecodeCommitLogRecord(*value));
      out.emplace_back(seq, std::move(record));
    }
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return out;
}

Result<std::optional<std::pair<uint64_t, CommitLogRecord>>> LmdbCatalogStore::FindCommitAsOf(
    uint64_t table_id, int64_t timestamp_ms) {
  using Found = std::optional<std::pair<uint64_t, CommitLogRecord>>;
  if (timestamp_ms < 0) return Found();
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), table_history_));
  // The entry before the first one after `timestamp_ms` (the next table's
  // first entry, or none: then the last one).
  bool found = false;
  if (timestamp_ms < std::numeric_limits<int64_t>::max()) {
    SKADE_ASSIGN_OR_RAISE(found, cursor.Seek(TableHistoryKey(table_id, timestamp_ms + 1, 0)));
  } else if (table_id < std::numeric_limits<uint64_t>::max()) {
    SKADE_ASSIGN_OR_RAISE(found, cursor.Seek(TableHistoryKey(table_id + 1, 0, 0)));
  }
  if (found) {
    SKADE_ASSIGN_OR_RAISE(found, cursor.Prev());
  } else {
    SKADE_ASSIGN_OR_RAISE(found, cursor.Last());
  }
  if (!found) return Found();
  auto [id, seq] = DecodeTableHistoryKey(cursor.key());
  if (id != table_id) return Found();
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(commit_log_, CommitLogKey(seq)));
  if (!value) return Corruption("Commit ", seq, " of the table history is not in the log");
  SKADE_ASSIGN_OR_RAISE(auto record, DecodeCommitLogRecord(*value));
  return Found(std::in_place, seq, std::move(record));
}

Result<std::string> LmdbCatalogStore::Backup(const std::string& directory) {
  SKADE_RETURN_NOT_OK(env_->CopyTo(directory, {kTableChangesDatabase}));
  return directory;
}

std::string LmdbCatalogStore::DerivedFileDirectory() const { return env_->path(); }

Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> LmdbCatalogStore::ReadCommitLog(
    uint64_t after, size_t limit) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  return ReadCommitLogIn(txn, after, limit);
}

Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> LmdbCatalogStore::ReadCommitLogIn(
    const ReadTxn& txn, uint64_t after, size_t limit) {
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), commit_log_));
  std::vector<std::pair<uint64_t, CommitLogRecord>> out;
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(CommitLogKey(after + 1)));
  while (found && out.size() < limit) {
    SKADE_ASSIGN_OR_RAISE(auto record, DecodeCommitLogRecord(cursor.value()));
    out.emplace_back(ReadBigEndian(cursor.key()), std::move(record));
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return out;
}

Result<uint64_t> LmdbCatalogStore::CommitSeq() {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  return ReadCounter(txn, meta_, kCommitSeqKey);
}

Result<CatalogStore::CommitLogPage> LmdbCatalogStore::ReadCommitLogPage(uint64_t after,
                                                                        size_t limit) {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  CommitLogPage page;
  CommitLogBounds& bounds = page.bounds;
  SKADE_ASSIGN_OR_RAISE(bounds.pruned_through, ReadCounter(txn, meta_, kLogPrunedSeqKey));
  SKADE_ASSIGN_OR_RAISE(uint64_t pruned_ms, ReadCounter(txn, meta_, kLogPrunedMsKey));
  bounds.pruned_before_ms = static_cast<int64_t>(pruned_ms);
  SKADE_ASSIGN_OR_RAISE(bounds.last_seq, ReadCounter(txn, meta_, kCommitSeqKey));
  if (limit > 0) {
    SKADE_ASSIGN_OR_RAISE(page.entries, ReadCommitLogIn(txn, after, limit));
  }
  return page;
}

Result<size_t> LmdbCatalogStore::PruneCommitLog(int64_t before_ms, size_t limit) {
  return Write([&](WriteTxn& txn) -> Result<size_t> {
    SKADE_ASSIGN_OR_RAISE(uint64_t pruned_through, ReadCounter(txn, meta_, kLogPrunedSeqKey));
    SKADE_ASSIGN_OR_RAISE(uint64_t pruned_ms, ReadCounter(txn, meta_, kLogPrunedMsKey));
    const auto drop = [&](uint64_t seq, const std::string& history_key) -> Status {
      SKADE_RETURN_NOT_OK(txn.Delete(commit_log_, CommitLogKey(seq)));
      SKADE_RETURN_NOT_OK(txn.Delete(table_history_, history_key));
      return OkStatus();
    };
    size_t examined = 0;
    while (examined < limit) {
      // Deleting moves cursors; each step seeks afresh (one B-tree descent).
      SKADE_ASSIGN_OR_RAISE(auto log, Cursor::Open(txn.raw(), commit_log_));
      SKADE_ASSIGN_OR_RAISE(bool found, log.Seek(CommitLogKey(pruned_through + 1)));
      if (!found) break;
      const uint64_t seq = ReadBigEndian(log.key());
      SKADE_ASSIGN_OR_RAISE(auto record, DecodeCommitLogRecord(log.value()));
      if (record.committed_at_ms >= before_ms) break;
      ++examined;
      pruned_through = seq;
      // The table's entries before this one are what earlier prunes kept as
      // its last before their cutoff: this one supersedes them.
      SKADE_ASSIGN_OR_RAISE(auto history, Cursor::Open(txn.raw(), table_history_));
      std::vector<std::pair<uint64_t, std::string>> superseded;
      SKADE_ASSIGN_OR_RAISE(found, history.Seek(TableHistoryKey(record.table_id, 0, 0)));
      while (found) {
        auto [id, earlier] = DecodeTableHistoryKey(history.key());
        if (id != record.table_id || earlier >= seq) break;
        superseded.emplace_back(earlier, std::string(history.key()));
        SKADE_ASSIGN_OR_RAISE(found, history.Next());
      }
      // This one goes too if a later commit of the table is before the cutoff.
      const std::string own_key = TableHistoryKey(record.table_id, record.committed_at_ms, seq);
      SKADE_ASSIGN_OR_RAISE(found, history.Seek(own_key));
      if (found) {
        SKADE_ASSIGN_OR_RAISE(found, history.Next());
      }
      bool superseded_too = false;
      if (found) {
        auto [id, later] = DecodeTableHistoryKey(history.key());
        SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(commit_log_, CommitLogKey(later)));
        if (id == record.table_id && value) {
          SKADE_ASSIGN_OR_RAISE(auto next, DecodeCommitLogRecord(*value));
          superseded_too = next.committed_at_ms < before_ms;
        }
      }
      for (const auto& [earlier, key] : superseded) SKADE_RETURN_NOT_OK(drop(earlier, key));
      if (superseded_too) SKADE_RETURN_NOT_OK(drop(seq, own_key));
    }
    if (examined == 0) return examined;
    SKADE_RETURN_NOT_OK(txn.Put(meta_, kLogPrunedSeqKey, EncodeU64(pruned_through)));
    SKADE_RETURN_NOT_OK(
        txn.Put(meta_, kLogPrunedMsKey,
                EncodeU64(std::max<uint64_t>(
                    pruned_ms, static_cast<uint64_t>(std::max<int64_t>(before_ms, 0))))));
    SKADE_RETURN_NOT_OK(Commit(txn, {}));
    return examined;
  });
}

Result<std::vector<JournaledFile>> LmdbCatalogStore::ReadJournaledFiles() {
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), journal_));
  std::vector<JournaledFile> files;
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(""));
  while (found) {
    SKADE_ASSIGN_OR_RAISE(auto file, DecodeJournaledFile(cursor.value()));
    files.push_back(std::move(file));
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return files;
}

Result<std::vector<std::string>> LmdbCatalogStore::ReadJournaledDeltasOn(
    const std::vector<std::string>& bases) {
  std::vector<std::string> deltas;
  if (bases.empty()) return deltas;
  std::set<std::string, std::less<>> wanted(bases.begin(), bases.end());
  SKADE_ASSIGN_OR_RAISE(auto txn, env_->BeginRead());
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), journal_));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(""));
  while (found) {
    SKADE_ASSIGN_OR_RAISE(auto delta, DecodeJournaledDelta(cursor.value()));
    if (delta && wanted.contains(delta->base)) deltas.emplace_back(delta->location);
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return deltas;
}

Status LmdbCatalogStore::ReleaseJournaledFiles(const std::vector<std::string>& locations) {
  if (locations.empty()) return OkStatus();
  return Write([&](WriteTxn& txn) -> Status {
    bool released = false;
    for (const auto& location : locations) {
      SKADE_ASSIGN_OR_RAISE(bool existed, txn.Delete(journal_, JournalKey(location)));
      released = released || existed;
    }
    // Nothing to drop (released already, by a swap or another process):
    // no transaction, no sync.
    if (!released) return OkStatus();
    return Commit(txn, {});
  });
}

Status LmdbCatalogStore::RestoreJournaledFiles(
    const std::vector<std::string>& locations,
    const std::function<Status(const JournaledFile&)>& restore) {
  if (locations.empty()) return OkStatus();
  return Write([&](WriteTxn& txn) -> Status {
    bool released = false;
    for (const auto& location : locations) {
      std::string key = JournalKey(location);
      SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(journal_, key));
      if (!value) continue;
      // A copy: the value's pages are valid only until the next write.
      SKADE_ASSIGN_OR_RAISE(JournaledFile file, DecodeJournaledFile(*value));
      if (file.location != location) continue;  // another location's hash
      SKADE_RETURN_NOT_OK(restore(file));
      SKADE_RETURN_NOT_OK(txn.Delete(journal_, key));
      released = true;
    }
    if (!released) return OkStatus();
    return Commit(txn, {});
  });
}

Status LmdbCatalogStore::Sync(const std::function<Status()>& with_commits_held) {
  // An open write transaction is the writer lock; it writes nothing.
  SKADE_ASSIGN_OR_RAISE(auto writer, env_->BeginWrite());
  SKADE_RETURN_NOT_OK(with_commits_held());
  return env_->Sync();
}

}  // namespace skade::store::lmdb
