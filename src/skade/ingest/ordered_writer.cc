#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "skade/ingest/ordered_writer_internal.h"

namespace skade::ingest {

Status WriteInOrder(io::FileIO& io, bool durable, const std::vector<FileToWrite>& files, int depth,
                    std::stop_token stop, const std::function<Status(size_t)>& deliver,
                    std::vector<uint8_t>* stored) {
  const size_t n = files.size();
  const size_t window = static_cast<size_t>(std::max(depth, 1));
  std::mutex mutex;
  std::condition_variable changed;
  size_t next_claim = 0;                       // the next file a writer may start
  size_t delivered = 0;                        // files handed to `deliver`
  bool ending = false;                         // no more claims
  std::vector<std::optional<Status>> done(n);  // the reorder buffer
  stored->assign(n, 0);

  auto writer = [&] {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock,
                   [&] { return ending || next_claim >= n || next_claim < delivered + window; });
      if (ending || next_claim >= n) return;
      size_t index = next_claim++;
      lock.unlock();
      Status written = io.WriteFile(files[index].location, *files[index].bytes, durable);
      lock.lock();
      (*stored)[index] = written.has_value();
      done[index] = std::move(written);
      changed.notify_all();
    }
  };
  std::vector<std::thread> writers;
  for (size_t i = 0; i < std::min(window, n); ++i) writers.emplace_back(writer);

  Status result = OkStatus();
  for (size_t index = 0; index < n; ++index) {
    std::optional<Status> written;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return done[index].has_value(); });
      written = std::move(done[index]);
    }
    if (!*written) {
      result = std::move(*written);
      break;
    }
    if (stop.stop_requested()) {
      result = MakeError(ErrorKind::kCancelled, "Ingest cancelled");
      break;
    }
    if (Status delivered_ok = deliver(index); !delivered_ok) {
      result = std::move(delivered_ok);
      break;
    }
    std::lock_guard lock(mutex);
    delivered = index + 1;
    changed.notify_all();
  }
  {
    std::lock_guard lock(mutex);
    ending = true;
    changed.notify_all();
  }
  for (std::thread& thread : writers) thread.join();
  return result;
}

}  // namespace skade::ingest
