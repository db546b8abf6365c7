#include "skade/catalog/metadata_flusher.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

#include "skade/io/file_io.h"

namespace skade::catalog {

MetadataFlusher::MetadataFlusher(store::LmdbEnv* env, int interval_ms)
    : env_(env), interval_ms_(interval_ms), thread_([this] { Run(); }) {}

MetadataFlusher::~MetadataFlusher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  Flush();
}

void MetadataFlusher::Track(std::string location) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.push_back(std::move(location));
}

void MetadataFlusher::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  FlushLocked(lock);
}

void MetadataFlusher::FlushLocked(std::unique_lock<std::mutex>& lock) {
  std::vector<std::string> files;
  files.swap(pending_);
  lock.unlock();
  for (const auto& location : files) {
    auto path = io::LocalPath(location);
    if (!path) continue;
    int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // deleted since (a lost commit race): nothing to keep
    ::fdatasync(fd);
    ::close(fd);
  }
  // Errors here cannot be reported to the commits they concern (already
  // acknowledged); the next round retries the store sync.
  (void)env_->Sync();
  lock.lock();
}

void MetadataFlusher::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; });
    if (stop_) break;
    FlushLocked(lock);
  }
}

}  // namespace skade::catalog
