#include "skade/catalog/table_locks.h"

#include <functional>
#include <utility>

namespace skade::catalog {

TableLocks::Held::Held(Held&& other) noexcept
    : locks_(std::exchange(other.locks_, nullptr)),
      key_(std::move(other.key_)),
      entry_(std::exchange(other.entry_, nullptr)) {}

TableLocks::Held::~Held() {
  if (locks_ != nullptr) locks_->Release(key_, entry_);
}

TableLocks::Stripe& TableLocks::StripeOf(const std::string& key) {
  return stripes_[std::hash<std::string>()(key) % stripes_.size()];
}

TableLocks::Held TableLocks::Lock(const std::string& key) {
  // Copied first: nothing may throw once the mutex is held.
  std::string owned = key;
  Entry* entry;
  {
    Stripe& stripe = StripeOf(key);
    std::lock_guard<std::mutex> lock(stripe.mutex);
    entry = &stripe.entries[key];
    ++entry->users;
  }
  try {
    entry->mutex.lock();
  } catch (...) {
    Forget(key, entry);
    throw;
  }
  return Held(this, std::move(owned), entry);
}

size_t TableLocks::Count() const {
  size_t count = 0;
  for (const Stripe& stripe : stripes_) {
    std::lock_guard<std::mutex> lock(stripe.mutex);
    count += stripe.entries.size();
  }
  return count;
}

void TableLocks::Release(const std::string& key, Entry* entry) {
  entry->mutex.unlock();
  Forget(key, entry);
}

void TableLocks::Forget(const std::string& key, Entry* entry) {
  Stripe& stripe = StripeOf(key);
  std::lock_guard<std::mutex> lock(stripe.mutex);
  if (--entry->users == 0) stripe.entries.erase(key);
}

}  // namespace skade::catalog
