#include "skade/spec/literal.h"

#include <bit>
#include <cstring>

#include "skade/util/strings.h"

namespace skade::spec {

namespace {

template <typename T>
std::string LittleEndian(T value) {
  static_assert(std::endian::native == std::endian::little);
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

template <typename T>
T FromLittleEndian(std::string_view bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

}  // namespace

std::string Literal::ToBytes() const {
  if (is_null() || !type_) return {};
  switch (type_->id()) {
    case TypeId::kBoolean:
      return std::string(1, std::get<bool>(value_) ? '\x01' : '\x00');
    case TypeId::kInt:
    case TypeId::kDate:
      return LittleEndian(std::get<int32_t>(value_));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return LittleEndian(std::get<int64_t>(value_));
    case TypeId::kFloat:
      return LittleEndian(std::get<float>(value_));
    case TypeId::kDouble:
      return LittleEndian(std::get<double>(value_));
    default:
      // string (UTF-8), binary, fixed, uuid (16 bytes big-endian) and decimal
      // (unscaled big-endian two's complement) are stored as their bytes.
      return std::get<std::string>(value_);
  }
}

Result<Literal> Literal::FromBytes(const TypePtr& type, std::string_view bytes) {
  auto expect_size = [&](size_t size) -> Status {
    if (bytes.size() != size) {
      return InvalidArgument("Invalid ", type->ToString(), " value: expected ", size,
                             " bytes, got ", bytes.size());
    }
    return OkStatus();
  };
  switch (type->id()) {
    case TypeId::kBoolean:
      SKADE_RETURN_NOT_OK(expect_size(1));
      return Literal(type, bytes[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      SKADE_RETURN_NOT_OK(expect_size(4));
      return Literal(type, FromLittleEndian<int32_t>(bytes));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      // Iceberg allows an int-sized lower/upper bound for a long column that
      // was promoted from int.
      if (type->id() == TypeId::kLong && bytes.size() == 4) {
        return Literal(type, static_cast<int64_t>(FromLittleEndian<int32_t>(bytes)));
      }
      SKADE_RETURN_NOT_OK(expect_size(8));
      return Literal(type, FromLittleEndian<int64_t>(bytes));
    case TypeId::kFloat:
      SKADE_RETURN_NOT_OK(expect_size(4));
      return Literal(type, FromLittleEndian<float>(bytes));
    case TypeId::kDouble:
      if (bytes.size() == 4)
        return Literal(type, static_cast<double>(FromLittleEndian<float>(bytes)));
      SKADE_RETURN_NOT_OK(expect_size(8));
      return Literal(type, FromLittleEndian<double>(bytes));
    case TypeId::kUuid:
      SKADE_RETURN_NOT_OK(expect_size(16));
      return Literal(type, std::string(bytes));
    case TypeId::kFixed:
      SKADE_RETURN_NOT_OK(expect_size(static_cast<size_t>(type->fixed_length())));
      return Literal(type, std::string(bytes));
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kDecimal:
      return Literal(type, std::string(bytes));
    default:
      return InvalidArgument("Cannot read a single value of type ", type->ToString());
  }
}

std::string Literal::ToString() const {
  if (is_null()) return "null";
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "null";
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (type_ && type_->id() == TypeId::kString) return v;
          static constexpr char kHex[] = "0123456789ABCDEF";
          std::string out = "0x";
          for (unsigned char c : v) {
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
          }
          return out;
        } else {
          return StrCat(v);
        }
      },
      value_);
}

}  // namespace skade::spec
