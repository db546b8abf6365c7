// A schema with a column of every primitive type the expression tests bind
// to, plus a struct, a list and a required column.
#pragma once

#include <memory>

#include "skade/spec/schema.h"

namespace skade::expr::testing {

inline std::shared_ptr<const spec::Schema> AllTypesSchema() {
  using spec::NestedField;
  using spec::Type;
  std::vector<NestedField> fields = {
      {1, "id", Type::Long(), true},
      {2, "i", Type::Int(), false},
      {3, "name", Type::String(), false},
      {4, "d", Type::Date(), false},
      {5, "ts", Type::Timestamp(), false},
      {6, "tstz", Type::TimestampTz(), false},
      {7, "tsns", Type::TimestampNs(), false},
      {8, "dec", Type::Decimal(9, 2), false},
      {9, "u", Type::Uuid(), false},
      {10, "b", Type::Binary(), false},
      {11, "f", Type::Float(), false},
      {12, "x", Type::Double(), false},
      {13, "fx", Type::Fixed(3), false},
      {14, "flag", Type::Boolean(), false},
      {15, "loc", Type::Struct({{16, "lat", Type::Double(), false}}), false},
      {17, "tags", Type::List({18, "element", Type::String(), false}), false},
      {19, "t", Type::Time(), false},
      {20, "tstzns", Type::TimestampTzNs(), false},
      {21, "ri", Type::Int(), true},
  };
  return std::make_shared<const spec::Schema>(0, std::move(fields));
}

}  // namespace skade::expr::testing
