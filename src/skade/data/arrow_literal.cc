#include "skade/data/arrow_literal.h"

#include <arrow/array.h>

#include "skade/data/arrow_values_internal.h"
#include "skade/data/decimal_internal.h"

namespace skade::data {

using spec::Literal;
using spec::TypeId;

Result<Literal> LiteralFromArrow(const arrow::Array& array, int64_t index,
                                 const spec::TypePtr& type) {
  if (index < 0 || index >= array.length()) {
    return InvalidArgument("Row ", index, " is out of range for an array of ", array.length());
  }
  if (array.IsNull(index)) return Literal::Null(type);
  const arrow::Array& storage = StorageOf(array);
  const arrow::ArrayData& data = *storage.data();
  arrow::Type::type id = storage.type_id();
  switch (type->id()) {
    case TypeId::kBoolean:
      if (id != arrow::Type::BOOL) break;
      return Literal(type, static_cast<const arrow::BooleanArray&>(storage).Value(index));
    case TypeId::kInt:
    case TypeId::kDate:
      if (id != arrow::Type::INT32 && id != arrow::Type::DATE32) break;
      return Literal(type, data.GetValues<int32_t>(1)[index]);
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (id != arrow::Type::INT64 && id != arrow::Type::TIME64 && id != arrow::Type::TIMESTAMP) {
        break;
      }
      return Literal(type, data.GetValues<int64_t>(1)[index]);
    case TypeId::kFloat:
      if (id != arrow::Type::FLOAT) break;
      return Literal(type, data.GetValues<float>(1)[index]);
    case TypeId::kDouble:
      if (id != arrow::Type::DOUBLE) break;
      return Literal(type, data.GetValues<double>(1)[index]);
    case TypeId::kDecimal:
      if (id != arrow::Type::DECIMAL128) break;
      return Literal(type,
                     MinimalBigEndian(FromArrowDecimal128(
                         static_cast<const arrow::Decimal128Array&>(storage).GetValue(index))));
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      BinaryValues values(storage);
      if (!values.valid()) break;
      return Literal(type, std::string(values[index]));
    }
    default:
      break;
  }
  return InvalidArgument("Cannot read an Iceberg ", type->ToString(), " value from Arrow type ",
                         array.type()->ToString());
}

}  // namespace skade::data
