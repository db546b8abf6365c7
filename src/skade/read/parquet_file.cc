#include <arrow/record_batch.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/properties.h>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/read/arrow_input_file.h"
#include "skade/read/parquet_file_internal.h"

namespace skade::read {

namespace {

bool AnyFieldId(const arrow::FieldVector& fields) {
  for (const auto& field : fields) {
    auto id = data::FieldIdOf(*field);
    if (id && *id >= 0) return true;
    if (AnyFieldId(field->type()->fields())) return true;
  }
  return false;
}

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.column_index >= 0) out->push_back(field.column_index);
  for (const auto& child : field.children) CollectLeaves(child, out);
}

}  // namespace

Result<std::unique_ptr<ParquetFile>> ParquetFile::Open(io::FileIO& io, const std::string& location,
                                                       const ParquetReadOptions& options,
                                                       const NameMapping* mapping) {
  SKADE_ASSIGN_OR_RAISE(std::unique_ptr<io::InputFile> input, io.NewInputFile(location));
  auto arrow_file = std::make_shared<ArrowInputFile>(std::move(input), location);
  std::unique_ptr<ParquetFile> file(new ParquetFile());
  file->location_ = location;
  std::shared_ptr<arrow::Schema> schema;
  auto opened = data::CatchArrowExceptions(location, [&]() -> Status {
    parquet::ArrowReaderProperties properties;
    properties.set_batch_size(options.batch_rows);
    properties.set_pre_buffer(true);
    properties.set_use_threads(options.use_threads);
    properties.set_coerce_int96_timestamp_unit(arrow::TimeUnit::MICRO);
    properties.set_arrow_extensions_enabled(true);
    parquet::arrow::FileReaderBuilder builder;
    SKADE_RETURN_NOT_OK(data::FromArrowStatus(builder.Open(arrow_file), location));
    builder.properties(properties);
    SKADE_ASSIGN_OR_RAISE(file->reader_, data::FromArrowResult(builder.Build(), location));
    return data::FromArrowStatus(file->reader_->GetSchema(&schema), location);
  });
  if (!opened) {
    // Parquet reports a file that is not Parquet (bad magic, a footer that
    // does not parse) as an exception or an invalid status.
    ErrorKind kind = opened.error().kind;
    if (kind == ErrorKind::kIo || kind == ErrorKind::kInvalidArgument) {
      return Corruption(opened.error().message);
    }
    return tl::unexpected(opened.error());
  }
  file->has_field_ids_ = AnyFieldId(schema->fields());
  if (!file->has_field_ids_) {
    if (mapping == nullptr) {
      return InvalidArgument("Data file ", location,
                             " has no field ids and the table has no name mapping (",
                             kDefaultNameMappingProperty, ")");
    }
    schema = mapping->Apply(*schema);
  }
  file->schema_ = std::move(schema);
  int64_t start = 0;
  const parquet::FileMetaData& metadata = file->metadata();
  for (int r = 0; r < metadata.num_row_groups(); ++r) {
    file->row_group_starts_.push_back(start);
    start += metadata.RowGroup(r)->num_rows();
  }
  return file;
}

int64_t ParquetFile::row_group_rows(int row_group) const {
  return metadata().RowGroup(row_group)->num_rows();
}

std::vector<int> ParquetFile::LeafColumns(const std::vector<int>& fields) const {
  std::vector<int> leaves;
  const auto& manifest = reader_->manifest();
  for (int field : fields) CollectLeaves(manifest.schema_fields[field], &leaves);
  return leaves;
}

Result<std::unique_ptr<arrow::RecordBatchReader>> ParquetFile::ReadRowGroup(
    int row_group, const std::vector<int>& fields) {
  return data::CatchArrowExceptions(location_, [&] {
    return data::FromArrowResult(reader_->GetRecordBatchReader({row_group}, LeafColumns(fields)),
                                 location_);
  });
}

}  // namespace skade::read
