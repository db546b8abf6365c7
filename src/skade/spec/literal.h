// A single typed value: partition tuple entries, column bounds, defaults.
//
// Representation by type: boolean → bool; int, date → int32 (days); long,
// time, timestamp(tz) → int64 (µs), timestamp(tz)_ns → int64 (ns); float;
// double; string → UTF-8 bytes; binary, fixed, uuid (16 bytes) and decimal
// (unscaled, big-endian two's complement, minimal length) → bytes in a
// std::string. A null literal has no value but keeps its type. Values;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace skade::spec {

class Literal {
 public:
  using Value = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string>;

  Literal() = default;
  Literal(TypePtr type, Value value) : type_(std::move(type)), value_(std::move(value)) {}

  static Literal Null(TypePtr type) { return Literal(std::move(type), std::monostate{}); }
  static Literal Boolean(bool v) { return Literal(Type::Boolean(), v); }
  static Literal Int(int32_t v) { return Literal(Type::Int(), v); }
  static Literal Long(int64_t v) { return Literal(Type::Long(), v); }
  static Literal Float(float v) { return Literal(Type::Float(), v); }
  static Literal Double(double v) { return Literal(Type::Double(), v); }
  static Literal Date(int32_t days) { return Literal(Type::Date(), days); }
  static Literal String(std::string v) { return Literal(Type::String(), std::move(v)); }
  static Literal Binary(std::string bytes) { return Literal(Type::Binary(), std::move(bytes)); }

  const TypePtr& type() const { return type_; }
  const Value& value() const { return value_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }

  /// Iceberg's single-value binary serialization (spec: "Appendix D"), used
  /// for lower/upper bounds. A null literal serializes to an empty string.
  std::string ToBytes() const;
  /// Reads a value of `type` from its single-value binary form.
  static Result<Literal> FromBytes(const TypePtr& type, std::string_view bytes);

  /// A readable rendering for messages and CLI output (not a wire format).
  std::string ToString() const;

  bool operator==(const Literal& other) const {
    return TypeEquals(type_, other.type_) && value_ == other.value_;
  }

 private:
  TypePtr type_;
  Value value_;
};

}  // namespace skade::spec
