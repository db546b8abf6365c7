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

  /// Every source column: `source_ids`, or `source_id` alone.
  std::vector<int32_t> AllSourceIds() const {
    return source_ids.empty() ? std::vector<int32_t>{source_id} : source_ids;
  }

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
  /// Iceberg's "compatible" specs, which a table treats as the same spec:
  /// fields with the same sources, transforms and names in the same order.
  /// Field ids and the spec id are ignored.
  bool CompatibleWith(const PartitionSpec& other) const;
  /// Field ids 1000, 1001, … in order, as format v1 requires.
  bool HasSequentialIds() const;
  /// The largest partition field id, or 999 when there are none.
  int32_t LastAssignedFieldId() const;
  /// The struct type of partition tuples under `schema`. Fields whose source
  /// column is missing (dropped) get type `unknown`.
  Result<TypePtr> PartitionType(const Schema& schema) const;
  /// As above, but a source column `schema` lacks is taken from `earlier`
  /// (the table's schemas; the last that has it): an older spec's column may
  /// be dropped once the table is no longer partitioned by it, and its
  /// manifests still hold values of that column's type.
  Result<TypePtr> PartitionType(const Schema& schema, const std::vector<SchemaPtr>& earlier) const;

  // The two binding rules (Iceberg Java's PartitionSpec.Builder and
  // PartitionSpec.checkCompatibility). Errors are kInvalidArgument.

  /// Whether `schema` can still evaluate this spec: every non-void field's
  /// sources exist, are primitive, are nested only in structs (never in a
  /// list or map) and suit the transform. Void fields may name dropped
  /// columns (v1 tables keep removed partition fields as void). Checked for
  /// a table's default spec after every schema change.
  Status CheckCompatible(const Schema& schema) const;
  /// The rule for a spec newly bound to `schema` (a new table, an added
  /// spec, a spec from the CLI): non-empty names used once, field ids used
  /// once, a name equal to a schema column only for an identity field of
  /// that very column (void fields are exempt), and CheckCompatible.
  Status Validate(const Schema& schema) const;

  static std::shared_ptr<const PartitionSpec> Unpartitioned();
};

using PartitionSpecPtr = std::shared_ptr<const PartitionSpec>;

/// The name Iceberg gives a partition field of `transform` on `column` when
/// none is given: the column for identity, `<column>_bucket`, `_trunc`,
/// `_year`, `_month`, `_day`, `_hour`, and `_null` for void.
std::string DefaultPartitionFieldName(const Transform& transform, const std::string& column);

}  // namespace skade::spec
