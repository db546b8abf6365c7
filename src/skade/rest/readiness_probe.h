// ReadinessProbe: whether the server should get traffic (GET /health/ready),
// checked in the background so that answering costs nothing.
//
// Its checks (each a Status-returning function: the store is writable, the
// warehouse reachable) run one after another on the probe's own thread,
// once at Start() and then every `interval_ms`; Current() only reads the
// last results. So a load balancer or kubelet polling every second, or a
// hundred of them, never adds I/O, and a check that hangs (a stuck disk, an
// object store that does not answer) holds only the probe's thread, never
// an I/O thread — Current() then reports the checks as stale (failed) once
// they have not finished for `stale_after_ms`. None of the checks writes a
// file (see CatalogStore::CheckWritable).
//
// Shutting down is a check of its own that needs no thread: after
// BeginShutdown() Current() is not ready at once.
//
// Thread-safe. Checks must not call back into the probe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/io/file_io.h"
#include "skade/util/result.h"

namespace skade::rest {

struct ReadinessCheck {
  std::string name;
  std::function<Status()> run;
};

struct ReadinessOptions {
  int64_t interval_ms = 1000;
  /// Checks unfinished this long after the last round completed make the
  /// report not ready (a round itself may take up to this long).
  int64_t stale_after_ms = 10'000;
  /// The destructor waits this long for a round under way, then leaves it
  /// running (detached, keeping alive what its checks hold), so that a hung
  /// check never holds up shutdown.
  int64_t stop_wait_ms = 2'000;
};

struct ReadinessResult {
  std::string name;
  bool ok = false;
  std::string message;  // why it failed; empty if ok
};

struct ReadinessReport {
  bool ready = false;
  /// Every check in the order given, then "shutdown"; a "checks" entry
  /// first when the results are stale.
  std::vector<ReadinessResult> checks;
  /// How long ago the last round of checks completed.
  int64_t age_ms = 0;
};

class ReadinessProbe {
 public:
  /// Runs the checks once (on the calling thread), then starts the probe
  /// thread. kInvalidArgument for a check without a function or a
  /// non-positive interval; kIo if the thread cannot start.
  static Result<std::unique_ptr<ReadinessProbe>> Start(std::vector<ReadinessCheck> checks,
                                                       ReadinessOptions options = {});
  /// Stops the probe thread, waiting up to `stop_wait_ms` for a round
  /// under way.
  ~ReadinessProbe();
  ReadinessProbe(const ReadinessProbe&) = delete;
  ReadinessProbe& operator=(const ReadinessProbe&) = delete;

  /// From now on, not ready (the "shutdown" check fails). Idempotent.
  void BeginShutdown();
  bool shutting_down() const;

  /// Runs a round of the checks now, on the calling thread (tests, and
  /// whoever must know at once); the probe thread keeps its schedule.
  void Refresh();

  /// The last results and whether they are fresh. No I/O; takes a mutex
  /// for a copy of a few strings.
  ReadinessReport Current() const;

  /// The report as the /health/ready body: {"status":"ready"|"not-ready",
  /// "checks":[{"name":…,"status":"ok"|"failed","message":…}…],
  /// "checked-ms-ago":N}; without "message" unless `with_messages` (a
  /// failure's message may name paths and endpoints).
  static std::string ToJson(const ReadinessReport& report, bool with_messages = true);

 private:
  class Impl;
  explicit ReadinessProbe(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;  // shared with the probe thread
};

/// The warehouse check: kIo unless `io` reaches the warehouse root
/// `warehouse_location`. A local root must be a directory this process may
/// create files in, on a file system mounted read-write; on an object
/// store, asking whether the root exists must succeed (which checks the
/// server and the credentials; an empty prefix is a fresh warehouse, not a
/// missing one) — a bounded call, never a listing. Writes nothing.
Status CheckWarehouseReachable(io::FileIO& io, const std::string& warehouse_location);

/// The checks of a server over `catalog`: "store" (CatalogStore::
/// CheckWritable) and "warehouse" (CheckWarehouseReachable through the
/// catalog's FileIO). They keep `catalog` alive.
std::vector<ReadinessCheck> CatalogReadinessChecks(
    std::shared_ptr<catalog::EmbeddedCatalog> catalog);

}  // namespace skade::rest
