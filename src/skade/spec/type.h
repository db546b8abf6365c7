// Iceberg data types (spec: "Schemas and Data Types").
//
// Types are immutable values shared as TypePtr. Primitive types are
// singletons; nested types own their fields. Thread-safe once built.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::spec {

enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,    // v3
  kTimestampTzNs,  // v3
  kString,
  kUuid,
  kFixed,
  kBinary,
  kUnknown,    // v3
  kVariant,    // v3
  kGeometry,   // v3
  kGeography,  // v3
  kStruct,
  kList,
  kMap,
};

class Type;
using TypePtr = std::shared_ptr<const Type>;

/// A field of a struct, or the element/key/value of a list or map.
struct NestedField {
  int32_t id = 0;
  std::string name;
  TypePtr type;
  bool required = false;
  std::optional<std::string> doc;
  /// v3 default values, kept as their JSON single-value text.
  std::optional<std::string> initial_default_json;
  std::optional<std::string> write_default_json;

  bool operator==(const NestedField& other) const;
};

class Type {
 public:
  // Primitive singletons.
  static TypePtr Boolean();
  static TypePtr Int();
  static TypePtr Long();
  static TypePtr Float();
  static TypePtr Double();
  static TypePtr Date();
  static TypePtr Time();
  static TypePtr Timestamp();
  static TypePtr TimestampTz();
  static TypePtr TimestampNs();
  static TypePtr TimestampTzNs();
  static TypePtr String();
  static TypePtr Uuid();
  static TypePtr Binary();
  static TypePtr Unknown();
  static TypePtr Variant();
  static TypePtr Decimal(int32_t precision, int32_t scale);
  static TypePtr Fixed(int32_t length);
  /// geometry(crs); `crs` empty means the default (OGC:CRS84).
  static TypePtr Geometry(std::string crs);
  /// geography(crs, algorithm); empty parts mean the defaults.
  static TypePtr Geography(std::string crs, std::string algorithm);

  static TypePtr Struct(std::vector<NestedField> fields);
  static TypePtr List(NestedField element);
  static TypePtr Map(NestedField key, NestedField value);

  /// Parses a primitive type name as written in schema JSON, e.g. "long",
  /// "decimal(9, 2)", "fixed[16]". Errors are kInvalidArgument.
  static Result<TypePtr> ParsePrimitive(std::string_view name);

  TypeId id() const { return id_; }
  bool is_primitive() const { return id_ < TypeId::kStruct; }
  bool is_nested() const { return !is_primitive(); }

  int32_t decimal_precision() const { return precision_; }
  int32_t decimal_scale() const { return scale_; }
  int32_t fixed_length() const { return precision_; }
  const std::string& geo_crs() const { return crs_; }
  const std::string& geo_algorithm() const { return algorithm_; }

  /// Struct fields; the single element field of a list; key and value of a map.
  const std::vector<NestedField>& fields() const { return fields_; }
  const NestedField& list_element() const { return fields_[0]; }
  const NestedField& map_key() const { return fields_[0]; }
  const NestedField& map_value() const { return fields_[1]; }

  /// A primitive's name as written in JSON ("decimal(9, 2)"); for nested
  /// types "struct", "list" or "map".
  std::string ToString() const;

  /// True for types only format version 3 allows.
  bool RequiresV3() const;

  bool Equals(const Type& other) const;

 private:
  explicit Type(TypeId id) : id_(id) {}

  TypeId id_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  std::string crs_;
  std::string algorithm_;
  std::vector<NestedField> fields_;
};

bool TypeEquals(const TypePtr& a, const TypePtr& b);

/// Whether a column of type `from` may become `to` in a later schema of a
/// table of `format_version`: the same type (for a struct, list or map only
/// the kind: their fields are checked by their own ids), or a promotion the
/// Iceberg spec allows — int to long, float to double, a decimal to a wider
/// one of the same scale, and from v3 date to timestamp(_ns) and unknown to
/// any type.
bool CanPromote(const Type& from, const Type& to, int format_version);

}  // namespace skade::spec
