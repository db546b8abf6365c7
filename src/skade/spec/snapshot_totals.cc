#include "skade/spec/snapshot_totals.h"

#include <optional>

#include "skade/util/strings.h"

namespace skade::spec {

namespace {

struct Total {
  const char* total;
  const char* added;
  const char* removed;
};

constexpr Total kTotals[] = {
    {"total-records", "added-records", "deleted-records"},
    {"total-files-size", "added-files-size", "removed-files-size"},
    {"total-data-files", "added-data-files", "deleted-data-files"},
    {"total-delete-files", "added-delete-files", "removed-delete-files"},
    {"total-position-deletes", "added-position-deletes", "removed-position-deletes"},
    {"total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"},
};

int64_t Count(const std::map<std::string, std::string>& summary, const char* key) {
  auto it = summary.find(key);
  return it == summary.end() ? 0 : ParseInt64(it->second).value_or(0);
}

}  // namespace

void CarryTotals(const Snapshot* parent, std::map<std::string, std::string>* summary) {
  for (const Total& total : kTotals) {
    summary->erase(total.total);
    std::optional<int64_t> value = int64_t{0};
    if (parent != nullptr) {
      auto it = parent->summary.find(total.total);
      value = it == parent->summary.end() ? std::nullopt : ParseInt64(it->second);
    }
    if (!value || *value < 0) continue;
    // The counts are a writer's: totals that overflow are left out, as
    // unknown ones are.
    int64_t result = 0;
    if (__builtin_add_overflow(*value, Count(*summary, total.added), &result) ||
        __builtin_sub_overflow(result, Count(*summary, total.removed), &result)) {
      continue;
    }
    if (result >= 0) (*summary)[total.total] = StrCat(result);
  }
}

}  // namespace skade::spec
