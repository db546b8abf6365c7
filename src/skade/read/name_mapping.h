// NameMapping: Iceberg's fallback from column names to field ids for data
// files written without ids (imported Parquet, some PyIceberg and Spark
// add-files paths), read from the `schema.name-mapping.default` table
// property (spec: "Column Projection", "Name Mapping Serialization").
//
// A mapped field lists the names it has had and optionally an id and the
// mappings of its nested fields (struct fields by name, a list's "element",
// a map's "key" and "value"). Immutable after Parse; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace arrow {
class Schema;
}  // namespace arrow

namespace skade::read {

/// The table property that holds a table's default name mapping.
inline constexpr char kDefaultNameMappingProperty[] = "schema.name-mapping.default";

class NameMapping {
 public:
  struct MappedField {
    std::optional<int32_t> field_id;
    std::vector<std::string> names;
    std::vector<MappedField> fields;
  };

  /// Parses the JSON form (a list of mapped fields). kInvalidArgument, with
  /// the JSON path of the fault, for anything else.
  static Result<NameMapping> Parse(std::string_view json);

  const std::vector<MappedField>& fields() const { return fields_; }

  /// `schema` with "PARQUET:field_id" on every field, list element and map
  /// key/value the mapping names (at every level); fields it does not name
  /// are left without an id, so they are not read.
  std::shared_ptr<arrow::Schema> Apply(const arrow::Schema& schema) const;

 private:
  std::vector<MappedField> fields_;
};

}  // namespace skade::read
