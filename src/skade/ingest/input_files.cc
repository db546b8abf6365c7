#include "skade/ingest/input_files.h"

#include <arrow/api.h>
#include <arrow/csv/api.h>
#include <arrow/io/file.h>
#include <arrow/json/api.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>

#include <algorithm>
#include <filesystem>

#include "skade/util/strings.h"

namespace skade::ingest {

namespace {

template <typename T>
Result<T> FromArrow(arrow::Result<T> result, std::string_view what) {
  if (!result.ok()) return InvalidArgument(what, ": ", result.status().message());
  return std::move(result).ValueUnsafe();
}

Result<std::shared_ptr<arrow::io::ReadableFile>> OpenFile(const std::string& path) {
  auto file = arrow::io::ReadableFile::Open(path);
  if (file.status().IsIOError() && !std::filesystem::exists(path)) {
    return MakeError(ErrorKind::kNotFound, "cannot read ", path, ": no such file");
  }
  return FromArrow(std::move(file), path);
}

// The top-level columns of `schema` a CSV or JSON reader can convert to
// directly (primitive, not an extension type).
std::vector<std::shared_ptr<arrow::Field>> ReaderTypes(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& field : schema.fields()) {
    const auto& type = *field->type();
    if (type.num_fields() == 0 && type.id() != arrow::Type::EXTENSION) fields.push_back(field);
  }
  return fields;
}

// A CSV or JSON file read whole; its columns of `target` (when given) as
// the target's types, the others inferred.
Result<std::shared_ptr<arrow::Table>> ReadTextFile(const std::string& path, InputFormat format,
                                                   const arrow::Schema* target) {
  SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path));
  std::vector<std::shared_ptr<arrow::Field>> types;
  if (target != nullptr) types = ReaderTypes(*target);
  if (format == InputFormat::kCsv) {
    auto convert = arrow::csv::ConvertOptions::Defaults();
    for (const auto& field : types) convert.column_types[field->name()] = field->type();
    SKADE_ASSIGN_OR_RAISE(auto reader, FromArrow(arrow::csv::TableReader::Make(
                                                     arrow::io::default_io_context(), file,
                                                     arrow::csv::ReadOptions::Defaults(),
                                                     arrow::csv::ParseOptions::Defaults(), convert),
                                                 path));
    return FromArrow(reader->Read(), path);
  }
  auto parse = arrow::json::ParseOptions::Defaults();
  if (!types.empty()) {
    parse.explicit_schema = arrow::schema(types);
    parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::InferType;
  }
  SKADE_ASSIGN_OR_RAISE(auto reader, FromArrow(arrow::json::TableReader::Make(
                                                   arrow::default_memory_pool(), file,
                                                   arrow::json::ReadOptions::Defaults(), parse),
                                               path));
  return FromArrow(reader->Read(), path);
}

Result<RecordBatchGroup> Batches(const arrow::Table& table, int64_t offset, int64_t count,
                                 std::string_view path) {
  auto slice = table.Slice(offset, count);
  return FromArrow(arrow::TableBatchReader(*slice).ToRecordBatches(), path);
}

// Streams `batches`, held by the stream.
BatchStream StreamOwning(RecordBatchGroup batches) {
  auto group = std::make_shared<RecordBatchGroup>(std::move(batches));
  return [group, stream = StreamOf(*group)] { return stream(); };
}

// The rows of one input file, read by range.
class InputFile {
 public:
  virtual ~InputFile() = default;
  virtual int64_t rows() const = 0;
  /// Rows [offset, offset + count), in order.
  virtual Result<BatchStream> Read(int64_t offset, int64_t count) const = 0;
};

// A CSV or JSON file, in memory.
class TextInput : public InputFile {
 public:
  TextInput(std::string path, std::shared_ptr<arrow::Table> table)
      : path_(std::move(path)), table_(std::move(table)) {}
  int64_t rows() const override { return table_->num_rows(); }
  Result<BatchStream> Read(int64_t offset, int64_t count) const override {
    SKADE_ASSIGN_OR_RAISE(RecordBatchGroup batches, Batches(*table_, offset, count, path_));
    return StreamOwning(std::move(batches));
  }

 private:
  std::string path_;
  std::shared_ptr<arrow::Table> table_;
};

// A Parquet file: its footer, parsed once; each Read decodes just the row
// groups its range spans, with its own reader over the shared file (a
// ReadableFile reads with pread, so concurrent readers are safe).
class ParquetInput : public InputFile {
 public:
  static Result<std::unique_ptr<ParquetInput>> Open(const std::string& path) {
    SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path));
    auto input = std::unique_ptr<ParquetInput>(new ParquetInput(path, file));
    try {
      input->metadata_ = parquet::ParquetFileReader::Open(file)->metadata();
    } catch (const parquet::ParquetException& e) {
      return InvalidArgument(path, ": ", e.what());
    }
    int64_t start = 0;
    for (int i = 0; i < input->metadata_->num_row_groups(); ++i) {
      input->row_group_starts_.push_back(start);
      start += input->metadata_->RowGroup(i)->num_rows();
    }
    input->row_group_starts_.push_back(start);
    return input;
  }

  int64_t rows() const override { return row_group_starts_.back(); }

  Result<std::shared_ptr<arrow::Schema>> Schema() const {
    SKADE_ASSIGN_OR_RAISE(auto reader, NewReader());
    std::shared_ptr<arrow::Schema> schema;
    arrow::Status status = reader->GetSchema(&schema);
    if (!status.ok()) return InvalidArgument(path_, ": ", status.message());
    return schema;
  }

  // Decodes the row groups the range spans batch by batch (the reader's
  // batch size), dropping the rows before `offset` and after the range.
  Result<BatchStream> Read(int64_t offset, int64_t count) const override {
    std::vector<int> row_groups;
    for (size_t i = 0; i + 1 < row_group_starts_.size(); ++i) {
      if (row_group_starts_[i + 1] > offset && row_group_starts_[i] < offset + count) {
        row_groups.push_back(static_cast<int>(i));
      }
    }
    if (row_groups.empty()) return StreamOwning({});
    struct State {
      std::unique_ptr<parquet::arrow::FileReader> file;  // outlives `batches`
      std::unique_ptr<arrow::RecordBatchReader> batches;
      int64_t skip;
      int64_t left;
    };
    auto state = std::make_shared<State>();
    SKADE_ASSIGN_OR_RAISE(state->file, NewReader());
    SKADE_ASSIGN_OR_RAISE(state->batches,
                          FromArrow(state->file->GetRecordBatchReader(row_groups), path_));
    state->skip = offset - row_group_starts_[row_groups.front()];
    state->left = count;
    return [state, path = path_]() -> Result<std::shared_ptr<arrow::RecordBatch>> {
      while (state->left > 0) {
        std::shared_ptr<arrow::RecordBatch> batch;
        arrow::Status status = state->batches->ReadNext(&batch);
        if (!status.ok()) return InvalidArgument(path, ": ", status.message());
        if (batch == nullptr) break;
        if (state->skip >= batch->num_rows()) {
          state->skip -= batch->num_rows();
          continue;
        }
        int64_t rows = std::min(state->left, batch->num_rows() - state->skip);
        if (state->skip > 0 || rows < batch->num_rows()) batch = batch->Slice(state->skip, rows);
        state->skip = 0;
        state->left -= rows;
        return batch;
      }
      return nullptr;
    };
  }

 private:
  ParquetInput(std::string path, std::shared_ptr<arrow::io::ReadableFile> file)
      : path_(std::move(path)), file_(std::move(file)) {}

  Result<std::unique_ptr<parquet::arrow::FileReader>> NewReader() const {
    std::unique_ptr<parquet::ParquetFileReader> file_reader;
    try {
      file_reader =
          parquet::ParquetFileReader::Open(file_, parquet::default_reader_properties(), metadata_);
    } catch (const parquet::ParquetException& e) {
      return InvalidArgument(path_, ": ", e.what());
    }
    parquet::ArrowReaderProperties properties;
    // One request per row group's columns instead of one per page; the
    // pool's workers read different groups at once, so no extra threads.
    properties.set_pre_buffer(true);
    properties.set_use_threads(false);
    return FromArrow(parquet::arrow::FileReader::Make(arrow::default_memory_pool(),
                                                      std::move(file_reader), properties),
                     path_);
  }

  std::string path_;
  std::shared_ptr<arrow::io::ReadableFile> file_;
  std::shared_ptr<parquet::FileMetaData> metadata_;
  std::vector<int64_t> row_group_starts_;  // per row group, then the row count
};

}  // namespace

Result<InputFormat> InputFormatOf(std::string_view path, std::string_view format) {
  std::string name = AsciiLower(format.empty() ? std::string(path) : StrCat(".", format));
  for (const char* suffix : {".parquet", ".pq"}) {
    if (name.ends_with(suffix)) return InputFormat::kParquet;
  }
  if (name.ends_with(".csv")) return InputFormat::kCsv;
  for (const char* suffix : {".json", ".jsonl", ".ndjson"}) {
    if (name.ends_with(suffix)) return InputFormat::kJson;
  }
  return InvalidArgument("cannot tell the format of ", path,
                         " (use --format parquet|csv|json, or a .parquet/.csv/.jsonl name)");
}

Result<std::shared_ptr<arrow::Schema>> ReadInputSchema(const std::string& path,
                                                       InputFormat format) {
  if (format == InputFormat::kParquet) {
    SKADE_ASSIGN_OR_RAISE(auto input, ParquetInput::Open(path));
    return input->Schema();
  }
  SKADE_ASSIGN_OR_RAISE(auto table, ReadTextFile(path, format, nullptr));
  return table->schema();
}

std::shared_ptr<arrow::Schema> TableSchemaFor(const arrow::Schema& input) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& field : input.fields()) {
    auto type = field->type();
    if (type->id() == arrow::Type::TIMESTAMP) {
      const auto& timestamp = static_cast<const arrow::TimestampType&>(*type);
      if (timestamp.unit() == arrow::TimeUnit::NANO) {
        type = arrow::timestamp(arrow::TimeUnit::MICRO, timestamp.timezone());
      }
    }
    fields.push_back(field->WithType(type));
  }
  return arrow::schema(fields, input.metadata());
}

Result<GroupSource> InputGroups(const std::vector<std::string>& paths, std::string_view format,
                                int64_t rows_per_file, const arrow::Schema& table_schema) {
  if (rows_per_file < 1) return InvalidArgument("rows per file must be at least 1");
  struct Slice {
    size_t input;
    int64_t offset;
    int64_t count;
  };
  auto inputs = std::make_shared<std::vector<std::unique_ptr<InputFile>>>();
  auto slices = std::make_shared<std::vector<Slice>>();
  for (const std::string& path : paths) {
    SKADE_ASSIGN_OR_RAISE(InputFormat kind, InputFormatOf(path, format));
    if (kind == InputFormat::kParquet) {
      SKADE_ASSIGN_OR_RAISE(auto input, ParquetInput::Open(path));
      inputs->push_back(std::move(input));
    } else {
      SKADE_ASSIGN_OR_RAISE(auto table, ReadTextFile(path, kind, &table_schema));
      inputs->push_back(std::make_unique<TextInput>(path, std::move(table)));
    }
    for (int64_t offset = 0; offset < inputs->back()->rows(); offset += rows_per_file) {
      slices->push_back(
          {inputs->size() - 1, offset, std::min(rows_per_file, inputs->back()->rows() - offset)});
    }
  }
  return GroupSource{slices->size(), [inputs, slices](size_t i) -> Result<BatchStream> {
                       const Slice& slice = (*slices)[i];
                       return (*inputs)[slice.input]->Read(slice.offset, slice.count);
                     }};
}

}  // namespace skade::ingest
