#include "skade/data/transform_array.h"

#include <arrow/api.h>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/arrow_values_internal.h"
#include "skade/data/decimal_internal.h"
#include "skade/spec/bucket_hash.h"
#include "skade/spec/transform_internal.h"
#include "skade/spec/truncation.h"

namespace skade::data {

namespace {

using spec::BucketHashBytes;
using spec::BucketHashInt;
using spec::BucketHashLong;
using spec::BucketHashTimestampNanos;
using spec::BucketOf;
using spec::TransformKind;
using spec::TypeId;
namespace internal = spec::internal;

// Builds an array of `type` with `fn(i)` at every slot where `in` has a
// value and null elsewhere. `Builder` must match `type`.
template <typename Builder, typename Fn>
Result<std::shared_ptr<arrow::Array>> MapValues(const arrow::Array& in,
                                                const std::shared_ptr<arrow::DataType>& type,
                                                Fn&& fn) {
  std::unique_ptr<arrow::ArrayBuilder> base;
  SKADE_RETURN_NOT_OK_ARROW(arrow::MakeBuilder(arrow::default_memory_pool(), type, &base));
  auto* builder = static_cast<Builder*>(base.get());
  SKADE_RETURN_NOT_OK_ARROW(builder->Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      builder->UnsafeAppendNull();
    } else {
      builder->UnsafeAppend(fn(i));
    }
  }
  std::shared_ptr<arrow::Array> out;
  SKADE_RETURN_NOT_OK_ARROW(builder->Finish(&out));
  return out;
}

// As MapValues for variable-length binary results, which cannot be
// appended unsafely.
template <typename Builder, typename Fn>
Result<std::shared_ptr<arrow::Array>> MapBinaryValues(const arrow::Array& in,
                                                      const std::shared_ptr<arrow::DataType>& type,
                                                      Fn&& fn) {
  std::unique_ptr<arrow::ArrayBuilder> base;
  SKADE_RETURN_NOT_OK_ARROW(arrow::MakeBuilder(arrow::default_memory_pool(), type, &base));
  auto* builder = static_cast<Builder*>(base.get());
  SKADE_RETURN_NOT_OK_ARROW(builder->Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      SKADE_RETURN_NOT_OK_ARROW(builder->AppendNull());
    } else {
      SKADE_RETURN_NOT_OK_ARROW(builder->Append(fn(i)));
    }
  }
  std::shared_ptr<arrow::Array> out;
  SKADE_RETURN_NOT_OK_ARROW(builder->Finish(&out));
  return out;
}

bool HoldsInt32(const arrow::Array& array) {
  return array.type_id() == arrow::Type::INT32 || array.type_id() == arrow::Type::DATE32;
}

bool HoldsInt64(const arrow::Array& array) {
  auto id = array.type_id();
  return id == arrow::Type::INT64 || id == arrow::Type::TIME64 || id == arrow::Type::TIMESTAMP;
}

bool IsNanos(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }

Result<std::shared_ptr<arrow::Array>> Bucket(int32_t buckets, const spec::Type& source,
                                             const arrow::Array& values) {
  auto int32 = arrow::int32();
  auto bucket = [buckets](int32_t hash) { return BucketOf(hash, buckets); };
  switch (source.id()) {
    case TypeId::kInt:
    case TypeId::kDate: {
      if (!HoldsInt32(values)) break;
      const int32_t* raw = values.data()->GetValues<int32_t>(1);
      return MapValues<arrow::Int32Builder>(
          values, int32, [&](int64_t i) { return bucket(BucketHashInt(raw[i])); });
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      if (!HoldsInt64(values)) break;
      const int64_t* raw = values.data()->GetValues<int64_t>(1);
      if (IsNanos(source.id())) {
        return MapValues<arrow::Int32Builder>(
            values, int32, [&](int64_t i) { return bucket(BucketHashTimestampNanos(raw[i])); });
      }
      return MapValues<arrow::Int32Builder>(
          values, int32, [&](int64_t i) { return bucket(BucketHashLong(raw[i])); });
    }
    case TypeId::kDecimal: {
      if (values.type_id() != arrow::Type::DECIMAL128) break;
      const auto& decimals = static_cast<const arrow::Decimal128Array&>(values);
      return MapValues<arrow::Int32Builder>(values, int32, [&](int64_t i) {
        return bucket(BucketHashBytes(MinimalBigEndian(FromArrowDecimal128(decimals.GetValue(i)))));
      });
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      BinaryValues bytes(StorageOf(values));
      if (!bytes.valid()) break;
      return MapValues<arrow::Int32Builder>(
          values, int32, [&](int64_t i) { return bucket(BucketHashBytes(bytes[i])); });
    }
    default:
      break;
  }
  return InvalidArgument("Cannot bucket Arrow type ", values.type()->ToString(), " as ",
                         source.ToString());
}

Result<std::shared_ptr<arrow::Array>> Truncate(int32_t width, const spec::Type& source,
                                               const arrow::Array& values) {
  switch (source.id()) {
    case TypeId::kInt: {
      if (!HoldsInt32(values)) break;
      const int32_t* raw = values.data()->GetValues<int32_t>(1);
      return MapValues<arrow::Int32Builder>(
          values, values.type(), [&](int64_t i) { return internal::TruncateInt(raw[i], width); });
    }
    case TypeId::kLong: {
      if (!HoldsInt64(values)) break;
      const int64_t* raw = values.data()->GetValues<int64_t>(1);
      return MapValues<arrow::Int64Builder>(
          values, values.type(), [&](int64_t i) { return internal::TruncateLong(raw[i], width); });
    }
    case TypeId::kDecimal: {
      if (values.type_id() != arrow::Type::DECIMAL128) break;
      const auto& decimals = static_cast<const arrow::Decimal128Array&>(values);
      return MapValues<arrow::Decimal128Builder>(values, values.type(), [&](int64_t i) {
        Int128 truncated =
            internal::TruncateDecimal(FromArrowDecimal128(decimals.GetValue(i)), width);
        return arrow::Decimal128(static_cast<int64_t>(truncated >> 64),
                                 static_cast<uint64_t>(truncated));
      });
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      BinaryValues bytes(values);
      bool is_string = source.id() == TypeId::kString;
      auto cut = [&](int64_t i) {
        return is_string ? spec::TruncateUtf8(bytes[i], width)
                         : spec::TruncateBinary(bytes[i], width);
      };
      auto id = values.type_id();
      if (id == arrow::Type::STRING || id == arrow::Type::BINARY) {
        return MapBinaryValues<arrow::BinaryBuilder>(values, values.type(), cut);
      }
      if (id == arrow::Type::LARGE_STRING || id == arrow::Type::LARGE_BINARY) {
        return MapBinaryValues<arrow::LargeBinaryBuilder>(values, values.type(), cut);
      }
      break;
    }
    default:
      break;
  }
  return InvalidArgument("Cannot truncate Arrow type ", values.type()->ToString(), " as ",
                         source.ToString());
}

Result<std::shared_ptr<arrow::Array>> Temporal(TransformKind kind, const spec::Type& source,
                                               const std::shared_ptr<arrow::Array>& values) {
  // Reduces each value to days (or, for hour, microseconds) since the epoch.
  auto result_type = kind == TransformKind::kDay ? arrow::date32() : arrow::int32();
  auto from_days = [kind](int64_t days) -> int32_t {
    switch (kind) {
      case TransformKind::kYear:
        return spec::YearsFromEpoch(days);
      case TransformKind::kMonth:
        return spec::MonthsFromEpoch(days);
      default:
        return static_cast<int32_t>(days);
    }
  };
  if (source.id() == TypeId::kDate && values->type_id() == arrow::Type::DATE32) {
    if (kind == TransformKind::kDay) return values;
    const int32_t* raw = values->data()->GetValues<int32_t>(1);
    return MapValues<arrow::Int32Builder>(*values, result_type,
                                          [&](int64_t i) { return from_days(raw[i]); });
  }
  if (source.id() != TypeId::kDate && values->type_id() == arrow::Type::TIMESTAMP) {
    const int64_t* raw = values->data()->GetValues<int64_t>(1);
    bool nanos = IsNanos(source.id());
    auto micros = [&](int64_t i) { return nanos ? internal::MicrosFromNanos(raw[i]) : raw[i]; };
    if (kind == TransformKind::kHour) {
      return MapValues<arrow::Int32Builder>(
          *values, result_type, [&](int64_t i) { return internal::HourFromMicros(micros(i)); });
    }
    if (kind == TransformKind::kDay) {
      return MapValues<arrow::Date32Builder>(
          *values, result_type, [&](int64_t i) { return internal::DayFromMicros(micros(i)); });
    }
    return MapValues<arrow::Int32Builder>(*values, result_type, [&](int64_t i) {
      return from_days(internal::DayFromMicros(micros(i)));
    });
  }
  return InvalidArgument("Cannot apply a time transform to Arrow type ", values->type()->ToString(),
                         " as ", source.ToString());
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> ApplyTransform(const spec::Transform& transform,
                                                     const spec::TypePtr& source,
                                                     const std::shared_ptr<arrow::Array>& values) {
  if (transform.kind() == TransformKind::kUnknown) {
    return Unsupported("Cannot write data with the unknown transform ", transform.ToString());
  }
  SKADE_ASSIGN_OR_RAISE(auto result_type, transform.ResultType(source));
  switch (transform.kind()) {
    case TransformKind::kIdentity:
      return values;
    case TransformKind::kVoid: {
      SKADE_ASSIGN_OR_RAISE(auto type, ToArrowType(*result_type));
      return FromArrowResult(arrow::MakeArrayOfNull(type, values->length()));
    }
    case TransformKind::kBucket:
      return Bucket(transform.param(), *source, *values);
    case TransformKind::kTruncate:
      return Truncate(transform.param(), *source, *values);
    default:
      return Temporal(transform.kind(), *source, values);
  }
}

}  // namespace skade::data
