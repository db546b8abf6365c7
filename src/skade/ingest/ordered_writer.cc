#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "skade/ingest/ordered_writer_internal.h"

namespace skade::ingest {

Status WriteInOrder(io::FileIO& io, bool durable, const FileSource& next,
                    const std::function<void()>& unblock_source, int depth, std::stop_token stop,
                    const std::function<Status(size_t)>& deliver, std::vector<uint8_t>* stored) {
  const size_t window = static_cast<size_t>(std::max(depth, 1));
  std::mutex mutex;
  std::condition_variable changed;
  // One writer at a time asks the source, so files are claimed in index
  // order; never held together with `mutex` while the source blocks.
  std::mutex claim_mutex;
  size_t claimed = 0;                      // files taken from the source
  size_t delivered = 0;                    // files handed to `deliver`
  bool ending = false;                     // no more claims
  bool exhausted = false;                  // the source has no more files
  std::deque<std::optional<Status>> done;  // the reorder buffer, by index
  stored->clear();

  auto writer = [&] {
    for (;;) {
      std::unique_lock claim(claim_mutex);
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return ending || exhausted || claimed < delivered + window; });
        if (ending || exhausted) return;
      }
      std::optional<FileToWrite> file = next();
      size_t index;
      {
        std::lock_guard lock(mutex);
        if (!file) {
          exhausted = true;
          changed.notify_all();
          return;
        }
        if (ending) return;
        index = claimed++;
        done.emplace_back();
        stored->push_back(0);
      }
      claim.unlock();
      Status written = io.WriteFile(file->location, *file->bytes, durable);
      std::lock_guard lock(mutex);
      (*stored)[index] = written.has_value();
      done[index] = std::move(written);
      changed.notify_all();
    }
  };
  std::vector<std::thread> writers;
  for (size_t i = 0; i < window; ++i) writers.emplace_back(writer);

  Status result = OkStatus();
  for (size_t index = 0;; ++index) {
    std::optional<Status> written;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] {
        return (index < done.size() && done[index].has_value()) || (exhausted && index >= claimed);
      });
      if (index >= done.size()) break;  // every file delivered
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
  bool early;
  {
    std::lock_guard lock(mutex);
    early = !exhausted;
    ending = true;
    changed.notify_all();
  }
  if (early && unblock_source) unblock_source();
  for (std::thread& thread : writers) thread.join();
  return result;
}

Status WriteInOrder(io::FileIO& io, bool durable, const std::vector<FileToWrite>& files, int depth,
                    std::stop_token stop, const std::function<Status(size_t)>& deliver,
                    std::vector<uint8_t>* stored) {
  size_t next = 0;
  Status result = WriteInOrder(
      io, durable,
      [&]() -> std::optional<FileToWrite> {
        if (next >= files.size()) return std::nullopt;
        return files[next++];
      },
      nullptr, std::min<int>(depth, static_cast<int>(std::max<size_t>(files.size(), 1))), stop,
      deliver, stored);
  stored->resize(files.size(), 0);
  return result;
}

}  // namespace skade::ingest
