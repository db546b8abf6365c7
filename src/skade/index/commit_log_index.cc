#include "skade/index/commit_log_index.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

#include "skade/cache/epoch.h"
#include "skade/index/snapshot_index_file.h"
#include "skade/util/clock.h"
#include "skade/util/log.h"

namespace skade::index {

namespace {

// Commit-log entries read per store transaction while building.
constexpr size_t kLogPage = 1 << 16;
// Rebuilds run below the threads that serve requests.
constexpr int kCompactorNice = 10;

}  // namespace

CommitLogIndex::CommitLogIndex(store::CatalogStore* store, std::shared_ptr<io::FileIO> local_io,
                               const CommitLogIndexOptions& options)
    : store_(store), local_io_(std::move(local_io)), options_(options) {
  if (options_.use_files && local_io_) directory_ = store_->DerivedFileDirectory();
}

Result<std::unique_ptr<CommitLogIndex>> CommitLogIndex::Open(store::CatalogStore* store,
                                                             std::shared_ptr<io::FileIO> local_io,
                                                             const CommitLogIndexOptions& options) {
  std::unique_ptr<CommitLogIndex> index(new CommitLogIndex(store, std::move(local_io), options));
  if (!index->directory_.empty()) {
    auto mapped = index->OpenNewestFile();
    if (!mapped) {
      LogWarning(mapped.error().message);
    } else if (*mapped) {
      index->Publish(std::move(*mapped), /*mapped=*/true);
    }
  }
  if (options.background) {
    index->compactor_ = std::thread([raw = index.get()] { raw->RunCompactor(); });
  } else {
    SKADE_RETURN_NOT_OK(index->Rebuild());
  }
  return index;
}

CommitLogIndex::~CommitLogIndex() {
  {
    std::lock_guard lock(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (compactor_.joinable()) compactor_.join();
  // No lookup may run during destruction, so no reader holds the index.
  delete published_.exchange(nullptr);
}

Result<std::unique_ptr<const SnapshotIndex>> CommitLogIndex::OpenNewestFile() {
  SKADE_ASSIGN_OR_RAISE(auto files, ListSnapshotIndexFiles(*local_io_, directory_));
  SKADE_ASSIGN_OR_RAISE(uint64_t seq, store_->CommitSeq());
  for (const auto& [covered_seq, location] : files) {
    if (covered_seq > seq) continue;  // not this store's (restored, replaced)
    auto index = OpenSnapshotIndexFile(location);
    if (!index) {
      // Torn by a crash while written, or damaged: rebuilt, never trusted.
      LogWarning(index.error().message);
      continue;
    }
    // The store's commit covered_seq must be the one the file covers.
    std::string expected;
    if (covered_seq > 0) {
      SKADE_ASSIGN_OR_RAISE(auto log, store_->ReadCommitLog(covered_seq - 1, 1));
      if (log.empty() || log.front().first != covered_seq) continue;
      expected = log.front().second.metadata_location;
    }
    if ((*index)->covered_location() != expected) continue;
    return std::move(*index);
  }
  return std::unique_ptr<const SnapshotIndex>();
}

void CommitLogIndex::Publish(std::unique_ptr<const SnapshotIndex> index, bool mapped) {
  const SnapshotIndex* old = published_.exchange(index.release());
  published_mapped_.store(mapped);
  if (old != nullptr) cache::RetireObject(old);
}

Result<std::optional<std::string>> CommitLogIndex::Find(uint64_t table_id, int64_t snapshot_id) {
  {
    cache::EpochGuard guard;
    if (const SnapshotIndex* index = published_.load()) {
      if (auto hit = index->Find(table_id, snapshot_id)) {
        index_hits_.fetch_add(1, std::memory_order_relaxed);
        return std::optional<std::string>(std::string(*hit));
      }
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto found, store_->FindSnapshot(table_id, snapshot_id));
  if (!found) {
    absent_.fetch_add(1, std::memory_order_relaxed);
  } else if (tail_hits_.fetch_add(1, std::memory_order_relaxed) + 1 ==
             options_.rebuild_after_tail_hits) {
    Kick();
  }
  return found;
}

Result<std::vector<std::optional<std::string>>> CommitLogIndex::FindMany(
    std::span<const SnapshotIndexKey> keys) {
  std::vector<std::optional<std::string>> out(keys.size());
  std::vector<SnapshotIndexKey> missed;
  std::vector<size_t> missed_at;
  {
    cache::EpochGuard guard;
    const SnapshotIndex* index = published_.load();
    std::vector<std::optional<std::string_view>> hits(keys.size());
    if (index != nullptr) index->FindBatch(keys, hits);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (hits[i]) {
        out[i].emplace(*hits[i]);
      } else {
        missed.push_back(keys[i]);
        missed_at.push_back(i);
      }
    }
  }
  index_hits_.fetch_add(keys.size() - missed.size(), std::memory_order_relaxed);
  if (missed.empty()) return out;
  SKADE_ASSIGN_OR_RAISE(auto found, store_->FindSnapshots(missed));
  uint64_t tail = 0;
  for (size_t i = 0; i < missed.size(); ++i) {
    if (found[i]) ++tail;
    out[missed_at[i]] = std::move(found[i]);
  }
  absent_.fetch_add(missed.size() - tail, std::memory_order_relaxed);
  uint64_t before = tail_hits_.fetch_add(tail, std::memory_order_relaxed);
  if (before < options_.rebuild_after_tail_hits &&
      before + tail >= options_.rebuild_after_tail_hits) {
    Kick();
  }
  return out;
}

Status CommitLogIndex::Rebuild() {
  std::lock_guard build_lock(rebuild_mutex_);
  SKADE_ASSIGN_OR_RAISE(uint64_t target, store_->CommitSeq());
  // Only this (locked) function replaces the published index, so `base`
  // stays alive without a guard.
  const SnapshotIndex* base = published_.load();
  if (base != nullptr && base->covered_seq() == target) return OkStatus();
  if (base != nullptr && base->covered_seq() > target) base = nullptr;  // the store went back
  SnapshotIndexBuilder builder(base);
  uint64_t after = base ? base->covered_seq() : 0;
  while (after < target) {
    SKADE_ASSIGN_OR_RAISE(auto page, store_->ReadCommitLog(after, kLogPage));
    if (page.empty()) break;
    for (const auto& [seq, record] : page) {
      if (seq > target) break;
      SKADE_RETURN_NOT_OK(builder.Add(seq, record));
      after = seq;
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto built, builder.Finish());
  uint64_t covered = built->covered_seq();
  // Counted from here: tail hits of commits this build folds in.
  tail_hits_.store(0, std::memory_order_relaxed);
  last_build_ms_.store(NowMillis(), std::memory_order_relaxed);
  builds_.fetch_add(1, std::memory_order_relaxed);
  if (directory_.empty()) {
    Publish(std::move(built), /*mapped=*/false);
    return OkStatus();
  }
  // Published mapped, so the built copy's memory is not held: the page cache
  // keeps what lookups touch. A file of that name may be there already:
  // another process's (the same index), or one left for another store.
  Result<std::unique_ptr<const SnapshotIndex>> mapped = MappedCopy(*built);
  if (!mapped) {
    LogWarning("The snapshot index is kept in memory only: " + mapped.error().message);
    Publish(std::move(built), /*mapped=*/false);
    return OkStatus();
  }
  Publish(std::move(*mapped), /*mapped=*/true);
  DeleteOlderFiles(covered);
  return OkStatus();
}

Result<std::unique_ptr<const SnapshotIndex>> CommitLogIndex::MappedCopy(
    const SnapshotIndex& built) {
  for (int attempt = 0;; ++attempt) {
    SKADE_ASSIGN_OR_RAISE(std::string location,
                          WriteSnapshotIndexFile(*local_io_, directory_, built));
    auto mapped = OpenSnapshotIndexFile(location);
    if (mapped && (*mapped)->covered_seq() == built.covered_seq() &&
        (*mapped)->covered_location() == built.covered_location() &&
        (*mapped)->size() == built.size()) {
      return mapped;
    }
    if (attempt == 1) {
      return mapped ? Corruption("Snapshot index file ", location, " is not this store's")
                    : tl::unexpected(mapped.error());
    }
    // Not this index (torn, or another store's): replaced once.
    SKADE_RETURN_NOT_OK(local_io_->DeleteFile(location));
  }
}

void CommitLogIndex::DeleteOlderFiles(uint64_t covered_seq) {
  auto files = ListSnapshotIndexFiles(*local_io_, directory_);
  if (!files) return;
  // Other processes may still map them; a mapping outlives its file's name.
  for (const auto& [seq, location] : *files) {
    if (seq < covered_seq) (void)local_io_->DeleteFile(location);
  }
}

Result<bool> CommitLogIndex::Due() {
  SKADE_ASSIGN_OR_RAISE(uint64_t seq, store_->CommitSeq());
  uint64_t covered = 0;
  {
    cache::EpochGuard guard;
    if (const SnapshotIndex* index = published_.load()) covered = index->covered_seq();
  }
  if (seq <= covered && published_.load() != nullptr) return false;
  return seq - covered >= options_.rebuild_after_commits ||
         tail_hits_.load(std::memory_order_relaxed) >= options_.rebuild_after_tail_hits ||
         NowMillis() - last_build_ms_.load(std::memory_order_relaxed) >=
             options_.rebuild_interval_ms;
}

void CommitLogIndex::Kick() {
  // Lookups do not take the mutex: a wake-up lost to the race is caught by
  // the next poll.
  kicked_.store(true);
  wake_.notify_all();
}

void CommitLogIndex::RunCompactor() {
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kCompactorNice);
  // With no index file to start from, the first build is due at once;
  // otherwise the time ceiling counts from the open.
  last_build_ms_.store(published_.load() ? NowMillis() : 0, std::memory_order_relaxed);
  std::unique_lock lock(wake_mutex_);
  while (!stopping_) {
    lock.unlock();
    kicked_.store(false);
    auto due = Due();
    if (due && *due) {
      Status built = Rebuild();
      if (!built) LogWarning("Snapshot index rebuild failed: " + built.error().message);
    }
    lock.lock();
    wake_.wait_for(lock, std::chrono::milliseconds(options_.poll_interval_ms),
                   [this] { return stopping_ || kicked_.load(); });
  }
}

CommitLogIndexStats CommitLogIndex::stats() const {
  CommitLogIndexStats stats;
  {
    cache::EpochGuard guard;
    if (const SnapshotIndex* index = published_.load()) {
      stats.covered_seq = index->covered_seq();
      stats.keys = index->size();
    }
  }
  stats.builds = builds_.load();
  stats.index_hits = index_hits_.load();
  stats.tail_hits = tail_hits_.load();
  stats.absent = absent_.load();
  stats.mapped = published_mapped_.load();
  return stats;
}

}  // namespace skade::index
