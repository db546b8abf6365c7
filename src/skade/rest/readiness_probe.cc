#include "skade/rest/readiness_probe.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "skade/io/file_io.h"
#include "skade/io/location.h"
#include "skade/util/json_writer.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

using Clock = std::chrono::steady_clock;

int64_t MillisSince(Clock::time_point then) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - then).count();
}

ReadinessResult Run(const ReadinessCheck& check) {
  ReadinessResult result{check.name, false, {}};
  try {
    Status status = check.run();
    result.ok = status.has_value();
    if (!status) result.message = status.error().message;
  } catch (const std::exception& e) {
    result.message = StrCat("the check threw: ", e.what());
  } catch (...) {
    result.message = "the check threw";
  }
  return result;
}

}  // namespace

// Shared by the probe and its thread, so that a thread left running by Stop
// keeps what it uses alive.
class ReadinessProbe::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(std::vector<ReadinessCheck> checks, ReadinessOptions options)
      : checks_(std::move(checks)), options_(options) {}

  // Ends the thread: joins it if its round ends within `stop_wait_ms`, else
  // detaches it (a hung check must not hold up shutdown).
  void Stop() {
    std::unique_lock<std::mutex> lock(mutex_);
    stop_ = true;
    wake_.notify_all();
    if (!thread_.joinable()) return;
    if (wake_.wait_for(lock, std::chrono::milliseconds(options_.stop_wait_ms),
                       [this] { return exited_; })) {
      lock.unlock();
      thread_.join();
      return;
    }
    thread_.detach();
    LogWarning(StrCat("readiness probe: a check has not returned in ", options_.stop_wait_ms,
                      " ms; shutting down without it"));
  }

  void RunRound() {
    std::vector<ReadinessResult> results;
    for (const ReadinessCheck& check : checks_) results.push_back(Run(check));
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < results.size(); ++i) {
      // Tell the operator when a check changes state, not every second.
      const bool was_ok = i < results_.size() ? results_[i].ok : true;
      if (was_ok && !results[i].ok) {
        LogWarning(StrCat("not ready: ", results[i].name, ": ", results[i].message));
      } else if (!was_ok && results[i].ok) {
        LogWarning(StrCat("ready again: ", results[i].name, " recovered"));
      }
    }
    results_ = std::move(results);
    completed_ = Clock::now();
  }

  Status StartThread() {
    try {
      thread_ = std::thread([self = shared_from_this()] { self->Loop(); });
    } catch (const std::system_error& e) {
      return IoError("Cannot start the readiness probe thread: ", e.what());
    }
    return OkStatus();
  }

  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(options_.interval_ms),
                     [this] { return stop_; });
      if (stop_) break;
      lock.unlock();
      RunRound();
      lock.lock();
    }
    exited_ = true;
    wake_.notify_all();
  }

  ReadinessReport Current() const {
    ReadinessReport report;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      report.checks = results_;
      report.age_ms = MillisSince(completed_);
    }
    report.ready = true;
    for (const ReadinessResult& result : report.checks) report.ready &= result.ok;
    // A round takes at most a check's time; one this late is stuck.
    if (report.age_ms > options_.interval_ms + options_.stale_after_ms) {
      report.ready = false;
      report.checks.insert(
          report.checks.begin(),
          {"checks", false, StrCat("the checks have not completed for ", report.age_ms, " ms")});
    }
    const bool stopping = shutting_down_.load(std::memory_order_acquire);
    report.checks.push_back({"shutdown", !stopping, stopping ? "the server is shutting down" : ""});
    report.ready &= !stopping;
    return report;
  }

  std::atomic<bool> shutting_down_{false};

 private:
  const std::vector<ReadinessCheck> checks_;
  const ReadinessOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;                     // under mutex_
  bool exited_ = false;                   // under mutex_: Loop has returned
  std::vector<ReadinessResult> results_;  // under mutex_
  Clock::time_point completed_;           // under mutex_
  std::thread thread_;
};

Result<std::unique_ptr<ReadinessProbe>> ReadinessProbe::Start(std::vector<ReadinessCheck> checks,
                                                              ReadinessOptions options) {
  if (options.interval_ms <= 0 || options.stale_after_ms <= 0) {
    return InvalidArgument("The readiness probe's interval and stale bound must be positive");
  }
  for (const ReadinessCheck& check : checks) {
    if (!check.run) return InvalidArgument("Readiness check ", check.name, " has no function");
  }
  auto impl = std::make_shared<Impl>(std::move(checks), options);
  impl->RunRound();
  SKADE_RETURN_NOT_OK(impl->StartThread());
  return std::unique_ptr<ReadinessProbe>(new ReadinessProbe(std::move(impl)));
}

ReadinessProbe::ReadinessProbe(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
ReadinessProbe::~ReadinessProbe() { impl_->Stop(); }

void ReadinessProbe::BeginShutdown() {
  impl_->shutting_down_.store(true, std::memory_order_release);
}

bool ReadinessProbe::shutting_down() const {
  return impl_->shutting_down_.load(std::memory_order_acquire);
}

void ReadinessProbe::Refresh() { impl_->RunRound(); }

ReadinessReport ReadinessProbe::Current() const { return impl_->Current(); }

std::string ReadinessProbe::ToJson(const ReadinessReport& report, bool with_messages) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("status", report.ready ? "ready" : "not-ready");
  writer.Key("checks");
  writer.StartArray();
  for (const ReadinessResult& check : report.checks) {
    writer.StartObject();
    writer.Field("name", check.name);
    writer.Field("status", check.ok ? "ok" : "failed");
    if (!check.ok && with_messages) writer.Field("message", check.message);
    writer.EndObject();
  }
  writer.EndArray();
  writer.Field("checked-ms-ago", report.age_ms);
  writer.EndObject();
  return writer.Take();
}

namespace {

// A commit writes under the root: it must be a directory this process can
// create files in, on a file system mounted read-write.
Status CheckLocalWarehouse(const std::string& warehouse_location) {
  SKADE_ASSIGN_OR_RAISE(std::string path, io::LocalPath(warehouse_location));
  struct stat file {};
  if (::stat(path.c_str(), &file) != 0) {
    int error = errno;
    return IoError("Warehouse root ", warehouse_location, ": ", std::strerror(error));
  }
  if (!S_ISDIR(file.st_mode)) {
    return IoError("Warehouse root ", warehouse_location, " is not a directory");
  }
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY)) {
    return IoError("Warehouse root ", warehouse_location, " is on a read-only file system");
  }
  if (::access(path.c_str(), W_OK | X_OK) != 0) {
    int error = errno;
    return IoError("Warehouse root ", warehouse_location,
                   " is not writable: ", std::strerror(error));
  }
  return OkStatus();
}

}  // namespace

Status CheckWarehouseReachable(io::FileIO& io, const std::string& warehouse_location) {
  SKADE_ASSIGN_OR_RAISE(io::Location root, io::Location::Parse(warehouse_location));
  if (root.scheme == "file") return CheckLocalWarehouse(warehouse_location);
  // One bounded call (on S3: a HEAD and a one-key listing), never a listing
  // of the root, which pages through every table and, from a server that
  // repeats its continuation token, never ends. Whether anything is there
  // does not matter: an empty prefix is a fresh warehouse.
  SKADE_ASSIGN_OR_RAISE(bool exists, io.Exists(warehouse_location));
  (void)exists;
  return OkStatus();
}

std::vector<ReadinessCheck> CatalogReadinessChecks(
    std::shared_ptr<catalog::EmbeddedCatalog> catalog) {
  return {
      {"store", [catalog] { return catalog->store().CheckWritable(); }},
      {"warehouse",
       [catalog] {
         return CheckWarehouseReachable(catalog->file_io(), catalog->warehouse_location());
       }},
  };
}

}  // namespace skade::rest
