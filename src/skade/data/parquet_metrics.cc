#include "skade/data/parquet_metrics.h"

#include <absl/container/flat_hash_set.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>
#include <parquet/statistics.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/decimal_internal.h"
#include "skade/spec/truncation.h"

namespace skade::data {

namespace {

using spec::TypeId;

template <typename T>
T ReadLittleEndian(std::string_view bytes) {
  T value{};
  std::memcpy(&value, bytes.data(), std::min(sizeof(T), bytes.size()));
  return value;
}

template <typename T>
std::string LittleEndianBytes(T value) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

// Orders two bounds of `type` by value.
int CompareBounds(const spec::Type& type, const std::string& a, const std::string& b) {
  auto three_way = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (type.id()) {
    case TypeId::kBoolean:
      return three_way(a[0] != 0, b[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      return three_way(ReadLittleEndian<int32_t>(a), ReadLittleEndian<int32_t>(b));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return three_way(ReadLittleEndian<int64_t>(a), ReadLittleEndian<int64_t>(b));
    case TypeId::kFloat:
      return three_way(ReadLittleEndian<float>(a), ReadLittleEndian<float>(b));
    case TypeId::kDouble:
      return three_way(ReadLittleEndian<double>(a), ReadLittleEndian<double>(b));
    case TypeId::kDecimal:
      return three_way(FromBigEndian(a), FromBigEndian(b));
    default:
      // Strings (UTF-8 order is code point order), binary, fixed and uuid
      // compare as unsigned bytes, which std::string::compare does.
      return a.compare(b) < 0 ? -1 : (a.compare(b) > 0 ? 1 : 0);
  }
}

struct ColumnMetrics {
  const spec::NestedField* field = nullptr;
  MetricsMode mode;
  bool repeated = false;
  int64_t size = 0;
  int64_t values = 0;
  int64_t nulls = 0;
  bool counts_known = true;
  bool bounds_known = true;
  std::optional<std::string> lower;
  std::optional<std::string> upper;
};

// Ids of fields inside a list or map, where Iceberg keeps no metrics.
void CollectRepeated(const spec::NestedField& field, bool in_repeated,
                     absl::flat_hash_set<int32_t>* out) {
  if (in_repeated) out->insert(field.id);
  bool children_repeated =
      in_repeated || field.type->id() == TypeId::kList || field.type->id() == TypeId::kMap;
  for (const auto& child : field.type->fields()) CollectRepeated(child, children_repeated, out);
}

void AddChunk(const parquet::ColumnChunkMetaData& chunk, ColumnMetrics* column) {
  column->size += chunk.total_compressed_size();
  if (column->mode.kind == MetricsMode::Kind::kNone || column->repeated) return;
  std::shared_ptr<parquet::Statistics> stats = chunk.is_stats_set() ? chunk.statistics() : nullptr;
  if (stats == nullptr || !stats->HasNullCount()) {
    column->counts_known = false;
    return;
  }
  column->values += chunk.num_values();
  column->nulls += stats->null_count();
  bool wants_bounds = column->mode.kind == MetricsMode::Kind::kTruncate ||
                      column->mode.kind == MetricsMode::Kind::kFull;
  if (!wants_bounds || !column->bounds_known) return;
  if (!stats->HasMinMax()) {
    // Values without a min/max cannot be bounded.
    if (chunk.num_values() > stats->null_count()) column->bounds_known = false;
    return;
  }
  const spec::Type& type = *column->field->type;
  auto lower = IcebergBoundFromParquet(type, *stats->descr(), stats->EncodeMin());
  auto upper = IcebergBoundFromParquet(type, *stats->descr(), stats->EncodeMax());
  if (!lower || !upper) {
    column->bounds_known = false;
    return;
  }
  if (!column->lower || CompareBounds(type, *lower, *column->lower) < 0) column->lower = lower;
  if (!column->upper || CompareBounds(type, *upper, *column->upper) > 0) column->upper = upper;
}

void EmitBounds(const ColumnMetrics& column, spec::DataFile* file) {
  if (!column.bounds_known || !column.lower || !column.upper) return;
  int32_t id = column.field->id;
  TypeId type = column.field->type->id();
  if (column.mode.kind == MetricsMode::Kind::kTruncate &&
      (type == TypeId::kString || type == TypeId::kBinary)) {
    int32_t length = column.mode.length;
    bool is_string = type == TypeId::kString;
    file->lower_bounds[id] = std::string(is_string ? spec::TruncateUtf8(*column.lower, length)
                                                   : spec::TruncateBinary(*column.lower, length));
    auto upper = is_string ? spec::TruncateUtf8UpperBound(*column.upper, length)
                           : spec::TruncateBinaryUpperBound(*column.upper, length);
    if (upper) file->upper_bounds[id] = std::move(*upper);
    return;
  }
  file->lower_bounds[id] = *column.lower;
  file->upper_bounds[id] = *column.upper;
}

Result<spec::DataFile> Compute(const parquet::FileMetaData& footer, const spec::Schema& schema,
                               const MetricsConfig& config,
                               const std::map<int32_t, int64_t>* nan_value_counts) {
  absl::flat_hash_set<int32_t> repeated;
  for (const auto& field : schema.fields()) CollectRepeated(field, false, &repeated);

  // One entry per footer column that maps to a primitive schema field.
  const parquet::SchemaDescriptor& parquet_schema = *footer.schema();
  std::vector<std::optional<ColumnMetrics>> columns(parquet_schema.num_columns());
  for (int c = 0; c < parquet_schema.num_columns(); ++c) {
    int32_t id = parquet_schema.Column(c)->schema_node()->field_id();
    const spec::NestedField* field = id >= 0 ? schema.FindFieldById(id) : nullptr;
    if (field == nullptr || !field->type->is_primitive()) continue;
    ColumnMetrics column;
    column.field = field;
    column.mode = config.ColumnMode(schema.FindColumnName(id));
    column.repeated = repeated.contains(id);
    columns[c] = std::move(column);
  }

  spec::DataFile file;
  file.file_format = spec::FileFormat::kParquet;
  file.record_count = footer.num_rows();
  for (int r = 0; r < footer.num_row_groups(); ++r) {
    auto row_group = footer.RowGroup(r);
    if (row_group->num_columns() != parquet_schema.num_columns()) {
      return Corruption("Parquet row group ", r, " has ", row_group->num_columns(),
                        " columns, the schema ", parquet_schema.num_columns());
    }
    if (row_group->num_columns() > 0) {
      auto first = row_group->ColumnChunk(0);
      bool dictionary_first = first->has_dictionary_page() && first->dictionary_page_offset() > 0 &&
                              first->dictionary_page_offset() < first->data_page_offset();
      file.split_offsets.push_back(dictionary_first ? first->dictionary_page_offset()
                                                    : first->data_page_offset());
    }
    for (int c = 0; c < row_group->num_columns(); ++c) {
      if (columns[c]) AddChunk(*row_group->ColumnChunk(c), &*columns[c]);
    }
  }
  std::sort(file.split_offsets.begin(), file.split_offsets.end());

  for (const auto& column : columns) {
    if (!column || column->mode.kind == MetricsMode::Kind::kNone) continue;
    int32_t id = column->field->id;
    file.column_sizes[id] += column->size;
    if (column->repeated) continue;
    TypeId type = column->field->type->id();
    if (nan_value_counts != nullptr && (type == TypeId::kFloat || type == TypeId::kDouble)) {
      auto it = nan_value_counts->find(id);
      file.nan_value_counts[id] = it == nan_value_counts->end() ? 0 : it->second;
    }
    if (!column->counts_known) continue;
    file.value_counts[id] = column->values;
    file.null_value_counts[id] = column->nulls;
    EmitBounds(*column, &file);
  }
  return file;
}

// Units per second of a time or timestamp column as its logical type says;
// 0 when it does not say (a plain integer: taken to be in the type's unit).
int64_t UnitsPerSecond(const parquet::ColumnDescriptor& column) {
  const auto& logical = column.logical_type();
  if (logical == nullptr) return 0;
  std::optional<parquet::LogicalType::TimeUnit::unit> unit;
  if (logical->is_timestamp()) {
    unit = static_cast<const parquet::TimestampLogicalType&>(*logical).time_unit();
  } else if (logical->is_time()) {
    unit = static_cast<const parquet::TimeLogicalType&>(*logical).time_unit();
  }
  if (!unit) return 0;
  switch (*unit) {
    case parquet::LogicalType::TimeUnit::MILLIS:
      return 1'000;
    case parquet::LogicalType::TimeUnit::MICROS:
      return 1'000'000;
    case parquet::LogicalType::TimeUnit::NANOS:
      return 1'000'000'000;
    default:
      return 0;
  }
}

// A time or timestamp bound in the type's unit (`per_second`), from the
// column's: exact or none.
std::optional<std::string> TimeBound(const parquet::ColumnDescriptor& column, int64_t per_second,
                                     const std::string& encoded) {
  int64_t value = 0;
  if (column.physical_type() == parquet::Type::INT64 && encoded.size() == 8) {
    value = ReadLittleEndian<int64_t>(encoded);
  } else if (column.physical_type() == parquet::Type::INT32 && encoded.size() == 4) {
    value = ReadLittleEndian<int32_t>(encoded);
  } else {
    return std::nullopt;
  }
  const int64_t stored = UnitsPerSecond(column);
  if (stored != 0 && stored < per_second) {
    if (__builtin_mul_overflow(value, per_second / stored, &value)) return std::nullopt;
  } else if (stored > per_second) {
    const int64_t factor = stored / per_second;
    if (value % factor != 0) return std::nullopt;
    value /= factor;
  }
  return LittleEndianBytes(value);
}

}  // namespace

std::optional<std::string> IcebergBoundFromParquet(const spec::Type& type,
                                                   const parquet::ColumnDescriptor& column,
                                                   const std::string& encoded) {
  const parquet::Type::type physical = column.physical_type();
  switch (type.id()) {
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return TimeBound(column, 1'000'000, encoded);
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return TimeBound(column, 1'000'000'000, encoded);
    case TypeId::kDecimal:
      switch (physical) {
        case parquet::Type::INT32:
          return MinimalBigEndian(ReadLittleEndian<int32_t>(encoded));
        case parquet::Type::INT64:
          return MinimalBigEndian(ReadLittleEndian<int64_t>(encoded));
        case parquet::Type::FIXED_LEN_BYTE_ARRAY:
        case parquet::Type::BYTE_ARRAY:
          if (encoded.empty() || encoded.size() > 16) return std::nullopt;
          return MinimalBigEndian(FromBigEndian(encoded));
        default:
          return std::nullopt;
      }
    case TypeId::kFloat:
      if (physical != parquet::Type::FLOAT || std::isnan(ReadLittleEndian<float>(encoded))) {
        return std::nullopt;
      }
      return encoded;
    case TypeId::kDouble:
      if (physical == parquet::Type::FLOAT) {
        auto value = static_cast<double>(ReadLittleEndian<float>(encoded));
        if (std::isnan(value)) return std::nullopt;
        return LittleEndianBytes(value);
      }
      if (physical != parquet::Type::DOUBLE || std::isnan(ReadLittleEndian<double>(encoded))) {
        return std::nullopt;
      }
      return encoded;
    case TypeId::kLong:
      // A long column may have been an int when an older file was written.
      if (physical == parquet::Type::INT32) {
        return LittleEndianBytes(static_cast<int64_t>(ReadLittleEndian<int32_t>(encoded)));
      }
      break;
    default:
      break;
  }
  if (physical == parquet::Type::INT96) return std::nullopt;
  size_t expected = 0;
  switch (physical) {
    case parquet::Type::BOOLEAN:
      expected = 1;
      break;
    case parquet::Type::INT32:
    case parquet::Type::FLOAT:
      expected = 4;
      break;
    case parquet::Type::INT64:
    case parquet::Type::DOUBLE:
      expected = 8;
      break;
    default:
      break;
  }
  if (expected != 0 && encoded.size() != expected) return std::nullopt;
  return encoded;
}

Result<spec::DataFile> DataFileFromParquetFooter(
    const parquet::FileMetaData& footer, const spec::Schema& schema, const MetricsConfig& config,
    const std::map<int32_t, int64_t>* nan_value_counts) {
  auto result = CatchArrowExceptions("Cannot read Parquet footer", [&] {
    return Compute(footer, schema, config, nan_value_counts);
  });
  if (!result && result.error().kind == ErrorKind::kIo) {
    return Corruption(result.error().message);
  }
  return result;
}

}  // namespace skade::data
