// Epoch-based reclamation (EBR): how the lock-free read paths of the L0
// metadata cache and the table-pointer mirror free what they unlink.
//
// Readers enter a critical section with an EpochGuard, follow pointers to
// shared nodes without locks, and leave. Writers unlink a node (so no new
// reader can reach it) and hand it to Retire(); it is freed only after every
// guard that might still see it has ended. Reading is one plain store to the
// thread's own announcement slot on entry and one on exit: no shared cache
// line is written and no fence executed, so readers on different cores do
// not slow each other. The full fence a reader would need between announcing
// itself and reading is issued by the writer for all threads at once, with
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) — the asymmetric-fence trick
// liburcu uses — once per 16 retirements. Where that system call is missing,
// readers fall back to a sequentially consistent store.
//
// One process-wide domain. Guards nest. A guard must not be held across
// blocking I/O: it does not block writers, but it delays freeing memory.
//
// Why hand-rolled and not liburcu or std::atomic<std::shared_ptr>: the
// measurements are in bench/micro (skade_micro_bench --benchmark_filter=Rcu).
// libstdc++ 12's atomic<shared_ptr> takes an internal spin lock and bumps a
// shared reference count on every load, so two reading threads are ~10x
// slower than one; liburcu's read side costs what this one does, but its
// synchronization is invisible to ThreadSanitizer, which then reports every
// reclaimed node as a race. This scheme uses only C++ atomics.
//
// Memory ordering: apart from the reader's announcement (see above), every
// atomic here is sequentially consistent, and so must be the loads readers
// use to follow published pointers (the default for std::atomic::load; a
// plain load on x86). The argument: a reader that announces epoch E after a
// writer's unlink cannot see the unlinked node, and a writer frees a node
// retired in epoch E only after the global epoch has reached E + 2, which
// needs every active reader to have announced E + 1 or later.
#pragma once

#include <cstddef>

namespace skade::cache {

/// A read-side critical section. Not copyable or movable; create it on the
/// stack of the reading thread. Thread-compatible: one thread per guard.
class EpochGuard {
 public:
  EpochGuard();
  ~EpochGuard();
  EpochGuard(const EpochGuard&) = delete;
  EpochGuard& operator=(const EpochGuard&) = delete;
};

/// Frees `object` by calling `deleter(object)` once no EpochGuard that began
/// before this call is still active. The caller must already have made
/// `object` unreachable for new readers. `deleter` runs on some later
/// Retire() caller's thread, outside any lock, and must not call Retire().
/// Thread-safe.
void Retire(void* object, void (*deleter)(void*));

/// Retire() for an object allocated with `new T`.
template <typename T>
void RetireObject(const T* object) {
  Retire(const_cast<T*>(object), [](void* p) { delete static_cast<T*>(p); });
}

/// Frees everything retired so far whose readers have finished; call with no
/// EpochGuard held on this thread. Returns how many objects are still
/// waiting. Retire() does this every few calls; tests call it to settle.
/// Thread-safe.
size_t ReclaimRetired();

}  // namespace skade::cache
