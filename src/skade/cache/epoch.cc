#include "skade/cache/epoch.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace skade::cache {

namespace {

// One per thread that ever entered a guard; never freed (bounded by the peak
// number of threads), reused after its thread exits. A cache line each, so
// readers on different cores never write the same line.
struct alignas(64) Slot {
  std::atomic<uint64_t> epoch{0};  // 0 = not in a critical section
  std::atomic<bool> in_use{true};
  Slot* next = nullptr;  // immutable once the slot is published
};

struct Retired {
  void* object;
  void (*deleter)(void*);
  uint64_t epoch;
};

// Retirements between attempts to advance the epoch: an attempt costs a
// membarrier() system call, so it is amortized; the price is that up to this
// many unlinked objects wait a little longer to be freed.
constexpr size_t kAdvanceEvery = 16;

long Membarrier(int command) { return ::syscall(__NR_membarrier, command, 0, 0); }

class Domain {
 public:
  // With membarrier(PRIVATE_EXPEDITED) the writer issues the full fence on
  // every reader's behalf, so a reader's entry needs none (a plain store);
  // without it (old kernels, seccomp) readers fence themselves.
  Domain() : asymmetric_(Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {}

  bool asymmetric() const { return asymmetric_; }

  Slot* AcquireSlot() {
    for (Slot* slot = slots_.load(); slot != nullptr; slot = slot->next) {
      bool expected = false;
      if (slot->in_use.compare_exchange_strong(expected, true)) return slot;
    }
    auto* slot = new Slot();
    Slot* head = slots_.load();
    do {
      slot->next = head;
    } while (!slots_.compare_exchange_weak(head, slot));
    return slot;
  }

  uint64_t global() const { return global_.load(); }

  void Add(void* object, void (*deleter)(void*)) {
    std::vector<Retired> ready;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      retired_.push_back({object, deleter, global_.load()});
      if (++since_advance_ >= kAdvanceEvery) {
        since_advance_ = 0;
        TryAdvanceLocked();
        TakeReadyLocked(&ready);
      }
    }
    for (const auto& r : ready) r.deleter(r.object);
  }

  size_t Reclaim() {
    std::vector<Retired> ready;
    size_t waiting;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int round = 0; round < 2 && TryAdvanceLocked(); ++round) {
      }
      TakeReadyLocked(&ready);
      waiting = retired_.size();
    }
    for (const auto& r : ready) r.deleter(r.object);
    return waiting;
  }

 private:
  // Advances the global epoch if every active reader has announced it.
  bool TryAdvanceLocked() {
    // Orders every reader's announcement before the scan below (see
    // EpochGuard::EpochGuard).
    if (asymmetric_) Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    uint64_t current = global_.load();
    for (Slot* slot = slots_.load(); slot != nullptr; slot = slot->next) {
      uint64_t announced = slot->epoch.load();
      if (announced != 0 && announced != current) return false;
    }
    global_.store(current + 1);
    return true;
  }

  void TakeReadyLocked(std::vector<Retired>* ready) {
    uint64_t current = global_.load();
    size_t kept = 0;
    for (auto& r : retired_) {
      if (r.epoch + 2 <= current) {
        ready->push_back(r);
      } else {
        retired_[kept++] = r;
      }
    }
    retired_.resize(kept);
  }

  const bool asymmetric_;
  std::atomic<uint64_t> global_{1};
  std::atomic<Slot*> slots_{nullptr};
  std::mutex mutex_;
  std::vector<Retired> retired_;
  size_t since_advance_ = 0;
};

// Never destroyed: guards and retirements may run during static destruction.
Domain& GetDomain() {
  static auto* domain = new Domain();
  return *domain;
}

// Trivially destructible, so reaching them costs no TLS-init check on the
// read path; SlotReleaser hands the slot back when the thread exits.
thread_local Slot* t_slot = nullptr;
thread_local int t_nesting = 0;

struct SlotReleaser {
  ~SlotReleaser() {
    if (t_slot != nullptr) t_slot->in_use.store(false);
    t_slot = nullptr;
  }
};

Slot* ThreadSlot() {
  if (t_slot == nullptr) {
    thread_local SlotReleaser releaser;
    t_slot = GetDomain().AcquireSlot();
  }
  return t_slot;
}

}  // namespace

EpochGuard::EpochGuard() {
  if (t_nesting++ != 0) return;
  Domain& domain = GetDomain();
  Slot* slot = ThreadSlot();
  if (domain.asymmetric()) {
    // The announcement must be visible before this thread reads shared
    // pointers. The writer's membarrier() makes it so; the compiler must not
    // hoist those reads above the store. A release store is a plain store on
    // x86 and keeps the slot's release sequence intact for ThreadSanitizer.
    slot->epoch.store(domain.global(), std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  } else {
    slot->epoch.store(domain.global());
  }
}

EpochGuard::~EpochGuard() {
  if (--t_nesting == 0) t_slot->epoch.store(0, std::memory_order_release);
}

void Retire(void* object, void (*deleter)(void*)) { GetDomain().Add(object, deleter); }

size_t ReclaimRetired() { return GetDomain().Reclaim(); }

}  // namespace skade::cache
