#include "common/measure.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "common/process_usage.h"

namespace skade::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct ThreadResult {
  Clock::time_point start;
  Clock::time_point end;
  std::vector<int64_t> latencies_ns;
  std::vector<std::vector<int64_t>> kind_latencies_ns;
  std::optional<Error> error;
};

}  // namespace

double Measurement::PercentileMicros(const std::vector<int64_t>& sorted_ns, double p) {
  if (sorted_ns.empty()) return 0;
  const size_t n = sorted_ns.size();
  const size_t rank = std::clamp<size_t>(static_cast<size_t>(std::ceil(p * n)), 1, n);
  return sorted_ns[rank - 1] / 1000.0;
}

Result<Measurement> Measure(const MeasureLimits& limits, const Operation& op,
                            const OpKinds& kinds) {
  const int threads = std::max(1, limits.threads);
  const uint64_t per_thread = (limits.ops + threads - 1) / threads;
  const auto time_limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.seconds));
  // Usage is read when the last thread reaches the barrier, and after the join.
  struct Cpu {
    std::optional<double> client, server;
    std::optional<uint64_t> client_writes, server_writes;
  };
  auto read_cpu = [&]() noexcept {
    const bool server = limits.server_pid > 0;
    return Cpu{ProcessCpuSeconds(0), server ? ProcessCpuSeconds(limits.server_pid) : std::nullopt,
               ProcessWriteBytes(0), server ? ProcessWriteBytes(limits.server_pid) : std::nullopt};
  };
  Cpu cpu_at_start;
  std::barrier sync(threads, [&]() noexcept { cpu_at_start = read_cpu(); });
  std::vector<ThreadResult> results(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      ThreadResult& result = results[t];
      result.kind_latencies_ns.resize(kinds.kinds);
      for (uint64_t i = 0; i < limits.warmup; ++i) {
        if (auto status = op(t, i); !status) {
          result.error = status.error();
          // Leave the barrier's party so the other threads are not stranded.
          sync.arrive_and_drop();
          return;
        }
      }
      sync.arrive_and_wait();
      // Keep every sample, but do not let a huge op bound reserve gigabytes up front.
      result.latencies_ns.reserve(std::min<uint64_t>(per_thread, 1 << 22));
      result.start = Clock::now();
      const auto deadline = result.start + time_limit;
      for (uint64_t i = 0; i < per_thread; ++i) {
        const auto began = Clock::now();
        if (began >= deadline) break;
        const uint64_t iteration = limits.warmup + i;
        if (auto status = op(t, iteration); !status) {
          result.error = status.error();
          break;
        }
        const int64_t latency = (Clock::now() - began).count();
        result.latencies_ns.push_back(latency);
        if (kinds.kinds > 0)
          result.kind_latencies_ns[kinds.kind_of(t, iteration)].push_back(latency);
      }
      result.end = Clock::now();
    });
  }
  for (auto& worker : workers) worker.join();
  const Cpu cpu_at_end = read_cpu();

  Measurement measurement;
  auto used = []<typename T>(std::optional<T> start, std::optional<T> end) -> std::optional<T> {
    if (!start || !end || *end < *start) return std::nullopt;
    return *end - *start;
  };
  measurement.client_cpu_seconds = used(cpu_at_start.client, cpu_at_end.client);
  measurement.server_cpu_seconds = used(cpu_at_start.server, cpu_at_end.server);
  measurement.client_write_bytes = used(cpu_at_start.client_writes, cpu_at_end.client_writes);
  measurement.server_write_bytes = used(cpu_at_start.server_writes, cpu_at_end.server_writes);
  measurement.kind_latencies_ns.resize(kinds.kinds);
  std::optional<Clock::time_point> first_start, last_end;
  for (auto& result : results) {
    if (result.error) return tl::unexpected(*result.error);
    if (!first_start || result.start < *first_start) first_start = result.start;
    if (!last_end || result.end > *last_end) last_end = result.end;
    measurement.latencies_ns.insert(measurement.latencies_ns.end(), result.latencies_ns.begin(),
                                    result.latencies_ns.end());
    for (int k = 0; k < kinds.kinds; ++k) {
      auto& all = measurement.kind_latencies_ns[k];
      all.insert(all.end(), result.kind_latencies_ns[k].begin(), result.kind_latencies_ns[k].end());
    }
  }
  std::sort(measurement.latencies_ns.begin(), measurement.latencies_ns.end());
  for (auto& kind : measurement.kind_latencies_ns) std::sort(kind.begin(), kind.end());
  measurement.ops = measurement.latencies_ns.size();
  measurement.wall_seconds = std::chrono::duration<double>(*last_end - *first_start).count();
  return measurement;
}

int PickIndex(int thread, uint64_t iteration, int bound) {
  // splitmix64 of (thread, iteration): the same mix the peers use.
  uint64_t z = ((static_cast<uint64_t>(thread) << 40) ^ iteration) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<int>((z ^ (z >> 31)) % static_cast<uint64_t>(bound));
}

}  // namespace skade::bench
