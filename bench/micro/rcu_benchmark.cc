// How readers reach an RCU-published object, three ways: the read side is
// what the pointer mirror and the metadata cache pay on every lookup.
//
//   skade_micro_bench --benchmark_filter=Rcu
//
// - AtomicSharedPtr: std::atomic<std::shared_ptr<const T>>::load (libstdc++
//   12 takes an internal spin lock and bumps the shared reference count).
// - UrcuBp: liburcu's "bulletproof" flavour (auto-registering threads, as a
//   library needs); read lock + rcu_dereference + unlock.
// - EpochGuard: skade's cache::EpochGuard + a seq_cst load.
// A background thread republishes the object every 50 µs, as commits would.
#define _LGPL_SOURCE 1
#include <benchmark/benchmark.h>
#include <urcu/urcu-bp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "skade/cache/epoch.h"

namespace {

struct Payload {
  uint64_t value;
};

class Publisher {
 public:
  Publisher() : thread_([this] { Run(); }) {}
  ~Publisher() {
    stop_ = true;
    thread_.join();
  }

  std::atomic<std::shared_ptr<const Payload>> shared{std::make_shared<const Payload>(Payload{1})};
  std::atomic<const Payload*> epoch_published{new Payload{1}};
  Payload* urcu_published = new Payload{1};

 private:
  void Run() {
    for (uint64_t i = 2; !stop_; ++i) {
      shared.store(std::make_shared<const Payload>(Payload{i}));
      skade::cache::RetireObject(epoch_published.exchange(new Payload{i}));
      Payload* old = rcu_xchg_pointer(&urcu_published, new Payload{i});
      urcu_bp_synchronize_rcu();
      delete old;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Publisher& GetPublisher() {
  static auto* publisher = new Publisher();
  return *publisher;
}

void BM_RcuAtomicSharedPtr(benchmark::State& state) {
  Publisher& publisher = GetPublisher();
  for (auto _ : state) {
    auto payload = publisher.shared.load();
    benchmark::DoNotOptimize(payload->value);
  }
}
BENCHMARK(BM_RcuAtomicSharedPtr)->Threads(1)->Threads(2)->UseRealTime();

void BM_RcuUrcuBp(benchmark::State& state) {
  Publisher& publisher = GetPublisher();
  for (auto _ : state) {
    urcu_bp_read_lock();
    const Payload* payload = rcu_dereference(publisher.urcu_published);
    benchmark::DoNotOptimize(payload->value);
    urcu_bp_read_unlock();
  }
}
BENCHMARK(BM_RcuUrcuBp)->Threads(1)->Threads(2)->UseRealTime();

void BM_RcuEpochGuard(benchmark::State& state) {
  Publisher& publisher = GetPublisher();
  for (auto _ : state) {
    skade::cache::EpochGuard guard;
    const Payload* payload = publisher.epoch_published.load();
    benchmark::DoNotOptimize(payload->value);
  }
}
BENCHMARK(BM_RcuEpochGuard)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
