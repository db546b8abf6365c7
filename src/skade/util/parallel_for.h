// ParallelFor: fan-out of I/O-bound work — a scan reading manifests, where
// each read from an object store waits milliseconds — on threads of its
// own, up to a count the caller picks (WorkerPool, util/worker_pool.h, has
// a fixed set of workers).
//
// Runs body(i) for i in [0, n) on up to `threads` threads (<= 0: one per
// core), the caller's among them, and returns when all have finished. Each
// index runs at most once; after the first error no new index starts, and
// that error is returned. An exception from a body is its kInternal error;
// threads that cannot be started leave the work to those that were. A body
// that writes results[i] yields them in input order. Thread-safe for
// bodies that are.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "skade/util/result.h"

namespace skade {

template <typename Body>
Status ParallelFor(size_t n, int threads, Body body) {
  auto call = [&](size_t i) -> Status {
    try {
      return body(i);
    } catch (const std::exception& e) {
      return MakeError(ErrorKind::kInternal, e.what());
    }
  };
  size_t workers = std::min<size_t>(n, threads > 0 ? threads : std::thread::hardware_concurrency());
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) SKADE_RETURN_NOT_OK(call(i));
    return OkStatus();
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<Status> errors(workers);
  auto run = [&](size_t worker) {
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      Status status = call(i);
      if (!status.has_value()) {
        errors[worker] = std::move(status);
        failed.store(true);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(run, w);
    } catch (const std::system_error&) {
      break;  // out of threads: the ones started, and this one, do the rest
    }
  }
  run(0);
  for (std::thread& thread : pool) thread.join();
  for (Status& status : errors) SKADE_RETURN_NOT_OK(status);
  return OkStatus();
}

}  // namespace skade
