// One mutex per table, made when a table is first locked and dropped when no
// one holds or waits for it: what serializes the writes to one table
// (commits, drop, register) in one catalog. Commits to different tables
// never wait for each other here, as they did with a fixed array of striped
// mutexes, where two tables whose keys hashed alike shared one and each
// commit waited out the other's whole commit, sync included. Thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace skade::catalog {

class TableLocks {
  struct Entry {
    std::mutex mutex;
    size_t users = 0;  // holding or waiting; guarded by the stripe's mutex
  };

 public:
  /// Holds one table's lock until destroyed.
  class Held {
   public:
    Held(Held&& other) noexcept;
    Held& operator=(Held&&) = delete;
    Held(const Held&) = delete;
    ~Held();

   private:
    friend class TableLocks;
    Held(TableLocks* locks, std::string key, Entry* entry)
        : locks_(locks), key_(std::move(key)), entry_(entry) {}

    TableLocks* locks_;
    std::string key_;
    Entry* entry_;
  };

  /// Blocks until the table with store key `key` (store::TableKey) is
  /// free, then holds it. A caller that locks several tables must lock them
  /// in ascending key order (as std::set<std::string> orders them), so that
  /// callers cannot deadlock.
  [[nodiscard]] Held Lock(const std::string& key);

  /// Tables held or waited for now.
  size_t Count() const;

 private:
  struct Stripe {
    mutable std::mutex mutex;
    // Node-based: an entry stays where it is while other tables come and go.
    std::unordered_map<std::string, Entry> entries;
  };
  Stripe& StripeOf(const std::string& key);
  // Unlocks `entry`'s mutex, then Forget.
  void Release(const std::string& key, Entry* entry);
  // One user fewer; the entry goes with its last.
  void Forget(const std::string& key, Entry* entry);

  std::array<Stripe, 16> stripes_;
};

}  // namespace skade::catalog
