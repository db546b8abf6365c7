// Sort orders (spec: "Sorting").
//
// Immutable once built; shared as SortOrderPtr. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "skade/spec/schema.h"
#include "skade/spec/transform.h"
#include "skade/util/result.h"

namespace skade::spec {

enum class SortDirection { kAsc, kDesc };
enum class NullOrder { kNullsFirst, kNullsLast };

struct SortField {
  Transform transform;
  int32_t source_id = 0;
  /// v3 multi-argument transforms; empty for single-source fields.
  std::vector<int32_t> source_ids;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  /// Every source column: `source_ids`, or `source_id` alone.
  std::vector<int32_t> AllSourceIds() const {
    return source_ids.empty() ? std::vector<int32_t>{source_id} : source_ids;
  }

  bool operator==(const SortField& other) const {
    return transform == other.transform && source_id == other.source_id &&
           source_ids == other.source_ids && direction == other.direction &&
           null_order == other.null_order;
  }
};

struct SortOrder {
  /// Order id 0 is reserved for the unsorted order.
  static constexpr int32_t kUnsortedOrderId = 0;
  static constexpr int32_t kInitialSortOrderId = 1;

  int32_t order_id = kUnsortedOrderId;
  std::vector<SortField> fields;

  bool IsUnsorted() const { return fields.empty(); }
  /// Same fields; the order id is ignored.
  bool SameOrder(const SortOrder& other) const { return fields == other.fields; }
  /// Iceberg Java's SortOrder.checkCompatibility: every source column exists
  /// in `schema`, is primitive and suits the transform. kInvalidArgument.
  Status Validate(const Schema& schema) const;

  static std::shared_ptr<const SortOrder> Unsorted();
};

using SortOrderPtr = std::shared_ptr<const SortOrder>;

}  // namespace skade::spec
