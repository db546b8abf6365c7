// Partition transforms (spec: "Partition Transforms") over Arrow arrays.
//
// Stateless; thread-safe.
#pragma once

#include <memory>

#include "skade/spec/transform.h"
#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace arrow {
class Array;
}  // namespace arrow

namespace skade::data {

/// Applies `transform` to every value of `values`, an array holding the
/// Iceberg `source` type as ConformBatch leaves it. Nulls map to null.
///
/// The result is an array of the transform's result type: int32 for
/// bucket, year, month and hour; date32 for day; the source's own
/// representation for identity (`values` itself) and truncate; all nulls for
/// void. Each slot is what spec::Transform::Apply gives for that value: both
/// compute through spec/transform_internal.h and spec/bucket_hash.h.
///
/// kInvalidArgument if the transform does not apply to `source` or the
/// array does not hold it; kUnsupported for an unknown transform.
Result<std::shared_ptr<arrow::Array>> ApplyTransform(const spec::Transform& transform,
                                                     const spec::TypePtr& source,
                                                     const std::shared_ptr<arrow::Array>& values);

}  // namespace skade::data
