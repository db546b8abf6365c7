#include "skade/spec/transform.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <variant>

#include "skade/spec/bucket_hash.h"
#include "skade/spec/transform_internal.h"
#include "skade/spec/truncation.h"
#include "skade/util/strings.h"

namespace skade::spec {

Result<Transform> Transform::Parse(std::string_view raw) {
  std::string_view text = StripWhitespace(raw);
  std::string lower = AsciiLower(text);
  if (lower == "identity") return Identity();
  if (lower == "year") return Year();
  if (lower == "month") return Month();
  if (lower == "day") return Day();
  if (lower == "hour") return Hour();
  if (lower == "void") return Void();
  std::string_view rest = lower;
  bool is_bucket = ConsumePrefix(&rest, "bucket[");
  bool is_truncate = !is_bucket && ConsumePrefix(&rest, "truncate[");
  if (is_bucket || is_truncate) {
    std::optional<int32_t> param;
    if (!ConsumeSuffix(&rest, "]") || !(param = ParseInt32(rest)) || *param <= 0) {
      return InvalidArgument("Invalid transform: ", text);
    }
    return is_bucket ? Bucket(*param) : Truncate(*param);
  }
  // Iceberg Java reads `name[digits]` as a transform with an int width
  // (Transforms.fromString): digits past an int would make it fail to read
  // the table.
  if (size_t open = rest.find('[');
      open != std::string_view::npos && open > 0 && rest.ends_with(']')) {
    std::string_view width = rest.substr(open + 1, rest.size() - open - 2);
    const bool word = std::all_of(rest.begin(), rest.begin() + open, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    const bool digits = !width.empty() && std::all_of(width.begin(), width.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
    if (word && digits && !ParseInt32(width)) return InvalidArgument("Invalid transform: ", text);
  }
  Transform unknown(TransformKind::kUnknown, 0);
  unknown.unknown_name_ = std::string(text);
  return unknown;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return StrCat("bucket[", param_, "]");
    case TransformKind::kTruncate:
      return StrCat("truncate[", param_, "]");
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
    case TransformKind::kUnknown:
      return unknown_name_;
  }
  return unknown_name_;
}

bool Transform::CanTransform(const Type& source) const {
  TypeId id = source.id();
  switch (kind_) {
    case TransformKind::kVoid:
    case TransformKind::kUnknown:
      return true;
    case TransformKind::kIdentity:
      return source.is_primitive() && id != TypeId::kVariant && id != TypeId::kGeometry &&
             id != TypeId::kGeography;
    case TransformKind::kBucket:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDecimal ||
             id == TypeId::kDate || id == TypeId::kTime || id == TypeId::kTimestamp ||
             id == TypeId::kTimestampTz || id == TypeId::kTimestampNs ||
             id == TypeId::kTimestampTzNs || id == TypeId::kString || id == TypeId::kUuid ||
             id == TypeId::kFixed || id == TypeId::kBinary;
    case TransformKind::kTruncate:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDecimal ||
             id == TypeId::kString || id == TypeId::kBinary;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampTz ||
             id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
    case TransformKind::kHour:
      return id == TypeId::kTimestamp || id == TypeId::kTimestampTz || id == TypeId::kTimestampNs ||
             id == TypeId::kTimestampTzNs;
  }
  return false;
}

Result<TypePtr> Transform::ResultType(const TypePtr& source) const {
  if (!CanTransform(*source)) {
    return InvalidArgument("Invalid source type ", source->ToString(),
                           " for transform: ", ToString());
  }
  switch (kind_) {
    case TransformKind::kBucket:
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kHour:
      return Type::Int();
    case TransformKind::kDay:
      // The spec's result type for day is date; it is stored as an int.
      return Type::Date();
    default:
      return source;
  }
}

namespace {

bool IsNanos(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }

// The hash bucket[N] reduces; nullopt when `value` does not hold `id`.
std::optional<int32_t> HashForBucket(TypeId id, const Literal::Value& value) {
  switch (id) {
    case TypeId::kInt:
    case TypeId::kDate:
      if (const auto* v = std::get_if<int32_t>(&value)) return BucketHashInt(*v);
      break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (const auto* v = std::get_if<int64_t>(&value)) return BucketHashLong(*v);
      break;
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (const auto* v = std::get_if<int64_t>(&value)) return BucketHashTimestampNanos(*v);
      break;
    case TypeId::kDecimal:
      // Hashed in minimal form, whatever width the literal was read with.
      if (const auto* v = std::get_if<std::string>(&value)) {
        return BucketHashBytes(MinimalBigEndian(FromBigEndian(*v)));
      }
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid:
      if (const auto* v = std::get_if<std::string>(&value)) return BucketHashBytes(*v);
      break;
    default:
      break;
  }
  return std::nullopt;
}

std::optional<Literal::Value> TruncateValue(TypeId id, int32_t width, const Literal::Value& value) {
  switch (id) {
    case TypeId::kInt:
      if (const auto* v = std::get_if<int32_t>(&value)) return internal::TruncateInt(*v, width);
      break;
    case TypeId::kLong:
      if (const auto* v = std::get_if<int64_t>(&value)) return internal::TruncateLong(*v, width);
      break;
    case TypeId::kDecimal:
      if (const auto* v = std::get_if<std::string>(&value)) {
        return MinimalBigEndian(internal::TruncateDecimal(FromBigEndian(*v), width));
      }
      break;
    case TypeId::kString:
      if (const auto* v = std::get_if<std::string>(&value)) {
        return std::string(TruncateUtf8(*v, width));
      }
      break;
    case TypeId::kBinary:
      if (const auto* v = std::get_if<std::string>(&value)) {
        return std::string(TruncateBinary(*v, width));
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

std::optional<int32_t> TimeValue(TransformKind kind, TypeId id, const Literal::Value& value) {
  int64_t days = 0;
  if (id == TypeId::kDate) {
    const auto* v = std::get_if<int32_t>(&value);
    if (v == nullptr) return std::nullopt;
    days = *v;
  } else {
    const auto* v = std::get_if<int64_t>(&value);
    if (v == nullptr) return std::nullopt;
    int64_t micros = IsNanos(id) ? internal::MicrosFromNanos(*v) : *v;
    if (kind == TransformKind::kHour) return internal::HourFromMicros(micros);
    days = internal::DayFromMicros(micros);
  }
  switch (kind) {
    case TransformKind::kYear:
      return YearsFromEpoch(days);
    case TransformKind::kMonth:
      return MonthsFromEpoch(days);
    default:
      return static_cast<int32_t>(days);
  }
}

}  // namespace

Result<Literal> Transform::Apply(const Literal& value) const {
  if (kind_ == TransformKind::kUnknown) {
    return Unsupported("Cannot apply the unknown transform ", ToString());
  }
  const TypePtr& source = value.type();
  if (!source) return InvalidArgument("Cannot apply ", ToString(), " to an untyped value");
  SKADE_ASSIGN_OR_RAISE(auto result_type, ResultType(source));
  if (value.is_null() || kind_ == TransformKind::kVoid) return Literal::Null(result_type);
  switch (kind_) {
    case TransformKind::kIdentity:
      return value;
    case TransformKind::kBucket:
      if (auto hash = HashForBucket(source->id(), value.value())) {
        return Literal(result_type, BucketOf(*hash, param_));
      }
      break;
    case TransformKind::kTruncate:
      if (auto truncated = TruncateValue(source->id(), param_, value.value())) {
        return Literal(result_type, std::move(*truncated));
      }
      break;
    default:
      if (auto transformed = TimeValue(kind_, source->id(), value.value())) {
        return Literal(result_type, *transformed);
      }
      break;
  }
  return InvalidArgument("Cannot apply ", ToString(), " to ", value.ToString(), ": the value does ",
                         "not hold a ", source->ToString());
}

}  // namespace skade::spec
