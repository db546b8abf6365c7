#include "skade/catalog/metadata_flusher.h"

#include <chrono>
#include <set>

#include "skade/catalog/journal_recovery.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// At immediate, a round starts before its interval once this many journaled
// files wait: it keeps the store's journal (and so its transactions' size)
// bounded under a high commit rate.
constexpr size_t kWakeAtJournaledFiles = 4096;

void KeepFirst(Status* first, Status status) {
  if (*first && !status) *first = std::move(status);
}

}  // namespace

MetadataFlusher::MetadataFlusher(io::FileIO* io, io::TrackingFileIO* tracking,
                                 store::CatalogStore* store, int interval_ms)
    : io_(io), tracking_(tracking), store_(store), interval_ms_(interval_ms) {
  if (interval_ms_ > 0) thread_ = std::thread([this] { Run(); });
}

MetadataFlusher::~MetadataFlusher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  (void)Flush();  // logged
}

void MetadataFlusher::AddJournaled(std::string location) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    journaled_.push_back(std::move(location));
    if (journaled_.size() == kWakeAtJournaledFiles) wake = wake_early_ = true;
  }
  if (wake) wake_.notify_all();
}

Status MetadataFlusher::Flush() {
  std::lock_guard<std::mutex> lock(round_mutex_);
  Status status = Round();
  if (!status) {
    LogWarning(StrCat("durability flush failed, retried next round: ", status.error().message));
  }
  return status;
}

Status MetadataFlusher::SyncFiles(std::vector<std::string> files,
                                  std::vector<std::string>* failed) {
  if (files.empty()) return OkStatus();
  Status synced = io_->SyncFiles(files);
  if (!synced) failed->insert(failed->end(), files.begin(), files.end());
  return synced;
}

Status MetadataFlusher::Round() {
  Status status = OkStatus();
  if (tracking_ != nullptr) KeepFirst(&status, SyncWritten());
  KeepFirst(&status, ReleaseJournaled());
  return status;
}

Status MetadataFlusher::SyncWritten() {
  std::vector<std::string> files = std::exchange(failed_, {});
  for (auto& location : tracking_->TakeWritten()) files.push_back(std::move(location));
  std::vector<std::string> failed;
  // The bulk, while commits go on.
  Status status = SyncFiles(std::move(files), &failed);
  // The files written meanwhile, then the store, with commits held off. If
  // commits cannot be held, those files stay tracked for the next round.
  Status synced = store_->Sync([&]() -> Status {
    KeepFirst(&status, SyncFiles(tracking_->TakeWritten(), &failed));
    if (failed.empty()) return OkStatus();
    return IoError(status.error().message, " (", failed.size(),
                   " files pending; the store is not synced until they are)");
  });
  failed_ = std::move(failed);
  return synced;
}

Status MetadataFlusher::ReleaseJournaled() {
  std::vector<std::string> files = std::exchange(failed_journaled_, {});
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& location : journaled_) files.push_back(std::move(location));
    journaled_.clear();
    wake_early_ = false;
  }
  // The files something was in the way of are retried apart (and not
  // logged again), so the rest keep their one sync.
  std::vector<std::string> in_the_way = std::exchange(in_the_way_, {});
  Status status = Release(std::move(files), /*log_in_the_way=*/true);
  KeepFirst(&status, Release(std::move(in_the_way), /*log_in_the_way=*/false));
  return status;
}

Status MetadataFlusher::Release(std::vector<std::string> files, bool log_in_the_way) {
  if (files.empty()) return OkStatus();
  // Files that are gone are released too: deleted on purpose (and released
  // first), or by someone else; either way there is nothing to restore. A
  // file something is in the way of stays journaled, and is tried again.
  auto synced = SyncWhatCanBe(*io_, files, log_in_the_way);
  Status status =
      synced ? store_->ReleaseJournaledFiles(*synced) : Status(tl::unexpected(synced.error()));
  if (!status) {
    failed_journaled_.insert(failed_journaled_.end(), files.begin(), files.end());
  } else if (synced->size() < files.size()) {
    std::set<std::string> released(synced->begin(), synced->end());
    for (auto& file : files) {
      if (!released.contains(file)) in_the_way_.push_back(std::move(file));
    }
  }
  return status;
}

void MetadataFlusher::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_),
                   [this] { return stop_ || wake_early_; });
    if (stop_) break;
    lock.unlock();
    (void)Flush();  // logged
    lock.lock();
  }
}

}  // namespace skade::catalog
