// Partition and sort transforms (spec: "Partition Transforms").
//
// A Transform is a small value: its kind and, for bucket[N] and truncate[W],
// the parameter. Transforms this version does not know are kept by name as
// kUnknown so metadata written by newer writers round-trips unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "skade/spec/literal.h"
#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace skade::spec {

enum class TransformKind {
  kIdentity,
  kBucket,
  kTruncate,
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  kUnknown,
};

class Transform {
 public:
  Transform() = default;
  static Transform Identity() { return Transform(TransformKind::kIdentity, 0); }
  static Transform Bucket(int32_t buckets) { return Transform(TransformKind::kBucket, buckets); }
  static Transform Truncate(int32_t width) { return Transform(TransformKind::kTruncate, width); }
  static Transform Year() { return Transform(TransformKind::kYear, 0); }
  static Transform Month() { return Transform(TransformKind::kMonth, 0); }
  static Transform Day() { return Transform(TransformKind::kDay, 0); }
  static Transform Hour() { return Transform(TransformKind::kHour, 0); }
  static Transform Void() { return Transform(TransformKind::kVoid, 0); }

  /// Parses "identity", "bucket[16]", "truncate[4]", "year", … . A name that
  /// is not a known transform parses as kUnknown; a known name with a bad
  /// parameter ("bucket[0]") is kInvalidArgument.
  static Result<Transform> Parse(std::string_view text);

  TransformKind kind() const { return kind_; }
  int32_t param() const { return param_; }

  /// The name as written in metadata JSON, e.g. "bucket[16]".
  std::string ToString() const;

  /// True if this transform accepts values of `source`.
  bool CanTransform(const Type& source) const;

  /// The type of the transformed values (year/month/day/hour → int, bucket →
  /// int, identity/truncate/void → the source type). kInvalidArgument if the
  /// source type is not supported.
  Result<TypePtr> ResultType(const TypePtr& source) const;

  /// The transform of one value; `value`'s type is the source type. The
  /// result is a literal of ResultType (null for a null value and for
  /// void). Semantics as the spec defines them: bucket[N] is
  /// (hash & INT32_MAX) % N with the hash of bucket_hash.h; truncate[W] is
  /// v - (v mod W) for int, long and the unscaled decimal, the first W code
  /// points of a string and the first W bytes of binary; year, month, day
  /// and hour count from 1970-01-01T00:00 with floor division (nanosecond
  /// timestamps floored to µs first). data/transform_array.h applies the
  /// same rules to Arrow arrays. kInvalidArgument if the transform does not
  /// apply to the type or the value does not hold it; kUnsupported for an
  /// unknown transform.
  Result<Literal> Apply(const Literal& value) const;

  bool operator==(const Transform& other) const {
    return kind_ == other.kind_ && param_ == other.param_ && unknown_name_ == other.unknown_name_;
  }
  bool operator!=(const Transform& other) const { return !(*this == other); }

 private:
  Transform(TransformKind kind, int32_t param) : kind_(kind), param_(param) {}

  TransformKind kind_ = TransformKind::kIdentity;
  int32_t param_ = 0;
  std::string unknown_name_;
};

}  // namespace skade::spec
