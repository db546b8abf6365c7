#include "skade/data/conform_batch.h"

#include <arrow/api.h>
#include <arrow/compute/cast.h>
#include <arrow/util/utf8.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::data {

namespace {

using arrow::ArrayData;
using spec::NestedField;
using spec::TypeId;

struct ConformedColumn {
  std::shared_ptr<ArrayData> data;
  std::shared_ptr<arrow::Field> field;
};

std::string ChildPath(std::string_view parent, std::string_view name) {
  return parent.empty() ? std::string(name) : StrCat(parent, ".", name);
}

tl::unexpected<Error> Mismatch(const std::string& path, const arrow::DataType& type,
                               const spec::Type& target) {
  return InvalidArgument("Column '", path, "': cannot write Arrow type ", type.ToString(),
                         " as Iceberg type ", target.ToString());
}

std::shared_ptr<ArrayData> Retag(const std::shared_ptr<ArrayData>& data,
                                 std::shared_ptr<arrow::DataType> type) {
  auto out = data->Copy();
  out->type = std::move(type);
  return out;
}

Result<std::shared_ptr<ArrayData>> CastTo(const std::shared_ptr<ArrayData>& data,
                                          const std::shared_ptr<arrow::DataType>& type,
                                          const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(arrow::Datum cast,
                        FromArrowResult(arrow::compute::Cast(arrow::Datum(data), type),
                                        StrCat("Column '", path, "'")));
  return cast.array();
}

// An array of `builder`'s type from `data` (read as an `InArray`): nulls stay
// null, every other value is `convert(in, i)` (the value, or the error that
// refuses the column).
template <typename InArray, typename Builder, typename Convert>
Result<std::shared_ptr<ArrayData>> MapValues(const std::shared_ptr<ArrayData>& data,
                                             Builder builder, const std::string& path,
                                             Convert convert) {
  const InArray in(data);
  const std::string what = StrCat("Column '", path, "'");
  SKADE_RETURN_NOT_OK(FromArrowStatus(builder.Reserve(in.length()), what));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    SKADE_ASSIGN_OR_RAISE(auto value, convert(in, i, what));
    builder.UnsafeAppend(value);
  }
  std::shared_ptr<arrow::Array> out;
  SKADE_RETURN_NOT_OK(FromArrowStatus(builder.Finish(&out), what));
  return out->data();
}

// Nanosecond timestamps as `micros` (a microsecond timestamp type), each
// floored: before 1970 too, as Iceberg Java's DateTimeUtil.nanosToMicros.
Result<std::shared_ptr<ArrayData>> FloorNanosToMicros(
    const std::shared_ptr<ArrayData>& data, const std::shared_ptr<arrow::DataType>& micros,
    const std::string& path) {
  return MapValues<arrow::TimestampArray>(
      data, arrow::TimestampBuilder(micros, arrow::default_memory_pool()), path,
      [](const arrow::TimestampArray& nanos, int64_t i, const std::string&) -> Result<int64_t> {
        const int64_t value = nanos.Value(i);
        return value / 1000 - (value % 1000 < 0 ? 1 : 0);
      });
}

// `data` (decimal128 of the target's scale) if every value has at most the
// target's digits: Arrow's CSV and JSON readers rescale text to the column's
// type without checking (123456789.5 became 123456789.50 in a
// decimal(10, 2)), and no reader could read such a value back.
Result<std::shared_ptr<ArrayData>> CheckDecimalDigits(const std::shared_ptr<ArrayData>& data,
                                                      const spec::Type& target,
                                                      const std::string& path) {
  const arrow::Decimal128Array values(data);
  const int32_t precision = target.decimal_precision();
  for (int64_t i = 0; i < values.length(); ++i) {
    if (values.IsNull(i)) continue;
    const arrow::Decimal128 value(values.GetValue(i));
    if (!value.FitsInPrecision(precision)) {
      return InvalidArgument("Column '", path, "': ", values.FormatValue(i), " does not fit ",
                             target.ToString(), " (more than ", precision, " digits)");
    }
  }
  return data;
}

// "HH:MM[:SS[.fraction]]" text (JSON has no times) as `micros` (time64 in
// microseconds); a finer fraction is floored, as nanoseconds are elsewhere.
Result<std::shared_ptr<ArrayData>> TimeFromText(const std::shared_ptr<ArrayData>& data,
                                                const std::shared_ptr<arrow::DataType>& micros,
                                                const std::string& path) {
  return MapValues<arrow::StringArray>(
      data, arrow::Time64Builder(micros, arrow::default_memory_pool()), path,
      [](const arrow::StringArray& text, int64_t i, const std::string& what) -> Result<int64_t> {
        const std::optional<int64_t> nanos = ParseIsoTimeOfDay(text.GetView(i));
        if (!nanos) {
          return InvalidArgument(what, ": '", text.GetView(i),
                                 "' is not a time of day (HH:MM[:SS[.fraction]])");
        }
        return *nanos / 1000;
      });
}

// Timestamps in seconds that are midnights (ISO dates as Arrow's JSON
// reader infers them) as `dates` (date32); anything else is no date.
Result<std::shared_ptr<ArrayData>> DateFromMidnights(const std::shared_ptr<ArrayData>& data,
                                                     const std::shared_ptr<arrow::DataType>& dates,
                                                     const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(
      auto days, MapValues<arrow::TimestampArray>(
                     data, arrow::Date32Builder(arrow::default_memory_pool()), path,
                     [](const arrow::TimestampArray& seconds, int64_t i,
                        const std::string& what) -> Result<int32_t> {
                       constexpr int64_t kSecondsPerDay = 86400;
                       const int64_t value = seconds.Value(i);
                       const int64_t day = value / kSecondsPerDay;
                       if (value % kSecondsPerDay != 0 || day < INT32_MIN || day > INT32_MAX) {
                         return InvalidArgument(what, ": ", value,
                                                " s since 1970 is not a date (a midnight)");
                       }
                       return static_cast<int32_t>(day);
                     }));
  return Retag(days, dates);
}

// Microseconds of the day (JSON numbers) as `micros` (time64): each must be
// within the day.
Result<std::shared_ptr<ArrayData>> TimeFromMicros(const std::shared_ptr<ArrayData>& data,
                                                  const std::shared_ptr<arrow::DataType>& micros,
                                                  const std::string& path) {
  constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;
  const arrow::Int64Array values(data);
  for (int64_t i = 0; i < values.length(); ++i) {
    if (!values.IsNull(i) && (values.Value(i) < 0 || values.Value(i) >= kMicrosPerDay)) {
      return InvalidArgument("Column '", path, "': ", values.Value(i),
                             " is not a time of day in microseconds");
    }
  }
  return Retag(data, micros);
}

bool IsOneOf(arrow::Type::type id, std::initializer_list<arrow::Type::type> ids) {
  for (auto candidate : ids) {
    if (id == candidate) return true;
  }
  return false;
}

// `data` (an Arrow utf8 array) if each value is UTF-8, as an Iceberg string
// must be: readers refuse a file holding another (DuckDB's "not valid UTF8"),
// and the JSON and Parquet readers pass bytes on unchecked.
Result<std::shared_ptr<ArrayData>> CheckUtf8(const std::shared_ptr<ArrayData>& data,
                                             const std::string& path) {
  arrow::util::InitializeUTF8();
  const arrow::StringArray text(data);
  for (int64_t i = 0; i < text.length(); ++i) {
    if (!text.IsNull(i) && !arrow::util::ValidateUTF8(text.GetView(i))) {
      return InvalidArgument("Column '", path, "' holds a value that is not valid UTF-8");
    }
  }
  return data;
}

Result<std::shared_ptr<ArrayData>> ConformPrimitive(const std::shared_ptr<ArrayData>& data,
                                                    const spec::Type& target,
                                                    const std::string& path) {
  const arrow::DataType& in = *data->type;
  SKADE_ASSIGN_OR_RAISE(auto canonical, ToArrowType(target));
  if (in.id() == arrow::Type::NA) {
    // A column a reader inferred from nulls alone (JSON's dates and times).
    SKADE_ASSIGN_OR_RAISE(auto nulls,
                          FromArrowResult(arrow::MakeArrayOfNull(canonical, data->length),
                                          StrCat("Column '", path, "'")));
    return nulls->data();
  }
  if (in.Equals(*canonical)) {
    if (target.id() == TypeId::kDecimal) return CheckDecimalDigits(data, target, path);
    if (target.id() == TypeId::kString) return CheckUtf8(data, path);
    return data;
  }
  switch (target.id()) {
    case TypeId::kString:
      if (in.id() == arrow::Type::LARGE_STRING) {
        SKADE_ASSIGN_OR_RAISE(auto text, CastTo(data, canonical, path));
        return CheckUtf8(text, path);
      }
      break;
    case TypeId::kBinary:
      if (in.id() == arrow::Type::LARGE_BINARY) return CastTo(data, canonical, path);
      break;
    case TypeId::kUuid:
      if (in.id() == arrow::Type::FIXED_SIZE_BINARY &&
          static_cast<const arrow::FixedSizeBinaryType&>(in).byte_width() == 16) {
        return Retag(data, canonical);
      }
      break;
    case TypeId::kDecimal:
      if (in.id() == arrow::Type::DECIMAL128) {
        const auto& decimal = static_cast<const arrow::Decimal128Type&>(in);
        if (decimal.scale() == target.decimal_scale() &&
            decimal.precision() <= target.decimal_precision()) {
          SKADE_ASSIGN_OR_RAISE(auto checked, CheckDecimalDigits(data, target, path));
          return Retag(checked, canonical);
        }
      }
      break;
    case TypeId::kInt:
      if (IsOneOf(in.id(), {arrow::Type::INT8, arrow::Type::INT16, arrow::Type::UINT8,
                            arrow::Type::UINT16})) {
        return CastTo(data, canonical, path);
      }
      break;
    case TypeId::kLong:
      if (IsOneOf(in.id(), {arrow::Type::INT8, arrow::Type::INT16, arrow::Type::INT32,
                            arrow::Type::UINT8, arrow::Type::UINT16, arrow::Type::UINT32})) {
        return CastTo(data, canonical, path);
      }
      break;
    case TypeId::kDouble:
      if (in.id() == arrow::Type::FLOAT) return CastTo(data, canonical, path);
      break;
    case TypeId::kDate:
      // JSON has no dates: ISO-8601 text, strictly "YYYY-MM-DD" (which
      // Arrow's JSON reader infers as timestamps in seconds), or days.
      if (in.id() == arrow::Type::STRING || in.id() == arrow::Type::LARGE_STRING) {
        return CastTo(data, canonical, path);
      }
      if (in.id() == arrow::Type::TIMESTAMP &&
          static_cast<const arrow::TimestampType&>(in).unit() == arrow::TimeUnit::SECOND &&
          static_cast<const arrow::TimestampType&>(in).timezone().empty()) {
        return DateFromMidnights(data, canonical, path);
      }
      if (in.id() == arrow::Type::INT64) {
        SKADE_ASSIGN_OR_RAISE(auto days, CastTo(data, arrow::int32(), path));
        return Retag(days, canonical);
      }
      break;
    case TypeId::kTime:
      // JSON has no times: ISO-8601 text, or microseconds of the day.
      if (in.id() == arrow::Type::STRING) return TimeFromText(data, canonical, path);
      if (in.id() == arrow::Type::INT64) return TimeFromMicros(data, canonical, path);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      // ISO-8601 text (JSON has no timestamps), strictly: an offset only in a
      // zoned column, and there always.
      if (in.id() == arrow::Type::STRING || in.id() == arrow::Type::LARGE_STRING) {
        return CastTo(data, canonical, path);
      }
      if (in.id() != arrow::Type::TIMESTAMP) break;
      const auto& timestamp = static_cast<const arrow::TimestampType&>(in);
      const auto& wanted = static_cast<const arrow::TimestampType&>(*canonical);
      bool zoned = !timestamp.timezone().empty();
      if (zoned != !wanted.timezone().empty() || (zoned && !IsUtcTimeZone(timestamp.timezone()))) {
        break;
      }
      // Nanoseconds stay nanoseconds in the v3 types; into a microsecond
      // column (v1 and v2 have no other) they are floored to microseconds, as
      // Iceberg Java does (DateTimeUtil.nanosToMicros; pandas and Spark's INT96
      // give nanoseconds). Seconds and milliseconds widen to microseconds.
      const bool from_nanos = timestamp.unit() == arrow::TimeUnit::NANO;
      if (!from_nanos && wanted.unit() == arrow::TimeUnit::NANO) break;
      if (timestamp.unit() == wanted.unit()) return Retag(data, canonical);
      if (!from_nanos) return CastTo(data, canonical, path);
      return FloorNanosToMicros(data, canonical, path);
    }
    default:
      break;
  }
  return Mismatch(path, in, target);
}

// True if `child` is null at a position where its parent has a value: a
// struct's child at the parent's valid slots, a list's or map's elements
// within its valid slots, or anywhere for a top-level column (no parent).
bool HasNullUnderValidParent(const ArrayData& child, const ArrayData* parent) {
  if (child.GetNullCount() == 0) return false;
  if (parent == nullptr) return true;
  switch (parent->type->id()) {
    case arrow::Type::STRUCT:
      for (int64_t i = 0; i < parent->length; ++i) {
        if (parent->IsValid(i) && child.IsNull(parent->offset + i)) return true;
      }
      return false;
    case arrow::Type::LIST:
    case arrow::Type::MAP: {
      const int32_t* offsets = parent->GetValues<int32_t>(1);
      for (int64_t i = 0; i < parent->length; ++i) {
        if (!parent->IsValid(i)) continue;
        for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
          if (child.IsNull(j)) return true;
        }
      }
      return false;
    }
    case arrow::Type::LARGE_LIST: {
      const int64_t* offsets = parent->GetValues<int64_t>(1);
      for (int64_t i = 0; i < parent->length; ++i) {
        if (!parent->IsValid(i)) continue;
        for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
          if (child.IsNull(j)) return true;
        }
      }
      return false;
    }
    default:
      return true;
  }
}

Result<ConformedColumn> Conform(const std::shared_ptr<ArrayData>& data, const NestedField& target,
                                const ArrayData* parent, const std::string& path);

// `data` with another type and children; `data` itself when neither changed,
// so conforming an already conformed batch allocates nothing.
std::shared_ptr<ArrayData> Rebuild(const std::shared_ptr<ArrayData>& data,
                                   std::shared_ptr<arrow::DataType> type,
                                   std::vector<std::shared_ptr<ArrayData>> children) {
  if (children == data->child_data && type->Equals(*data->type, /*check_metadata=*/true)) {
    return data;
  }
  auto out = data->Copy();
  out->type = std::move(type);
  out->child_data = std::move(children);
  return out;
}

Result<std::shared_ptr<ArrayData>> NullColumn(const NestedField& target, int64_t length,
                                              const std::string& path) {
  if (target.required) {
    return InvalidArgument("Column '", path, "' is required but missing from the batch");
  }
  SKADE_ASSIGN_OR_RAISE(auto type, ToArrowType(*target.type));
  SKADE_ASSIGN_OR_RAISE_ARROW(auto nulls, arrow::MakeArrayOfNull(type, length));
  return nulls->data();
}

// Conforms the fields of `in_type` (a struct type, or the batch schema)
// whose data is `children` to the Iceberg `targets`, by name.
Status ConformFields(const arrow::FieldVector& in_fields,
                     const std::vector<std::shared_ptr<ArrayData>>& children,
                     const std::vector<NestedField>& targets, int64_t length,
                     const ArrayData* parent, const std::string& path,
                     std::vector<std::shared_ptr<ArrayData>>* out_children,
                     arrow::FieldVector* out_fields) {
  // By hash, not by scanning: a CSV may have 100,000 columns.
  std::unordered_set<std::string_view> target_names;
  for (const auto& target : targets) target_names.insert(target.name);
  constexpr int kRepeated = -2;  // the name of more than one input field
  std::unordered_map<std::string_view, int> index_of;
  for (size_t i = 0; i < in_fields.size(); ++i) {
    const std::string& name = in_fields[i]->name();
    if (!target_names.contains(name)) {
      return InvalidArgument("Column '", ChildPath(path, name), "' is not in the Iceberg schema");
    }
    auto [it, inserted] = index_of.emplace(name, static_cast<int>(i));
    if (!inserted) it->second = kRepeated;
  }
  for (const auto& target : targets) {
    auto found = index_of.find(target.name);
    const int index = found == index_of.end() ? -1 : found->second;
    if (index == kRepeated) {
      return InvalidArgument("Column '", ChildPath(path, target.name),
                             "' appears more than once in the batch");
    }
    std::string child_path = ChildPath(path, target.name);
    if (index < 0) {
      SKADE_ASSIGN_OR_RAISE(auto nulls, NullColumn(target, length, child_path));
      SKADE_ASSIGN_OR_RAISE(auto field, ToArrowField(target));
      out_children->push_back(std::move(nulls));
      out_fields->push_back(std::move(field));
      continue;
    }
    SKADE_ASSIGN_OR_RAISE(auto conformed, Conform(children[index], target, parent, child_path));
    out_children->push_back(std::move(conformed.data));
    out_fields->push_back(std::move(conformed.field));
  }
  return OkStatus();
}

Result<std::shared_ptr<ArrayData>> ConformNested(const std::shared_ptr<ArrayData>& data,
                                                 const spec::Type& target,
                                                 const std::string& path) {
  const arrow::DataType& in = *data->type;
  switch (target.id()) {
    case TypeId::kStruct: {
      if (in.id() != arrow::Type::STRUCT) return Mismatch(path, in, target);
      std::vector<std::shared_ptr<ArrayData>> children;
      arrow::FieldVector fields;
      SKADE_RETURN_NOT_OK(ConformFields(in.fields(), data->child_data, target.fields(),
                                        data->offset + data->length, data.get(), path, &children,
                                        &fields));
      return Rebuild(data, arrow::struct_(std::move(fields)), std::move(children));
    }
    case TypeId::kList: {
      if (in.id() != arrow::Type::LIST && in.id() != arrow::Type::LARGE_LIST) {
        return Mismatch(path, in, target);
      }
      SKADE_ASSIGN_OR_RAISE(auto element, Conform(data->child_data[0], target.list_element(),
                                                  data.get(), ChildPath(path, "element")));
      if (in.id() == arrow::Type::LIST) {
        return Rebuild(data, arrow::list(element.field), {std::move(element.data)});
      }
      auto large = Rebuild(data, arrow::large_list(element.field), {std::move(element.data)});
      return CastTo(large, arrow::list(element.field), path);
    }
    case TypeId::kMap: {
      if (in.id() != arrow::Type::MAP) return Mismatch(path, in, target);
      const auto& entries = data->child_data[0];
      SKADE_ASSIGN_OR_RAISE(auto key, Conform(entries->child_data[0], target.map_key(),
                                              entries.get(), ChildPath(path, "key")));
      SKADE_ASSIGN_OR_RAISE(auto value, Conform(entries->child_data[1], target.map_value(),
                                                entries.get(), ChildPath(path, "value")));
      auto type = std::make_shared<arrow::MapType>(
          key.field, value.field, static_cast<const arrow::MapType&>(in).keys_sorted());
      auto out_entries =
          Rebuild(entries, type->value_type(), {std::move(key.data), std::move(value.data)});
      return Rebuild(data, std::move(type), {std::move(out_entries)});
    }
    default:
      return Mismatch(path, in, target);
  }
}

Result<ConformedColumn> Conform(const std::shared_ptr<ArrayData>& data, const NestedField& target,
                                const ArrayData* parent, const std::string& path) {
  ConformedColumn out;
  if (target.type->is_primitive()) {
    SKADE_ASSIGN_OR_RAISE(out.data, ConformPrimitive(data, *target.type, path));
  } else {
    SKADE_ASSIGN_OR_RAISE(out.data, ConformNested(data, *target.type, path));
  }
  if (target.required && HasNullUnderValidParent(*out.data, parent)) {
    return InvalidArgument("Column '", path, "' is required but has null values");
  }
  out.field =
      arrow::field(target.name, out.data->type, !target.required,
                   arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(target.id)}));
  return out;
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(
    const std::shared_ptr<arrow::RecordBatch>& batch, const spec::Schema& schema) {
  std::vector<std::shared_ptr<ArrayData>> columns;
  arrow::FieldVector fields;
  SKADE_RETURN_NOT_OK(ConformFields(batch->schema()->fields(), batch->column_data(),
                                    schema.fields(), batch->num_rows(), nullptr, "", &columns,
                                    &fields));
  // Field by field: Schema::Equals fingerprints the new schema, which costs
  // more than conforming a batch of a few rows.
  const arrow::Schema& in = *batch->schema();
  bool unchanged = !in.HasMetadata() && fields.size() == static_cast<size_t>(in.num_fields()) &&
                   columns.size() == fields.size();
  for (size_t i = 0; unchanged && i < columns.size(); ++i) {
    const int index = static_cast<int>(i);
    unchanged = columns[i] == batch->column_data(index) &&
                fields[i]->Equals(*in.field(index), /*check_metadata=*/true);
  }
  if (unchanged) return batch;
  return arrow::RecordBatch::Make(arrow::schema(std::move(fields)), batch->num_rows(),
                                  std::move(columns));
}

}  // namespace skade::data
