// Per-partition-field summaries of a manifest, as a manifest list stores
// them (Iceberg spec: "Manifest Lists", field_summary).
//
// For each field of the partition type: whether any tuple had a null, whether
// any had a NaN (always written, false for non-floating types, as Iceberg
// Java and PyIceberg do), and the lower and upper bound of the other values
// in single-value binary form. Floating-point bounds follow IEEE 754
// totalOrder, so -0.0 sorts before +0.0; strings, binary, fixed and uuid
// compare as unsigned bytes; decimals by value.
//
// Not thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "skade/spec/literal.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/type.h"

namespace skade::avro {

class PartitionSummaryBuilder {
 public:
  /// `partition_type` is the struct type of the tuples.
  explicit PartitionSummaryBuilder(spec::TypePtr partition_type);

  /// Adds one tuple; it has one value per field of the partition type, each
  /// of that field's representation (the manifest writer checks this first).
  void Update(const std::vector<spec::Literal>& partition);

  std::vector<spec::PartitionFieldSummary> Summaries() const;

 private:
  struct FieldStats {
    bool contains_null = false;
    bool contains_nan = false;
    std::optional<spec::Literal> lower;
    std::optional<spec::Literal> upper;
  };

  spec::TypePtr partition_type_;
  std::vector<FieldStats> stats_;
};

/// Orders two non-null, non-NaN values of Iceberg type `type` as the summary
/// bounds do: negative, zero or positive.
int CompareLiterals(const spec::Type& type, const spec::Literal& a, const spec::Literal& b);

}  // namespace skade::avro
