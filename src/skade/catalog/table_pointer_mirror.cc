#include "skade/catalog/table_pointer_mirror.h"

#include <xxhash.h>

#include <cstring>
#include <new>
#include <string>

#include "skade/cache/epoch.h"
#include "skade/cache/metadata_cache.h"
#include "skade/store/table_key.h"

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
    mirror->synced_version_.store(pointers.version);
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
  uint64_t synced = synced_version_.load();
  uint64_t last = store_->LastVersion();
  if (last == synced) return OkStatus();
  if (last == committing_version_.load()) return OkStatus();
  std::lock_guard<std::mutex> lock(update_mutex_);
  // Whoever held the mutex may have caught up (or published) meanwhile.
  if (synced_version_.load() == store_->LastVersion()) return OkStatus();
  return CatchUpLocked();
}

Status TablePointerMirror::CatchUpLocked() {
  uint64_t synced = synced_version_.load();
  SKADE_ASSIGN_OR_RAISE(auto changed, store_->ReadTablePointersChangedAfter(synced));
  if (changed.version <= synced) return OkStatus();
  ApplyLocked(changed.tables);
  synced_version_.store(changed.version);
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

void TablePointerMirror::OnCommitting(uint64_t previous, uint64_t version) {
  std::lock_guard<std::mutex> lock(update_mutex_);
  committing_version_.store(synced_version_.load() == previous ? version : 0);
}

void TablePointerMirror::OnCommitted(uint64_t previous, uint64_t version,
                                     const std::vector<store::TableChange>& changes) {
  std::lock_guard<std::mutex> lock(update_mutex_);
  uint64_t synced = synced_version_.load();
  if (synced == previous) {
    ApplyLocked(changes);
    synced_version_.store(version);
  } else if (synced < version) {
    // Another process (or store instance) committed in between: read
    // everything since, which includes this commit. If that fails, the
    // mirror stays behind the store's last version and the next Find()
    // retries, so the error has nowhere better to go.
    (void)CatchUpLocked();
  }
  committing_version_.store(0);
}

void TablePointerMirror::OnCommitFailed(uint64_t /*version*/) {
  std::lock_guard<std::mutex> lock(update_mutex_);
  committing_version_.store(0);
}

}  // namespace skade::catalog
