// Prunes manifests by the partition summaries of a manifest list (spec:
// "Manifest Lists", field_summary): the filter projected inclusively onto
// the manifest's spec, evaluated against each field's contains_null,
// contains_nan and lower/upper bounds. MayMatch is false only when no row of
// any file in the manifest can match. Thread-safe after construction.
#pragma once

#include "skade/expr/bound_expression.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::expr {

class ManifestEvaluator {
 public:
  /// `filter` is bound to `schema`; `spec` is the manifests' spec.
  static Result<ManifestEvaluator> Make(const BoundExpression& filter,
                                        const spec::PartitionSpec& spec,
                                        const spec::Schema& schema);
  /// A manifest of `spec`. A manifest without summaries (or with fewer than
  /// the spec has fields) may match.
  bool MayMatch(const spec::ManifestFile& manifest) const;

 private:
  ManifestEvaluator() = default;
  BoundExpressionPtr projected_;
  spec::TypePtr partition_type_;
};

}  // namespace skade::expr
