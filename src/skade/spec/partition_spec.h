// Partition specs (spec: "Partitioning").
//
// Immutable once built; shared as PartitionSpecPtr. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skade/spec/schema.h"
#include "skade/spec/transform.h"
#include "skade/util/result.h"

namespace skade::spec {

struct PartitionField {
  int32_t source_id = 0;
  /// v3 multi-argument transforms; empty for single-source fields.
  std::vector<int32_t> source_ids;
  int32_t field_id = 0;
  std::string name;
  Transform transform;

  bool operator==(const PartitionField& other) const {
    return source_id == other.source_id && source_ids == other.source_ids &&
           field_id == other.field_id && name == other.name && transform == other.transform;
  }
};

struct PartitionSpec {
  static constexpr int32_t kInitialSpecId = 0;
  /// Partition field ids start at 1000; an unpartitioned table's
  /// last-partition-id is 999.
  static constexpr int32_t kPartitionDataIdStart = 1000;

  int32_t spec_id = kInitialSpecId;
  std::vector<PartitionField> fields;

  /// True when no field produces a value (no fields, or only void).
  bool IsUnpartitioned() const;
  /// Same fields (source, field id, name, transform); the spec id is ignored.
  bool CompatibleWith(const PartitionSpec& other) const { return fields == other.fields; }
  /// The largest partition field id, or 999 when there are none.
  int32_t LastAssignedFieldId() const;
  /// The struct type of partition tuples under `schema`. Fields whose source
  /// column is missing (dropped) get type `unknown`.
  Result<TypePtr> PartitionType(const Schema& schema) const;
  /// Checks sources exist in `schema`, transforms apply to them, and names
  /// are unique and do not collide with other schema columns unless identity.
  Status Validate(const Schema& schema) const;

  static std::shared_ptr<const PartitionSpec> Unpartitioned();
};

using PartitionSpecPtr = std::shared_ptr<const PartitionSpec>;

/// The name Iceberg gives a partition field of `transform` on `column` when
/// none is given: the column for identity, `<column>_bucket`, `_trunc`,
/// `_year`, `_month`, `_day`, `_hour`, and `_null` for void.
std::string DefaultPartitionFieldName(const Transform& transform, const std::string& column);

}  // namespace skade::spec
