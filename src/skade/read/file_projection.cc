#include <arrow/array/util.h>
#include <arrow/compute/cast.h>
#include <arrow/scalar.h>
#include <arrow/util/decimal.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/decimal_internal.h"
#include "skade/expr/bound_expression.h"
#include "skade/read/file_projection_internal.h"

namespace skade::read {

namespace {

using spec::Literal;
using spec::NestedField;
using spec::TypeId;

// A column of `length` copies of `literal` (nulls when absent or null).
Result<std::shared_ptr<arrow::ArrayData>> ConstantData(const std::optional<Literal>& literal,
                                                       const std::shared_ptr<arrow::DataType>& type,
                                                       int64_t length) {
  if (!literal || literal->is_null()) {
    SKADE_ASSIGN_OR_RAISE_ARROW(auto nulls, arrow::MakeArrayOfNull(type, length));
    return nulls->data();
  }
  SKADE_ASSIGN_OR_RAISE(auto scalar, ScalarFromLiteral(*literal, type));
  SKADE_ASSIGN_OR_RAISE_ARROW(auto array, arrow::MakeArrayFromScalar(*scalar, length));
  return array->data();
}

int32_t IdOf(const arrow::Field& field) {
  auto id = data::FieldIdOf(field);
  return id ? *id : -1;
}

bool IsInteger(arrow::Type::type id) {
  return id == arrow::Type::INT8 || id == arrow::Type::INT16 || id == arrow::Type::INT32 ||
         id == arrow::Type::UINT8 || id == arrow::Type::UINT16 || id == arrow::Type::UINT32 ||
         id == arrow::Type::INT64;
}

// The Arrow conversions an Iceberg type promotion (or another writer's
// spelling of the same type: large and view strings and binaries, as pyarrow
// and Polars write them) needs; anything else is a schema the file was never
// written with. Dictionaries are decoded before this is asked.
bool CanCast(const arrow::DataType& from, const arrow::DataType& to) {
  if (from.id() == to.id()) return true;
  if (IsInteger(from.id()) && IsInteger(to.id())) return true;
  if (from.id() == arrow::Type::FLOAT && to.id() == arrow::Type::DOUBLE) return true;
  if (to.id() == arrow::Type::STRING) {
    return from.id() == arrow::Type::LARGE_STRING || from.id() == arrow::Type::STRING_VIEW;
  }
  if (to.id() == arrow::Type::BINARY) {
    return from.id() == arrow::Type::LARGE_BINARY || from.id() == arrow::Type::BINARY_VIEW;
  }
  return false;
}

Result<std::shared_ptr<arrow::ArrayData>> CastData(const std::shared_ptr<arrow::ArrayData>& data,
                                                   const std::shared_ptr<arrow::DataType>& type,
                                                   const NestedField& target,
                                                   const std::string& location) {
  auto cast = arrow::compute::Cast(arrow::MakeArray(data), type);
  if (!cast.ok()) {
    return InvalidArgument("Column ", target.name, " (id ", target.id, ") of ", location, ": ",
                           cast.status().message());
  }
  return cast->array();
}

// `data`, a list in any Arrow spelling (large, view, fixed-size), as a
// list of the same elements; nullptr when it is no list.
Result<std::shared_ptr<arrow::ArrayData>> AsList(const std::shared_ptr<arrow::ArrayData>& data,
                                                 const NestedField& target,
                                                 const std::string& location) {
  arrow::Result<std::shared_ptr<arrow::Array>> list;
  switch (data->type->id()) {
    case arrow::Type::LIST:
      return data;
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST:
      return CastData(data, arrow::list(data->type->field(0)), target, location);
    // Arrow 26 casts a list view to a list with too short an offsets buffer.
    case arrow::Type::LIST_VIEW:
      list =
          arrow::ListArray::FromListView(arrow::ListViewArray(data), arrow::default_memory_pool());
      break;
    case arrow::Type::LARGE_LIST_VIEW:
      list = arrow::LargeListArray::FromListView(arrow::LargeListViewArray(data),
                                                 arrow::default_memory_pool());
      break;
    default:
      return nullptr;
  }
  if (!list.ok()) {
    return InvalidArgument("Column ", target.name, " (id ", target.id, ") of ", location, ": ",
                           list.status().message());
  }
  return AsList((*list)->data(), target, location);
}

Result<std::shared_ptr<arrow::ArrayData>> ConvertData(const arrow::DataType& file_type,
                                                      const std::shared_ptr<arrow::ArrayData>& data,
                                                      const NestedField& target,
                                                      const std::shared_ptr<arrow::DataType>& type,
                                                      const std::string& location);

Result<std::shared_ptr<arrow::ArrayData>> ConvertStruct(
    const arrow::DataType& file_type, const std::shared_ptr<arrow::ArrayData>& data,
    const NestedField& target, const std::shared_ptr<arrow::DataType>& type,
    const std::string& location) {
  const auto& fields = target.type->fields();
  std::vector<std::shared_ptr<arrow::ArrayData>> children;
  // Children are not sliced by the parent's offset.
  int64_t child_length = data->offset + data->length;
  for (size_t j = 0; j < fields.size(); ++j) {
    const auto& child_type = type->field(static_cast<int>(j))->type();
    int index = -1;
    for (int i = 0; i < file_type.num_fields(); ++i) {
      if (IdOf(*file_type.field(i)) == fields[j].id) index = i;
    }
    if (index < 0) {
      SKADE_ASSIGN_OR_RAISE(Literal initial, InitialDefault(fields[j]));
      SKADE_ASSIGN_OR_RAISE(auto constant, ConstantData(initial, child_type, child_length));
      children.push_back(std::move(constant));
      continue;
    }
    SKADE_ASSIGN_OR_RAISE(
        auto child, ConvertData(*file_type.field(index)->type(), data->child_data[index], fields[j],
                                child_type, location));
    children.push_back(std::move(child));
  }
  return arrow::ArrayData::Make(type, data->length, {data->buffers[0]}, std::move(children),
                                data->null_count, data->offset);
}

Result<std::shared_ptr<arrow::ArrayData>> ConvertData(const arrow::DataType& file_type,
                                                      const std::shared_ptr<arrow::ArrayData>& data,
                                                      const NestedField& target,
                                                      const std::shared_ptr<arrow::DataType>& type,
                                                      const std::string& location) {
  auto mismatch = [&] {
    return InvalidArgument("Column ", target.name, " (id ", target.id, ") of ", location,
                           " has Arrow type ", data->type->ToString(), ", which cannot be read as ",
                           target.type->ToString());
  };
  switch (target.type->id()) {
    case TypeId::kStruct:
      if (data->type->id() != arrow::Type::STRUCT) return mismatch();
      return ConvertStruct(file_type, data, target, type, location);
    case TypeId::kList: {
      // The elements keep their file type here and are converted below.
      SKADE_ASSIGN_OR_RAISE(auto list, AsList(data, target, location));
      if (list == nullptr) return mismatch();
      SKADE_ASSIGN_OR_RAISE(
          auto values, ConvertData(*file_type.field(0)->type(), list->child_data[0],
                                   target.type->list_element(), type->field(0)->type(), location));
      return arrow::ArrayData::Make(type, list->length, {list->buffers[0], list->buffers[1]},
                                    {std::move(values)}, list->null_count, list->offset);
    }
    case TypeId::kMap: {
      if (data->type->id() != arrow::Type::MAP) return mismatch();
      const auto& file_map = static_cast<const arrow::MapType&>(file_type);
      const auto& map = static_cast<const arrow::MapType&>(*type);
      const auto& entries = data->child_data[0];
      SKADE_ASSIGN_OR_RAISE(auto keys,
                            ConvertData(*file_map.key_type(), entries->child_data[0],
                                        target.type->map_key(), map.key_type(), location));
      SKADE_ASSIGN_OR_RAISE(auto items,
                            ConvertData(*file_map.item_type(), entries->child_data[1],
                                        target.type->map_value(), map.item_type(), location));
      auto new_entries = arrow::ArrayData::Make(
          map.value_type(), entries->length, {entries->buffers[0]},
          {std::move(keys), std::move(items)}, entries->null_count, entries->offset);
      return arrow::ArrayData::Make(type, data->length, {data->buffers[0], data->buffers[1]},
                                    {std::move(new_entries)}, data->null_count, data->offset);
    }
    default:
      break;
  }
  if (data->type->Equals(*type)) return data;
  // A dictionary-encoded column (a pandas categorical) is its values.
  std::shared_ptr<arrow::ArrayData> dense = data;
  if (data->type->id() == arrow::Type::DICTIONARY) {
    const auto& values = static_cast<const arrow::DictionaryType&>(*data->type).value_type();
    SKADE_ASSIGN_OR_RAISE(dense, CastData(data, values, target, location));
  }
  if (dense->type->Equals(*type)) return dense;
  if (type->id() == arrow::Type::EXTENSION) {
    const auto& extension = static_cast<const arrow::ExtensionType&>(*type);
    const arrow::DataType& storage =
        dense->type->id() == arrow::Type::EXTENSION
            ? *static_cast<const arrow::ExtensionType&>(*dense->type).storage_type()
            : *dense->type;
    if (!storage.Equals(*extension.storage_type())) return mismatch();
    auto retyped = dense->Copy();
    retyped->type = type;
    return retyped;
  }
  if (!CanCast(*dense->type, *type)) return mismatch();
  return CastData(dense, type, target, location);
}

}  // namespace

Result<std::shared_ptr<arrow::Scalar>> ScalarFromLiteral(
    const Literal& literal, const std::shared_ptr<arrow::DataType>& type) {
  const auto& value = literal.value();
  switch (literal.type()->id()) {
    case TypeId::kBoolean:
      return std::make_shared<arrow::BooleanScalar>(std::get<bool>(value));
    case TypeId::kInt:
      return std::make_shared<arrow::Int32Scalar>(std::get<int32_t>(value));
    case TypeId::kDate:
      return std::make_shared<arrow::Date32Scalar>(std::get<int32_t>(value));
    case TypeId::kLong:
      return std::make_shared<arrow::Int64Scalar>(std::get<int64_t>(value));
    case TypeId::kTime:
      return std::make_shared<arrow::Time64Scalar>(std::get<int64_t>(value), type);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return std::make_shared<arrow::TimestampScalar>(std::get<int64_t>(value), type);
    case TypeId::kFloat:
      return std::make_shared<arrow::FloatScalar>(std::get<float>(value));
    case TypeId::kDouble:
      return std::make_shared<arrow::DoubleScalar>(std::get<double>(value));
    case TypeId::kString:
      return std::make_shared<arrow::StringScalar>(std::get<std::string>(value));
    case TypeId::kBinary:
      return std::make_shared<arrow::BinaryScalar>(std::get<std::string>(value));
    case TypeId::kFixed:
      return std::make_shared<arrow::FixedSizeBinaryScalar>(
          arrow::Buffer::FromString(std::get<std::string>(value)), type);
    case TypeId::kUuid: {
      auto storage = std::make_shared<arrow::FixedSizeBinaryScalar>(
          arrow::Buffer::FromString(std::get<std::string>(value)), arrow::fixed_size_binary(16));
      return std::make_shared<arrow::ExtensionScalar>(std::move(storage), type);
    }
    case TypeId::kDecimal: {
      spec::Int128 unscaled = spec::FromBigEndian(std::get<std::string>(value));
      uint8_t bytes[16];
      std::memcpy(bytes, &unscaled, sizeof(bytes));
      return std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(bytes), type);
    }
    default:
      return Unsupported("Cannot make a constant column of type ", literal.type()->ToString());
  }
}

Result<Literal> InitialDefault(const NestedField& field) {
  if (!field.initial_default_json) return Literal::Null(field.type);
  TypeId id = field.type->id();
  if (field.type->is_nested() || id == TypeId::kBinary || id == TypeId::kFixed) {
    return Unsupported("Cannot read the initial default of ", field.name, " (",
                       field.type->ToString(), ")");
  }
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(*field.initial_default_json).get(element) != simdjson::SUCCESS) {
    return InvalidArgument("Invalid initial default for ", field.name, ": ",
                           *field.initial_default_json);
  }
  Literal written;
  switch (element.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
      return Literal::Null(field.type);
    case simdjson::dom::element_type::BOOL:
      written = Literal::Boolean(bool(element));
      break;
    case simdjson::dom::element_type::INT64:
      written = Literal::Long(int64_t(element));
      break;
    case simdjson::dom::element_type::DOUBLE:
      written = Literal::Double(double(element));
      break;
    case simdjson::dom::element_type::STRING:
      written = Literal::String(std::string(std::string_view(element)));
      break;
    default:
      return InvalidArgument("Invalid initial default for ", field.name, ": ",
                             *field.initial_default_json);
  }
  if (written.type()->id() == id) return Literal(field.type, written.value());
  return expr::ConvertLiteral(written, field.type);
}

Result<FileProjection> FileProjection::Make(const arrow::Schema& file_schema,
                                            const spec::Schema& read_schema,
                                            const std::vector<int32_t>& ids,
                                            const std::map<int32_t, Literal>& constants,
                                            const std::string& location) {
  FileProjection projection;
  projection.location_ = location;
  std::map<int32_t, int> by_id;
  for (int i = 0; i < file_schema.num_fields(); ++i) {
    int32_t id = IdOf(*file_schema.field(i));
    if (id >= 0) by_id.emplace(id, i);
  }
  std::vector<int> file_field_of;  // per column, or -1
  for (int32_t id : ids) {
    Column column;
    column.field = read_schema.FindFieldById(id);
    if (column.field == nullptr || read_schema.FindParentId(id) != -1) {
      return InvalidArgument("Field id ", id, " is not a top-level field of the read schema");
    }
    SKADE_ASSIGN_OR_RAISE(column.type, data::ToArrowType(*column.field->type));
    auto found = by_id.find(id);
    if (found != by_id.end()) {
      column.file_field = file_schema.field(found->second);
      file_field_of.push_back(found->second);
      projection.file_fields_.push_back(found->second);
    } else {
      file_field_of.push_back(-1);
      auto constant = constants.find(id);
      if (constant != constants.end()) {
        column.constant = constant->second;
      } else {
        SKADE_ASSIGN_OR_RAISE(column.constant, InitialDefault(*column.field));
      }
      if (column.field->required && column.constant->is_null()) {
        return InvalidArgument("Data file ", location, " lacks the required column ",
                               column.field->name, " (id ", id, "), which has no default");
      }
    }
    projection.columns_.push_back(std::move(column));
  }
  auto& fields = projection.file_fields_;
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
  for (size_t c = 0; c < projection.columns_.size(); ++c) {
    if (file_field_of[c] < 0) continue;
    projection.columns_[c].batch_column = static_cast<int>(
        std::lower_bound(fields.begin(), fields.end(), file_field_of[c]) - fields.begin());
  }
  return projection;
}

Result<std::vector<std::shared_ptr<arrow::Array>>> FileProjection::Convert(
    const arrow::RecordBatch* batch, int64_t rows) const {
  std::vector<std::shared_ptr<arrow::Array>> out;
  out.reserve(columns_.size());
  for (const auto& column : columns_) {
    std::shared_ptr<arrow::ArrayData> data;
    if (column.batch_column >= 0) {
      SKADE_ASSIGN_OR_RAISE(
          data, ConvertData(*column.file_field->type(), batch->column_data(column.batch_column),
                            *column.field, column.type, location_));
    } else {
      SKADE_ASSIGN_OR_RAISE(data, ConstantData(column.constant, column.type, rows));
    }
    out.push_back(arrow::MakeArray(std::move(data)));
  }
  return out;
}

}  // namespace skade::read

namespace skade::read {

int32_t TopLevelId(const spec::Schema& schema, int32_t id) {
  for (int32_t parent = schema.FindParentId(id); parent != -1; parent = schema.FindParentId(id)) {
    id = parent;
  }
  return id;
}

Result<std::shared_ptr<arrow::Array>> FieldColumn(
    const spec::Schema& schema, int32_t id,
    const std::map<int32_t, std::shared_ptr<arrow::Array>>& top_level) {
  std::vector<int32_t> path;  // from `id` up to its top-level ancestor
  for (int32_t at = id; at != -1; at = schema.FindParentId(at)) path.push_back(at);
  auto top = top_level.find(path.back());
  if (top == top_level.end()) return InvalidArgument("Column #", id, " was not read");
  std::shared_ptr<arrow::Array> array = top->second;
  const spec::NestedField* parent = schema.FindFieldById(path.back());
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (parent->type->id() != spec::TypeId::kStruct) {
      return InvalidArgument("Column #", id, " is inside a list or map");
    }
    const auto& fields = parent->type->fields();
    size_t index = 0;
    while (index < fields.size() && fields[index].id != path[i]) ++index;
    if (index == fields.size()) return InvalidArgument("Column #", id, " is not in its struct");
    SKADE_ASSIGN_OR_RAISE_ARROW(
        array,
        static_cast<const arrow::StructArray&>(*array).GetFlattenedField(static_cast<int>(index)));
    parent = &fields[index];
  }
  return array;
}

}  // namespace skade::read
