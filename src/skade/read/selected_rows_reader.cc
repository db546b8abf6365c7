#include <arrow/array.h>
#include <arrow/array/builder_binary.h>
#include <arrow/buffer.h>
#include <arrow/type_traits.h>
#include <arrow/util/bit_util.h>
#include <parquet/arrow/schema.h>
#include <parquet/metadata.h>
#include <parquet/page_index.h>
#include <parquet/schema.h>

#include <algorithm>

#include "skade/data/arrow_error_internal.h"
#include "skade/read/selected_rows_reader_internal.h"

namespace skade::read {

namespace {

using parquet::LogicalType;

bool IsSignedInt(const LogicalType& logical, int bits) {
  if (logical.is_none()) return true;
  if (!logical.is_int()) return false;
  const auto& type = static_cast<const parquet::IntLogicalType&>(logical);
  return type.is_signed() && type.bit_width() == bits;
}

LogicalType::TimeUnit::unit ParquetUnit(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::MILLI:
      return LogicalType::TimeUnit::MILLIS;
    case arrow::TimeUnit::MICRO:
      return LogicalType::TimeUnit::MICROS;
    case arrow::TimeUnit::NANO:
      return LogicalType::TimeUnit::NANOS;
    default:
      return LogicalType::TimeUnit::UNKNOWN;
  }
}

// Whether `column`, read by the FileReader as `type`, is a decimal stored as
// INT32 or INT64 (as skade's and Spark's writers store precision <= 18) that
// it widens to decimal128 of the same precision and scale.
bool IsIntegerDecimal(const parquet::ColumnDescriptor& column, const arrow::DataType& type) {
  const LogicalType& logical = *column.logical_type();
  if (type.id() != arrow::Type::DECIMAL128 || !logical.is_decimal()) return false;
  if (column.physical_type() != parquet::Type::INT32 &&
      column.physical_type() != parquet::Type::INT64) {
    return false;
  }
  const auto& stored = static_cast<const parquet::DecimalLogicalType&>(logical);
  const auto& read = static_cast<const arrow::Decimal128Type&>(type);
  return stored.precision() == read.precision() && stored.scale() == read.scale();
}

// Whether this reader makes of `column` exactly the array of `type` the
// FileReader would: the values as stored, unconverted, or an integer
// decimal widened (IsIntegerDecimal).
bool ReadsLikeFileReader(const parquet::ColumnDescriptor& column, const arrow::DataType& type) {
  if (IsIntegerDecimal(column, type)) return true;
  const LogicalType& logical = *column.logical_type();
  switch (column.physical_type()) {
    case parquet::Type::BOOLEAN:
      return type.id() == arrow::Type::BOOL;
    case parquet::Type::INT32:
      if (type.id() == arrow::Type::INT32) return IsSignedInt(logical, 32);
      return type.id() == arrow::Type::DATE32 && logical.is_date();
    case parquet::Type::INT64:
      if (type.id() == arrow::Type::INT64) return IsSignedInt(logical, 64);
      if (type.id() == arrow::Type::TIMESTAMP && logical.is_timestamp()) {
        const auto& timestamp = static_cast<const parquet::TimestampLogicalType&>(logical);
        return timestamp.time_unit() ==
               ParquetUnit(static_cast<const arrow::TimestampType&>(type).unit());
      }
      if (type.id() == arrow::Type::TIME64 && logical.is_time()) {
        const auto& time = static_cast<const parquet::TimeLogicalType&>(logical);
        return time.time_unit() == ParquetUnit(static_cast<const arrow::Time64Type&>(type).unit());
      }
      return false;
    case parquet::Type::FLOAT:
      return type.id() == arrow::Type::FLOAT && logical.is_none();
    case parquet::Type::DOUBLE:
      return type.id() == arrow::Type::DOUBLE && logical.is_none();
    case parquet::Type::BYTE_ARRAY:
      // Strings and binary are the bytes stored, whatever the label.
      switch (type.id()) {
        case arrow::Type::STRING:
        case arrow::Type::BINARY:
        case arrow::Type::LARGE_STRING:
        case arrow::Type::LARGE_BINARY:
          return logical.is_none() || logical.is_string();
        default:
          return false;
      }
    default:
      return false;
  }
}

}  // namespace

struct SelectedRowsReader::Column {
  const parquet::ColumnDescriptor* descriptor = nullptr;
  std::shared_ptr<arrow::DataType> type;
  std::shared_ptr<parquet::ColumnReader> reader;
  // The rows of the pages decoded: the data page filter drops the others,
  // so the column reader's values are these rows, in order.
  RowRanges decoded;
  int64_t pages_skipped = 0;
  int64_t position = 0;  // the row the column reader is at
  // Set by the data page filter when the pages disagree with the
  // OffsetIndex.
  bool mismatch = false;
  size_t next_page = 0;

  Status SkipTo(int64_t row);
  Result<std::shared_ptr<arrow::Array>> Read(int64_t rows);

 private:
  /// The next `rows` values as an array of `as` over the values stored.
  template <typename DType>
  Result<std::shared_ptr<arrow::Array>> ReadFixedWidth(int64_t rows,
                                                       std::shared_ptr<arrow::DataType> as);
  /// The next `rows` values of an integer decimal, widened to `type`.
  template <typename DType>
  Result<std::shared_ptr<arrow::Array>> ReadIntegerDecimals(int64_t rows);
  template <typename Builder>
  Result<std::shared_ptr<arrow::Array>> ReadByteArrays(int64_t rows);
};

namespace {

// Calls `fn` with a value of the parquet::DataType of `physical`, for the
// physical types this reader decodes; false for the others.
template <typename Fn>
bool VisitPhysicalType(parquet::Type::type physical, Fn&& fn) {
  switch (physical) {
    case parquet::Type::BOOLEAN:
      fn(parquet::BooleanType{});
      return true;
    case parquet::Type::INT32:
      fn(parquet::Int32Type{});
      return true;
    case parquet::Type::INT64:
      fn(parquet::Int64Type{});
      return true;
    case parquet::Type::FLOAT:
      fn(parquet::FloatType{});
      return true;
    case parquet::Type::DOUBLE:
      fn(parquet::DoubleType{});
      return true;
    case parquet::Type::BYTE_ARRAY:
      fn(parquet::ByteArrayType{});
      return true;
    default:
      return false;
  }
}

Result<std::shared_ptr<arrow::Buffer>> ValidityBitmap(const std::vector<int16_t>& levels,
                                                      int16_t max_level, int64_t rows) {
  SKADE_ASSIGN_OR_RAISE_ARROW(auto bitmap, arrow::AllocateBitmap(rows));
  uint8_t* bits = bitmap->mutable_data();
  for (int64_t i = 0; i < rows; ++i) arrow::bit_util::SetBitTo(bits, i, levels[i] == max_level);
  return std::shared_ptr<arrow::Buffer>(std::move(bitmap));
}

}  // namespace

Status SelectedRowsReader::Column::SkipTo(int64_t row) {
  int64_t values = decoded.CountIn(position, row);
  while (values > 0) {
    int64_t skipped = 0;
    bool known = VisitPhysicalType(descriptor->physical_type(), [&](auto type) {
      skipped = static_cast<parquet::TypedColumnReader<decltype(type)>&>(*reader).Skip(values);
    });
    if (!known) return InternalError("Unexpected Parquet type in a page-skipping read");
    if (skipped <= 0) {
      return Corruption("Parquet column ", descriptor->path()->ToDotString(),
                        " ends before its row count");
    }
    values -= skipped;
  }
  position = row;
  return OkStatus();
}

template <typename DType>
Result<std::shared_ptr<arrow::Array>> SelectedRowsReader::Column::ReadFixedWidth(
    int64_t rows, std::shared_ptr<arrow::DataType> as) {
  using T = typename DType::c_type;
  auto& typed = static_cast<parquet::TypedColumnReader<DType>&>(*reader);
  int16_t max_level = descriptor->max_definition_level();
  std::vector<int16_t> levels(max_level > 0 ? rows : 0);
  std::unique_ptr<T[]> dense(new T[rows]);
  int64_t read = 0;
  int64_t values = 0;
  while (read < rows) {
    int64_t values_read = 0;
    int64_t n = typed.ReadBatch(rows - read, max_level > 0 ? levels.data() + read : nullptr,
                                nullptr, dense.get() + values, &values_read);
    if (n <= 0) {
      return Corruption("Parquet column ", descriptor->path()->ToDotString(),
                        " ends before its row count");
    }
    read += n;
    values += values_read;
  }
  std::shared_ptr<arrow::Buffer> validity;
  if (values < rows) {
    SKADE_ASSIGN_OR_RAISE(validity, ValidityBitmap(levels, max_level, rows));
  }
  std::shared_ptr<arrow::Buffer> data;
  if constexpr (std::is_same_v<T, bool>) {
    SKADE_ASSIGN_OR_RAISE_ARROW(auto bits, arrow::AllocateEmptyBitmap(rows));
    for (int64_t i = 0, v = 0; i < rows; ++i) {
      if (validity == nullptr || levels[i] == max_level) {
        if (dense[v++]) arrow::bit_util::SetBit(bits->mutable_data(), i);
      }
    }
    data = std::move(bits);
  } else {
    SKADE_ASSIGN_OR_RAISE_ARROW(auto buffer, arrow::AllocateBuffer(rows * sizeof(T)));
    T* out = reinterpret_cast<T*>(buffer->mutable_data());
    if (validity == nullptr) {
      std::copy(dense.get(), dense.get() + rows, out);
    } else {
      for (int64_t i = 0, v = 0; i < rows; ++i) out[i] = levels[i] == max_level ? dense[v++] : T{};
    }
    data = std::move(buffer);
  }
  return arrow::MakeArray(arrow::ArrayData::Make(
      std::move(as), rows, {std::move(validity), std::move(data)}, rows - values));
}

template <typename DType>
Result<std::shared_ptr<arrow::Array>> SelectedRowsReader::Column::ReadIntegerDecimals(
    int64_t rows) {
  using T = typename DType::c_type;
  SKADE_ASSIGN_OR_RAISE(auto stored,
                        ReadFixedWidth<DType>(rows, arrow::CTypeTraits<T>::type_singleton()));
  const arrow::ArrayData& values = *stored->data();
  // Arrow's decimal128 is two's complement, low 64 bits first (little-endian).
  SKADE_ASSIGN_OR_RAISE_ARROW(auto buffer, arrow::AllocateBuffer(rows * 16));
  auto* out = reinterpret_cast<uint64_t*>(buffer->mutable_data());
  const T* in = values.GetValues<T>(1);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t value = in[i];
    out[2 * i] = static_cast<uint64_t>(value);
    out[2 * i + 1] = value < 0 ? ~uint64_t{0} : 0;
  }
  return arrow::MakeArray(arrow::ArrayData::Make(
      type, rows, {values.buffers[0], std::shared_ptr<arrow::Buffer>(std::move(buffer))},
      values.null_count));
}

template <typename Builder>
Result<std::shared_ptr<arrow::Array>> SelectedRowsReader::Column::ReadByteArrays(int64_t rows) {
  auto& typed = static_cast<parquet::ByteArrayReader&>(*reader);
  int16_t max_level = descriptor->max_definition_level();
  std::vector<int16_t> levels(max_level > 0 ? rows : 0);
  std::vector<parquet::ByteArray> dense(rows);
  Builder builder;
  SKADE_RETURN_NOT_OK_ARROW(builder.Reserve(rows));
  int64_t read = 0;
  while (read < rows) {
    int64_t values_read = 0;
    int64_t n = typed.ReadBatch(rows - read, max_level > 0 ? levels.data() : nullptr, nullptr,
                                dense.data(), &values_read);
    if (n <= 0) {
      return Corruption("Parquet column ", descriptor->path()->ToDotString(),
                        " ends before its row count");
    }
    // The values point into the current page: copy them before the next
    // read moves on.
    for (int64_t i = 0, v = 0; i < n; ++i) {
      if (max_level > 0 && levels[i] != max_level) {
        SKADE_RETURN_NOT_OK_ARROW(builder.AppendNull());
      } else {
        const parquet::ByteArray& value = dense[v++];
        SKADE_RETURN_NOT_OK_ARROW(
            builder.Append(value.ptr, static_cast<typename Builder::offset_type>(value.len)));
      }
    }
    read += n;
  }
  SKADE_ASSIGN_OR_RAISE_ARROW(auto array, builder.Finish());
  auto data = array->data()->Copy();
  data->type = type;
  return arrow::MakeArray(data);
}

Result<std::shared_ptr<arrow::Array>> SelectedRowsReader::Column::Read(int64_t rows) {
  Result<std::shared_ptr<arrow::Array>> array =
      InternalError("Unexpected Parquet type in a page-skipping read");
  VisitPhysicalType(descriptor->physical_type(), [&](auto physical) {
    using DType = decltype(physical);
    if constexpr (std::is_same_v<DType, parquet::Int32Type> ||
                  std::is_same_v<DType, parquet::Int64Type>) {
      array = type->id() == arrow::Type::DECIMAL128 ? ReadIntegerDecimals<DType>(rows)
                                                    : ReadFixedWidth<DType>(rows, type);
    } else if constexpr (!std::is_same_v<DType, parquet::ByteArrayType>) {
      array = ReadFixedWidth<DType>(rows, type);
    } else if (type->id() == arrow::Type::LARGE_STRING || type->id() == arrow::Type::LARGE_BINARY) {
      array = ReadByteArrays<arrow::LargeBinaryBuilder>(rows);
    } else {
      array = ReadByteArrays<arrow::BinaryBuilder>(rows);
    }
  });
  if (!array) return array;
  if (mismatch) {
    return Corruption("Parquet column ", descriptor->path()->ToDotString(),
                      " has data pages that disagree with its offset index");
  }
  position += rows;
  return array;
}

SelectedRowsReader::~SelectedRowsReader() = default;

Result<std::unique_ptr<SelectedRowsReader>> SelectedRowsReader::Make(ParquetFile& file,
                                                                     int row_group,
                                                                     const std::vector<int>& fields,
                                                                     RowRanges rows,
                                                                     int64_t batch_rows) {
  const std::string& location = file.location();
  return data::CatchArrowExceptions(location, [&]() -> Result<std::unique_ptr<SelectedRowsReader>> {
    const parquet::arrow::SchemaManifest& manifest = file.reader().manifest();
    const parquet::SchemaDescriptor& descriptors = *file.metadata().schema();
    std::unique_ptr<SelectedRowsReader> reader(new SelectedRowsReader());
    arrow::FieldVector schema_fields;
    for (int f : fields) {
      const parquet::arrow::SchemaField& field = manifest.schema_fields[f];
      if (field.column_index < 0 || !field.children.empty()) return nullptr;
      const parquet::ColumnDescriptor* descriptor = descriptors.Column(field.column_index);
      if (descriptor->max_repetition_level() > 0 || descriptor->max_definition_level() > 1 ||
          !ReadsLikeFileReader(*descriptor, *field.field->type())) {
        return nullptr;
      }
      schema_fields.push_back(field.field);
    }
    int64_t row_count = file.row_group_rows(row_group);
    parquet::ParquetFileReader* parquet_reader = file.reader().parquet_reader();
    reader->row_group_ = parquet_reader->RowGroup(row_group);
    std::shared_ptr<parquet::RowGroupPageIndexReader> index;
    if (auto page_index = parquet_reader->GetPageIndexReader()) {
      index = page_index->RowGroup(row_group);
    }
    for (int f : fields) {
      int leaf = manifest.schema_fields[f].column_index;
      auto column = std::make_unique<Column>();
      column->descriptor = descriptors.Column(leaf);
      column->type = manifest.schema_fields[f].field->type();
      std::unique_ptr<parquet::PageReader> pages = reader->row_group_->GetColumnPageReader(leaf);
      std::shared_ptr<parquet::OffsetIndex> offsets =
          index != nullptr ? index->GetOffsetIndex(leaf) : nullptr;
      if (offsets == nullptr || offsets->page_locations().empty()) {
        column->decoded = RowRanges::All(row_count);
      } else {
        std::vector<int64_t> starts;
        for (const auto& page : offsets->page_locations()) starts.push_back(page.first_row_index);
        starts.push_back(row_count);
        std::vector<bool> skip;
        for (size_t p = 0; p + 1 < starts.size(); ++p) {
          bool wanted = rows.Overlaps(starts[p], starts[p + 1]);
          skip.push_back(!wanted);
          if (wanted) column->decoded.Add(starts[p], starts[p + 1]);
          if (!wanted) ++column->pages_skipped;
        }
        Column* state = column.get();
        pages->set_data_page_filter([state, starts = std::move(starts),
                                     skip = std::move(skip)](const parquet::DataPageStats& stats) {
          size_t p = state->next_page++;
          if (p >= skip.size() || stats.num_values != starts[p + 1] - starts[p]) {
            state->mismatch = true;
            return false;
          }
          return static_cast<bool>(skip[p]);
        });
      }
      column->reader = parquet::ColumnReader::Make(column->descriptor, std::move(pages),
                                                   arrow::default_memory_pool());
      reader->columns_.push_back(std::move(column));
    }
    reader->file_ = &file;
    reader->schema_ = arrow::schema(std::move(schema_fields));
    reader->rows_ = std::move(rows);
    reader->batch_rows_ = std::max<int64_t>(1, batch_rows);
    return reader;
  });
}

Result<std::shared_ptr<arrow::RecordBatch>> SelectedRowsReader::ReadNext(int64_t* first_row) {
  if (range_ >= rows_.ranges().size()) return nullptr;
  const RowRanges::Range& range = rows_.ranges()[range_];
  next_row_ = std::max(next_row_, range.begin);
  int64_t rows = std::min(batch_rows_, range.end - next_row_);
  return data::CatchArrowExceptions(
      file_->location(), [&]() -> Result<std::shared_ptr<arrow::RecordBatch>> {
        std::vector<std::shared_ptr<arrow::Array>> arrays;
        for (auto& column : columns_) {
          SKADE_RETURN_NOT_OK(column->SkipTo(next_row_));
          SKADE_ASSIGN_OR_RAISE(auto array, column->Read(rows));
          arrays.push_back(std::move(array));
        }
        *first_row = next_row_;
        next_row_ += rows;
        if (next_row_ == range.end) ++range_;
        return arrow::RecordBatch::Make(schema_, rows, std::move(arrays));
      });
}

int64_t SelectedRowsReader::pages_skipped() const {
  int64_t pages = 0;
  for (const auto& column : columns_) pages += column->pages_skipped;
  return pages;
}

}  // namespace skade::read
