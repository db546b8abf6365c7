// Splitting record batches by partition tuple (spec: "Partitioning").
//
// Immutable after Make(); thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/spec/literal.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace arrow {
class Array;
class RecordBatch;
}  // namespace arrow

namespace skade::data {

/// The rows of one batch that share a partition tuple.
struct PartitionedBatch {
  /// One value per partition field, typed with the transform's result type.
  std::vector<spec::Literal> partition;
  std::shared_ptr<arrow::RecordBatch> batch;
};

/// An unambiguous byte key for a partition tuple (per value a null flag,
/// then its length-prefixed single-value bytes), equal exactly when the
/// tuples hold the same values — NaN included, unlike Literal's ==.
std::string PartitionKey(const std::vector<spec::Literal>& partition);

class PartitionSplitter {
 public:
  /// kInvalidArgument when a source column is missing, sits inside a list or
  /// map, or does not suit its transform; kUnsupported for an unknown
  /// transform or a multi-argument (v3) partition field.
  static Result<PartitionSplitter> Make(spec::SchemaPtr schema, spec::PartitionSpecPtr spec);

  /// The transformed values of every partition field for every row of
  /// `batch` (conformed to the schema, see ConformBatch), one array per
  /// field. A null source value, or a null struct around it, gives null.
  Result<std::vector<std::shared_ptr<arrow::Array>>> PartitionColumns(
      const arrow::RecordBatch& batch) const;

  /// Splits `batch` (conformed) into one batch per distinct partition tuple,
  /// ordered by each tuple's first row; rows keep their relative order.
  /// Nulls form their own (null) partition values. A batch in a single
  /// partition comes back unsplit, zero-copy.
  Result<std::vector<PartitionedBatch>> Split(
      const std::shared_ptr<arrow::RecordBatch>& batch) const;

  const spec::PartitionSpec& spec() const { return *spec_; }

 private:
  struct Field {
    std::vector<int> path;  // child indices from the top-level column down
    spec::TypePtr source_type;
    spec::TypePtr result_type;
    spec::Transform transform;
  };

  PartitionSplitter(spec::SchemaPtr schema, spec::PartitionSpecPtr spec, std::vector<Field> fields)
      : schema_(std::move(schema)), spec_(std::move(spec)), fields_(std::move(fields)) {}

  spec::SchemaPtr schema_;
  spec::PartitionSpecPtr spec_;
  std::vector<Field> fields_;
};

}  // namespace skade::data
