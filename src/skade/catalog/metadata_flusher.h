// Background durability for Durability::kEventual: every interval, fsyncs
// the metadata files written since the last round, then the LMDB store —
// in that order, so a durable pointer never names a file that is not.
//
// Thread-safe. The destructor performs a final flush.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "skade/store/lmdb.h"

namespace skade::catalog {

class MetadataFlusher {
 public:
  MetadataFlusher(store::LmdbEnv* env, int interval_ms);
  ~MetadataFlusher();
  MetadataFlusher(const MetadataFlusher&) = delete;
  MetadataFlusher& operator=(const MetadataFlusher&) = delete;

  /// Queues a written local metadata file for the next round.
  void Track(std::string location);
  /// Flushes now and waits for it.
  void Flush();

 private:
  void Run();
  void FlushLocked(std::unique_lock<std::mutex>& lock);

  store::LmdbEnv* env_;
  int interval_ms_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::string> pending_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace skade::catalog
