// Projection of a row filter onto a partition spec (spec: "Scan Planning";
// Iceberg Java's Projections): a filter over partition tuples.
//
// Inclusive: true for every partition that may hold a matching row (used to
// prune manifests and files). Strict: true only for partitions in which
// every row matches (used for residuals). Each transform projects as the
// spec's table describes — identity exactly; bucket only eq/in (inclusive)
// and not-eq/not-in (strict); truncate, year, month, day and hour keep
// order, with the boundary adjustments for lt/gt and for negative dates;
// `starts with` through truncate; void never. A predicate no partition field
// can project becomes true (inclusive) or false (strict). Predicates
// already on a transform (`day(ts) = …`) project through a field of that
// same transform of that column.
//
// The result is bound over the partition struct: BoundTerm.field_id is the
// partition field id, type its result type, no transform. Thread-safe.
#pragma once

#include "skade/expr/bound_expression.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::expr {

/// `filter` is bound to `schema`, the schema `spec` is bound to.
Result<BoundExpressionPtr> ProjectInclusive(const BoundExpression& filter,
                                            const spec::PartitionSpec& spec,
                                            const spec::Schema& schema);
Result<BoundExpressionPtr> ProjectStrict(const BoundExpression& filter,
                                         const spec::PartitionSpec& spec,
                                         const spec::Schema& schema);

}  // namespace skade::expr
