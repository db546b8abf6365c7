#include "skade/catalog/table_pointer_mirror.h"

#include <xxhash.h>

#include <cstring>
#include <new>
#include <string>

#include "skade/cache/epoch.h"
#include "skade/cache/metadata_cache.h"
#include "skade/store/keys.h"

namespace skade::catalog {

namespace {

uint64_t KeyHash(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

}  // namespace

TablePointerMirror::Entry* TablePointerMirror::Entry::Make(std::string_view key, uint64_t hash,
                                                           const store::TableRecord& record) {
  const std::string& location = record.metadata_location;
  void* memory = ::operator new(sizeof(Entry) + key.size() + location.size());
  auto* entry = new (memory) Entry();
  entry->hash_ = hash;
  entry->table_id_ = record.table_id;
  entry->location_hash_ = cache::MetadataCache::Hash(location);
  entry->key_size_ = static_cast<uint32_t>(key.size());
  entry->location_size_ = static_cast<uint32_t>(location.size());
  char* chars = reinterpret_cast<char*>(entry + 1);
  std::memcpy(chars, key.data(), key.size());
  std::memcpy(chars + key.size(), location.data(), location.size());
  return entry;
}

void TablePointerMirror::Entry::Free(void* entry) {
  static_cast<Entry*>(entry)->~Entry();
  ::operator delete(entry);
}

Result<std::unique_ptr<TablePointerMirror>> TablePointerMirror::Open(store::CatalogStore* store) {
  std::unique_ptr<TablePointerMirror> mirror(new TablePointerMirror(store));
  SKADE_ASSIGN_OR_RAISE(auto pointers, store->ReadTablePointers());
  {
    std::lock_guard<std::mutex> lock(mirror->update_mutex_);
    mirror->ApplyLocked(pointers.tables);
    mirror->synced_txn_.store(pointers.txn_id);
  }
  store->SetCommitListener(mirror.get());
  return mirror;
}

TablePointerMirror::~TablePointerMirror() {
  store_->SetCommitListener(nullptr);
  for (auto& shard : shards_) {
    shard.ForEach([](const Entry* entry) { Entry::Free(const_cast<Entry*>(entry)); });
  }
}

Result<const TablePointerMirror::Entry*> TablePointerMirror::Find(
    const spec::TableIdentifier& identifier) {
  SKADE_RETURN_NOT_OK(EnsureFresh());
  // Reused per thread: building the key allocates nothing after warm-up.
  thread_local std::string key;
  key.clear();
  store::AppendTableKey(&key, identifier);
  uint64_t hash = KeyHash(key);
  return ShardFor(hash).Find(hash, key);
}

Status TablePointerMirror::EnsureFresh() {
  uint64_t synced = synced_txn_.load();
  uint64_t last = store_->env().LastTxnId();
  if (last == synced) return OkStatus();
  if (last == synced + 1 && committing_txn_.load() == last) return OkStatus();
  std::lock_guard<std::mutex> lock(update_mutex_);
  // Whoever held the mutex may have caught up (or published) meanwhile.
  if (synced_txn_.load() == store_->env().LastTxnId()) return OkStatus();
  return CatchUpLocked();
}

Status TablePointerMirror::CatchUpLocked() {
  uint64_t synced = synced_txn_.load();
  SKADE_ASSIGN_OR_RAISE(auto changed, store_->ReadTablePointersChangedAfter(synced));
  if (changed.txn_id <= synced) return OkStatus();
  ApplyLocked(changed.tables);
  synced_txn_.store(changed.txn_id);
  return OkStatus();
}

void TablePointerMirror::ApplyLocked(const std::vector<store::TableChange>& changes) {
  for (const auto& change : changes) {
    uint64_t hash = KeyHash(change.table_key);
    auto& shard = ShardFor(hash);
    // Only this (locked) writer retires entries, so no guard is needed here.
    const Entry* existing = shard.Find(hash, change.table_key);
    if (change.record) {
      const Entry* replacement = Entry::Make(change.table_key, hash, *change.record);
      if (existing == nullptr) {
        shard.Insert(replacement);
        continue;
      }
      shard.Replace(existing, replacement);
    } else {
      if (existing == nullptr) continue;
      shard.Erase(existing);
    }
    cache::Retire(const_cast<Entry*>(existing), &Entry::Free);
  }
}

void TablePointerMirror::OnCommitting(uint64_t txn_id) {
  std::lock_guard<std::mutex> lock(update_mutex_);
  committing_txn_.store(synced_txn_.load() + 1 == txn_id ? txn_id : 0);
}

void TablePointerMirror::OnCommitted(uint64_t txn_id,
                                     const std::vector<store::TableChange>& changes) {
  std::lock_guard<std::mutex> lock(update_mutex_);
  uint64_t synced = synced_txn_.load();
  if (synced + 1 == txn_id) {
    ApplyLocked(changes);
    synced_txn_.store(txn_id);
  } else if (synced < txn_id) {
    // Another process (or store instance) committed in between: read
    // everything since, which includes this transaction. If that fails, the
    // mirror stays behind LMDB's last transaction id and the next Find()
    // retries, so the error has nowhere better to go.
    (void)CatchUpLocked();
  }
  committing_txn_.store(0);
}

void TablePointerMirror::OnCommitFailed(uint64_t /*txn_id*/) {
  std::lock_guard<std::mutex> lock(update_mutex_);
  committing_txn_.store(0);
}

}  // namespace skade::catalog
