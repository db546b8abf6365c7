// Avro schemas (Avro 1.11 spec: "Schema Declaration") as Iceberg uses them,
// with every custom attribute kept.
//
// Iceberg stores its field ids in Avro attributes (`field-id` on record
// fields, `element-id` on arrays, `key-id`/`value-id` on maps) next to
// `logicalType`, `adjust-to-utc` and others; a schema parsed from a file
// header and written back keeps all of them, in order, as raw JSON.
//
// Supported: the primitives, record, enum, array, map, union and fixed, with
// named-type references and namespaces. Recursive types are rejected (no
// Iceberg file uses them, and rejecting them keeps every walk finite), as is
// nesting deeper than kMaxSchemaDepth.
//
// Nodes are built once and shared as NodePtr (immutable once published);
// a named type referenced twice is the same node. Thread-safe once built.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::avro {

enum class AvroType {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// "null", "boolean", …, "fixed".
std::string_view AvroTypeName(AvroType type);

inline constexpr int kMaxSchemaDepth = 64;

/// A property that Avro itself does not interpret, e.g. `"field-id": 100`.
struct Attribute {
  std::string name;
  /// The value as compact JSON text (`100`, `true`, `"map"`).
  std::string json;

  bool operator==(const Attribute& other) const = default;
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Field {
  std::string name;
  NodePtr type;
  std::optional<std::string> doc;
  /// The `default` value as compact JSON text.
  std::optional<std::string> default_json;
  /// Other properties in file order (`field-id`, `iceberg-field-name`, …).
  std::vector<Attribute> attributes;
  /// The integer value of the `field-id` attribute, if there is one.
  std::optional<int32_t> field_id;
};

struct Node {
  AvroType type = AvroType::kNull;
  /// Named types (record, enum, fixed): the name as written and namespace.
  std::string name;
  std::string name_space;
  std::optional<std::string> doc;
  /// The `logicalType` attribute, or empty.
  std::string logical_type;
  /// Other properties in file order (`element-id`, `precision`, …).
  std::vector<Attribute> attributes;

  std::vector<Field> fields;         // record
  std::vector<std::string> symbols;  // enum
  NodePtr items;                     // array
  NodePtr values;                    // map
  std::vector<NodePtr> branches;     // union
  int32_t fixed_size = 0;            // fixed

  /// The full name: "namespace.name", or the name if there is no namespace.
  std::string FullName() const;

  /// The attribute named `name` as raw JSON, or nullptr.
  const Attribute* FindAttribute(std::string_view name) const;
  /// The attribute as an integer (`element-id`, `precision`, …); nullopt if
  /// missing or not an integer.
  std::optional<int64_t> IntAttribute(std::string_view name) const;
  /// The attribute as a boolean; also accepts the strings "true"/"false".
  std::optional<bool> BoolAttribute(std::string_view name) const;

  /// For a union of null and one other type, that type; nullptr otherwise.
  const Node* NonNullBranch() const;
  /// Index of the null branch of a union, or -1.
  int NullBranchIndex() const;
};

/// The shared node of a primitive type (kNull through kString) with no
/// attributes.
NodePtr Primitive(AvroType type);

/// Parses a schema from its JSON text. Errors are kInvalidArgument.
Result<NodePtr> ParseSchema(std::string_view json);

/// The schema as compact JSON. A named type is defined where it first
/// appears and referenced by full name afterwards.
std::string SchemaToJson(const Node& node);

}  // namespace skade::avro
