#include "skade/spec/transform.h"

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

}  // namespace skade::spec
