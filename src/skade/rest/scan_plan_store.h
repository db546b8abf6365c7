// ScanPlanStore: the scan plans the REST server holds for clients that page
// through a large plan (planTableScan answered with plan-task tokens, then
// fetchScanTasks per token, or cancelPlanning).
//
// A plan is kept as its pages, already serialized (each a ScanTasks JSON
// object), so the store's memory is exactly the bytes it answers with and a
// fetch does no work. Plans belong to their table: a plan id or plan task is
// found only under the table it was planned for. Ids are 128 bits from the
// OS's CSPRNG, so one client cannot guess another's. Bounded in count and
// bytes; a plan expires `lifetime_ms` after it was made, and is released as
// soon as each of its pages has been fetched once (a page fetched again
// before that is served again). Making room evicts the plans touched least
// recently; their clients get NoSuchPlanId/NoSuchPlanTask and plan again.
// Thread-safe: one mutex, held only for map updates (pages are shared, not
// copied, under it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::rest {

struct ScanPlanStoreOptions {
  size_t max_plans = 256;
  size_t max_bytes = size_t{256} << 20;
  int64_t lifetime_ms = 10 * 60 * 1000;
  /// Milliseconds on a monotonic clock; null: the steady clock (tests pass
  /// their own to expire plans).
  std::function<int64_t()> now_ms;
};

/// Whose a plan is: the table by name, and which table of that name (its
/// UUID), so a plan does not outlive a drop into a new table of the name.
struct PlanOwner {
  PlanOwner() = default;
  PlanOwner(spec::TableIdentifier table, std::string table_uuid = {})
      : table(std::move(table)), table_uuid(std::move(table_uuid)) {}
  spec::TableIdentifier table;
  std::string table_uuid;
  bool operator==(const PlanOwner& other) const = default;
};

class ScanPlanStore {
 public:
  struct Stats {
    size_t plans = 0;
    size_t bytes = 0;
  };

  explicit ScanPlanStore(ScanPlanStoreOptions options = {});
  ~ScanPlanStore();
  ScanPlanStore(const ScanPlanStore&) = delete;
  ScanPlanStore& operator=(const ScanPlanStore&) = delete;

  struct StoredPlan {
    std::string plan_id;
    /// One token per page, in order.
    std::vector<std::string> plan_tasks;
  };

  /// A fresh plan id: 128 random bits in hex. kIo if the OS gives no random
  /// bytes.
  static Result<std::string> NewPlanId();

  /// Keeps `pages` (at least one) for `owner`. kInvalidArgument when the
  /// pages alone exceed max_bytes (the scan must be narrowed); kIo if the
  /// OS gives no random bytes.
  Result<StoredPlan> Add(const PlanOwner& owner, std::vector<std::string> pages);

  /// The tokens of the pages of `plan_id` not fetched yet. kNoSuchPlanId if
  /// the plan is unknown, expired, released or another table's (or another
  /// table's of the same name).
  Result<std::vector<std::string>> PendingPlanTasks(const PlanOwner& owner,
                                                    std::string_view plan_id);

  /// The page `plan_task` names. kNoSuchPlanTask as PendingPlanTasks (and
  /// for a token that is malformed).
  Result<std::shared_ptr<const std::string>> FetchPage(const PlanOwner& owner,
                                                       std::string_view plan_task);

  /// Drops `plan_id`. kNoSuchPlanId as PendingPlanTasks.
  Status Cancel(const PlanOwner& owner, std::string_view plan_id);

  Stats stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::rest
