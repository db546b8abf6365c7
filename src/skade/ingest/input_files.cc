#include "skade/ingest/input_files.h"

#include <arrow/api.h>
#include <arrow/compute/cast.h>
#include <arrow/csv/api.h>
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <arrow/json/api.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

#include "skade/util/strings.h"

namespace skade::ingest {

namespace {

// Arrow's message with its detail, which says which errno an I/O error was.
std::string MessageOf(const arrow::Status& status) {
  if (status.detail() == nullptr) return status.message();
  return StrCat(status.message(), " (", status.detail()->ToString(), ")");
}

template <typename T>
Result<T> FromArrow(arrow::Result<T> result, std::string_view what) {
  if (!result.ok()) {
    if (what.empty()) return InvalidArgument(MessageOf(result.status()));
    return InvalidArgument(what, ": ", MessageOf(result.status()));
  }
  return std::move(result).ValueUnsafe();
}

Result<std::shared_ptr<arrow::io::ReadableFile>> OpenFile(const std::string& path) {
  auto file = arrow::io::ReadableFile::Open(path);
  if (file.status().IsIOError() && !std::filesystem::exists(path)) {
    return MakeError(ErrorKind::kNotFound, "cannot read ", path, ": no such file");
  }
  return FromArrow(std::move(file), path);
}

// Quoted newlines are valid CSV (RFC 4180); without this option Arrow's
// chunker splits records at every newline and loses sync past one block.
arrow::csv::ParseOptions CsvParseOptions() {
  auto parse = arrow::csv::ParseOptions::Defaults();
  parse.newlines_in_values = true;
  return parse;
}

// A byte scan of CSV or JSON-lines text, fed in pieces, that finds what must
// be refused before Arrow decodes it: a record longer than kMaxRecordBytes
// (a block must hold it) and JSON nested deeper than kMaxJsonDepth (Arrow's
// builder would overflow the stack). It tracks JSON strings and CSV quoted
// fields, where brackets and newlines are text. Records end at '\n' or '\r'
// outside quotes, as the readers' chunkers end them.
class TextScan {
 public:
  /// `file` text may start with a byte order mark, which the readers skip
  /// there (and only there).
  TextScan(InputFormat format, bool file) : format_(format), may_start_bom_(file) {}

  /// The next bytes of the text; an error (without a line number: line()
  /// says which) once the text holds a record the readers must not see.
  Status Feed(std::string_view text) {
    for (char c : text) {
      const bool bom = may_start_bom_ && fed_ < 3 && c == "\xEF\xBB\xBF"[fed_];
      if (!bom) may_start_bom_ = false;
      if (c == '\n') {
        rows_ += blank_ ? 0 : 1;
        blank_ = true;
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r' && !bom) {
        blank_ = false;
      }
      ++fed_;
      const bool record_end = format_ == InputFormat::kJson ? ScanJson(c, bom) : ScanCsv(c);
      if (record_end) {
        whole_records_bytes_ = fed_;
        longest_ = std::max(longest_, record_bytes_);
        record_bytes_ = 0;
      } else if (++record_bytes_ > kMaxRecordBytes) {
        return InvalidArgument(format_ == InputFormat::kJson ? "a line" : "a record",
                               " is longer than ", kMaxRecordBytes, " bytes");
      }
      if (depth_ > kMaxJsonDepth) {
        return InvalidArgument("JSON nested deeper than ", kMaxJsonDepth,
                               " levels of arrays and objects");
      }
      if (not_an_object_ != 0) {
        // Arrow's reader reads a `null` line as a row of nulls.
        return InvalidArgument("each line must hold a JSON object ({...}), not ",
                               JsonValueKind(not_an_object_));
      }
    }
    return OkStatus();
  }

  /// The bytes fed up to the end of the last whole record (its line end).
  int64_t whole_records_bytes() const { return whole_records_bytes_; }
  /// The line the scan is at, from 1.
  int64_t line() const { return line_; }
  /// The JSON lines that are not blank (one record each).
  int64_t json_rows() const { return rows_ + (blank_ ? 0 : 1); }
  /// A reader block size that holds every record scanned: Arrow's default,
  /// or the longest record and its line end.
  int32_t block_size() const {
    const int64_t longest = std::max(longest_, record_bytes_);
    return static_cast<int32_t>(
        std::max<int64_t>(longest + 2, arrow::csv::ReadOptions::Defaults().block_size));
  }

 private:
  static std::string JsonValueKind(char first) {
    switch (first) {
      case '[':
        return "an array";
      case '"':
        return "a string";
      case 'n':
        return "null";
      case 't':
      case 'f':
        return "a boolean";
      default:
        if (first == '-' || (first >= '0' && first <= '9')) return "a number";
        constexpr char kHex[] = "0123456789ABCDEF";
        const auto byte = static_cast<unsigned char>(first);
        return StrCat("text starting with byte 0x", kHex[byte >> 4], kHex[byte & 0xF]);
    }
  }

  // Whether `c` ends a JSON line. A newline also ends a string (JSON has
  // none in strings), so a stray quote cannot hide the lines after it.
  bool ScanJson(char c, bool bom) {
    const bool newline = c == '\n' || c == '\r';
    // A line's value begins at its first character that is not a blank (nor
    // the file's byte order mark): it must be an object.
    if (line_value_pending_ && depth_ == 0 && !in_string_ && !newline && c != ' ' && c != '\t' &&
        !bom) {
      line_value_pending_ = false;
      if (c != '{') not_an_object_ = c;
    }
    if (newline) line_value_pending_ = true;
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"' || newline) {
        in_string_ = false;
      }
      return newline;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;  // not reset at a newline: the reader parses a block's lines as one text
    } else if ((c == '}' || c == ']') && depth_ > 0) {
      --depth_;
    }
    return newline;
  }

  // Whether `c` ends a CSV record. A field is quoted when it starts with a
  // quote (elsewhere a quote is text, as Arrow's parser reads it), and a
  // quote inside it is doubled.
  bool ScanCsv(char c) {
    if (quoted_) {
      if (!quote_pending_) {
        quote_pending_ = c == '"';
        return false;
      }
      quote_pending_ = false;
      if (c == '"') return false;  // a doubled quote
      quoted_ = false;             // the closing quote was the one before
    }
    if (c == '\n' || c == '\r') {
      field_start_ = true;
      return true;
    }
    quoted_ = field_start_ && c == '"';
    field_start_ = c == ',';
    return false;
  }

  const InputFormat format_;
  bool may_start_bom_;  // the bytes so far are a file's byte order mark, or its start
  int64_t fed_ = 0;
  int64_t whole_records_bytes_ = 0;
  int64_t line_ = 1;
  int64_t rows_ = 0;  // JSON lines ended so far that are not blank
  bool blank_ = true;
  int64_t record_bytes_ = 0;  // of the record being scanned
  int64_t longest_ = 0;       // of the records ended
  int depth_ = 0;
  bool line_value_pending_ = true;  // no value yet on this line
  char not_an_object_ = 0;          // the first character of a line's value that is not an object
  bool in_string_ = false;
  bool escaped_ = false;
  bool field_start_ = true;
  bool quoted_ = false;
  bool quote_pending_ = false;  // a quote in a quoted field: closing, or doubled
};

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

// How a CSV or JSON reader converts: the columns of `target` (when given)
// as the target's types, the others inferred.
arrow::csv::ConvertOptions CsvConvertOptions(const arrow::Schema* target) {
  auto convert = arrow::csv::ConvertOptions::Defaults();
  // Only an empty field is null, as Spark and DuckDB read CSV: Arrow's
  // default list would also take "NaN", "NA", "N/A", "NULL", "null", …,
  // silently, so a float NaN could not be written at all and a typo'd
  // number would become a null. Anything else that is not a value of the
  // column's type is an error naming it.
  convert.null_values = {""};
  if (target == nullptr) return convert;
  for (const auto& field : ReaderTypes(*target))
    convert.column_types[field->name()] = field->type();
  return convert;
}

arrow::json::ParseOptions JsonParseOptions(const arrow::Schema* target) {
  auto parse = arrow::json::ParseOptions::Defaults();
  if (target == nullptr) return parse;
  // Nullable: a missing required value is left to ConformBatch, whose
  // error names the column (Arrow's does not). Timestamps are read as text
  // for ConformBatch to convert as the CSV reader does: Arrow's JSON reader
  // would move a value with an offset into a zone-less column to UTC, and
  // take a value without one as UTC in a zoned column, silently. Dates and
  // times are left to the reader's inference: JSON has none, and they come
  // as ISO text or as numbers (days, microseconds), which ConformBatch
  // takes either way; a type here would take only numbers.
  std::vector<std::shared_ptr<arrow::Field>> types;
  for (const auto& field : ReaderTypes(*target)) {
    const arrow::Type::type id = field->type()->id();
    if (id == arrow::Type::DATE32 || id == arrow::Type::TIME64) continue;
    auto type = id == arrow::Type::TIMESTAMP ? arrow::utf8() : field->type();
    types.push_back(field->WithType(type)->WithNullable(true));
  }
  if (!types.empty()) {
    parse.explicit_schema = arrow::schema(types);
    parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::InferType;
  }
  return parse;
}

// JSON lines from `input`, decoded as JsonParseOptions(target) says.
Result<std::shared_ptr<arrow::Table>> ReadJson(std::shared_ptr<arrow::io::InputStream> input,
                                               const arrow::json::ReadOptions& read,
                                               const arrow::Schema* target, std::string_view what) {
  SKADE_ASSIGN_OR_RAISE(auto reader, FromArrow(arrow::json::TableReader::Make(
                                                   arrow::default_memory_pool(), std::move(input),
                                                   read, JsonParseOptions(target)),
                                               what));
  return FromArrow(reader->Read(), what);
}

// JSON rows as Arrow infers them, except for timestamps. Arrow infers
// ISO-8601 text as a zone-less timestamp even when it has an offset ("…Z",
// "+05:00"), moving the value to UTC — text the strict conversion of later
// rows (JsonParseOptions) then refuses for that column. So the timestamp
// columns are read again as text (`read` with the inferred schema as the
// target): one whose text converts only with a zone becomes a UTC timestamp,
// as CSV's inference makes it; a mix stays zone-less, and the rows that
// differ fail when ingested.
Result<std::shared_ptr<arrow::Table>> InferJson(
    const std::function<Result<std::shared_ptr<arrow::Table>>(const arrow::Schema*)>& read) {
  SKADE_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Table> table, read(nullptr));
  std::shared_ptr<arrow::Table> text;
  for (int i = 0; i < table->num_columns(); ++i) {
    const std::shared_ptr<arrow::Field>& field = table->schema()->field(i);
    if (field->type()->id() != arrow::Type::TIMESTAMP) continue;
    if (text == nullptr) {
      SKADE_ASSIGN_OR_RAISE(text, read(table->schema().get()));
    }
    auto column = text->GetColumnByName(field->name());
    if (column == nullptr) continue;
    // Dates alone ("2026-02-01") make a date column, as CSV's inference does.
    if (auto dates = arrow::compute::Cast(column, arrow::date32()); dates.ok()) {
      SKADE_ASSIGN_OR_RAISE(table, FromArrow(table->SetColumn(i, field->WithType(arrow::date32()),
                                                              dates->chunked_array()),
                                             ""));
      continue;
    }
    const auto unit = static_cast<const arrow::TimestampType&>(*field->type()).unit();
    if (arrow::compute::Cast(column, arrow::timestamp(unit)).ok()) continue;
    auto zoned = arrow::compute::Cast(column, arrow::timestamp(unit, "UTC"));
    if (!zoned.ok()) continue;
    SKADE_ASSIGN_OR_RAISE(
        table,
        FromArrow(table->SetColumn(i, field->WithType(zoned->type()), zoned->chunked_array()), ""));
  }
  return table;
}

// A CSV or JSON file's batches in order, decoded as they are read in blocks
// of `block_size` bytes.
Result<std::shared_ptr<arrow::RecordBatchReader>> StreamTextFile(const std::string& path,
                                                                 InputFormat format,
                                                                 int32_t block_size,
                                                                 const arrow::Schema* target) {
  SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path));
  if (format == InputFormat::kCsv) {
    auto read = arrow::csv::ReadOptions::Defaults();
    read.block_size = block_size;
    return FromArrow<std::shared_ptr<arrow::RecordBatchReader>>(
        arrow::csv::StreamingReader::Make(arrow::io::default_io_context(), file, read,
                                          CsvParseOptions(), CsvConvertOptions(target)),
        path);
  }
  auto read = arrow::json::ReadOptions::Defaults();
  read.block_size = block_size;
  return FromArrow<std::shared_ptr<arrow::RecordBatchReader>>(
      arrow::json::StreamingReader::Make(file, read, JsonParseOptions(target)), path);
}

// What a scan of a whole CSV or JSON file found.
struct TextFileShape {
  int64_t rows;
  int32_t block_size;  // holds its longest record
};

// Scans the file at `path` (TextScan) a piece at a time, keeping none, and
// counts its rows: CSV by Arrow's parser, JSON lines (one record per line,
// as Arrow's reader reads them by default) as the lines that are not blank.
Result<TextFileShape> ScanTextFile(const std::string& path, InputFormat format) {
  SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path));
  TextScan scan(format, /*file=*/true);
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(auto chunk, FromArrow(file->Read(1 << 20), path));
    if (chunk->size() == 0) break;
    if (Status fed = scan.Feed(std::string_view(*chunk)); !fed) {
      return InvalidArgument(path, ": line ", scan.line(), ": ", fed.error().message);
    }
  }
  if (format == InputFormat::kJson) return TextFileShape{scan.json_rows(), scan.block_size()};
  if (arrow::Status rewound = file->Seek(0); !rewound.ok()) {
    return InvalidArgument(path, ": ", MessageOf(rewound));
  }
  auto read = arrow::csv::ReadOptions::Defaults();
  read.block_size = scan.block_size();
  SKADE_ASSIGN_OR_RAISE(
      int64_t rows, FromArrow(arrow::csv::CountRowsAsync(arrow::io::default_io_context(), file,
                                                         arrow::internal::GetCpuThreadPool(), read,
                                                         CsvParseOptions())
                                  .result(),
                              path));
  return TextFileShape{rows, scan.block_size()};
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
  /// Rows [offset, offset + count), in order. Thread-safe.
  virtual Result<BatchStream> Read(int64_t offset, int64_t count) = 0;
};

// A CSV or JSON file, read in groups of `group_rows` rows from its start
// (their readers are sequential). InputGroups() only counts the rows; the
// file is opened when a group of it is first read and closed after its
// last row. A group read ahead of the others decodes the groups before it
// and keeps them until they are read, so memory holds the groups in
// flight, not the file. Reads of one file are serialized by a mutex.
class TextInput : public InputFile {
 public:
  static Result<std::unique_ptr<TextInput>> Open(const std::string& path, InputFormat format,
                                                 int64_t group_rows, const arrow::Schema& target) {
    SKADE_ASSIGN_OR_RAISE(TextFileShape shape, ScanTextFile(path, format));
    return std::unique_ptr<TextInput>(new TextInput(path, format, group_rows, shape, target));
  }

  int64_t rows() const override { return rows_; }

  // `offset` must start a group and `count` be its size; each group is
  // read once.
  Result<BatchStream> Read(int64_t offset, int64_t count) override {
    std::lock_guard lock(mutex_);
    if (auto parked = parked_.find(offset); parked != parked_.end()) {
      RecordBatchGroup batches = std::move(parked->second);
      parked_.erase(parked);
      return StreamOwning(std::move(batches));
    }
    if (offset < cursor_ || count != std::min(group_rows_, rows_ - offset)) {
      return InternalError("rows ", offset, "+", count, " of ", path_, " are not an unread group");
    }
    for (;;) {
      const int64_t start = cursor_;
      SKADE_ASSIGN_OR_RAISE(RecordBatchGroup batches,
                            NextRows(std::min(group_rows_, rows_ - cursor_)));
      if (start == offset) return StreamOwning(std::move(batches));
      parked_.emplace(start, std::move(batches));
    }
  }

 private:
  TextInput(std::string path, InputFormat format, int64_t group_rows, TextFileShape shape,
            const arrow::Schema& target)
      : path_(std::move(path)),
        format_(format),
        group_rows_(group_rows),
        rows_(shape.rows),
        block_size_(shape.block_size),
        target_(arrow::schema(target.fields())) {}

  // The reader gave other rows than the scan counted: for JSON, most often
  // an object across lines or two on one line (the reader takes each as a
  // row, the count each non-blank line); else the file changed meanwhile.
  tl::unexpected<Error> CountMismatch() const {
    if (format_ == InputFormat::kJson) {
      return InvalidArgument(path_, ": its rows are not its ", rows_,
                             " non-blank lines: each line must hold one whole JSON value (an "
                             "object across lines, or two on one line, is not a JSON-lines "
                             "record), or the file changed while being read");
    }
    return InvalidArgument(path_, ": changed while being read");
  }

  // The next `count` rows, from the reader (opened on first use).
  Result<RecordBatchGroup> NextRows(int64_t count) {
    if (reader_ == nullptr) {
      SKADE_ASSIGN_OR_RAISE(reader_, StreamTextFile(path_, format_, block_size_, target_.get()));
    }
    RecordBatchGroup batches;
    for (int64_t left = count; left > 0;) {
      if (pending_ == nullptr) {
        SKADE_ASSIGN_OR_RAISE(pending_, FromArrow(reader_->Next(), path_));
        if (pending_ == nullptr) return CountMismatch();
      }
      if (pending_->num_rows() <= left) {
        left -= pending_->num_rows();
        batches.push_back(std::move(pending_));
        pending_ = nullptr;
      } else {
        batches.push_back(pending_->Slice(0, left));
        pending_ = pending_->Slice(left);
        left = 0;
      }
    }
    cursor_ += count;
    if (cursor_ == rows_) {
      // The count and the reader must agree: no rows may be left unread.
      if (pending_ != nullptr) return CountMismatch();
      SKADE_ASSIGN_OR_RAISE(auto extra, FromArrow(reader_->Next(), path_));
      if (extra != nullptr) return CountMismatch();
      reader_ = nullptr;  // closes the file
    }
    return batches;
  }

  const std::string path_;
  const InputFormat format_;
  const int64_t group_rows_;
  const int64_t rows_;
  const int32_t block_size_;
  const std::shared_ptr<arrow::Schema> target_;
  std::mutex mutex_;
  // Null before the first row is read and after the last.
  std::shared_ptr<arrow::RecordBatchReader> reader_;
  std::shared_ptr<arrow::RecordBatch> pending_;  // read, not yet in a group
  int64_t cursor_ = 0;                           // rows decoded into groups
  std::map<int64_t, RecordBatchGroup> parked_;   // decoded groups not yet read, by offset
};

// A Parquet file: its footer, parsed once; each Read decodes just the row
// groups its range spans, with its own reader over the file opened for it —
// an ingest of thousands of files holds open only those being read.
class ParquetInput : public InputFile {
 public:
  static Result<std::unique_ptr<ParquetInput>> Open(const std::string& path) {
    SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path));
    auto input = std::unique_ptr<ParquetInput>(new ParquetInput(path));
    SKADE_ASSIGN_OR_RAISE(input->size_, FromArrow(file->GetSize(), path));
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
  Result<BatchStream> Read(int64_t offset, int64_t count) override {
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
  explicit ParquetInput(std::string path) : path_(std::move(path)) {}

  Result<std::unique_ptr<parquet::arrow::FileReader>> NewReader() const {
    SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path_));
    // The footer read at Open describes the file only while it is the same.
    SKADE_ASSIGN_OR_RAISE(int64_t size, FromArrow(file->GetSize(), path_));
    if (size != size_) {
      return InvalidArgument(path_, ": changed while being read (", size_, " bytes, now ", size,
                             ")");
    }
    std::unique_ptr<parquet::ParquetFileReader> file_reader;
    try {
      file_reader =
          parquet::ParquetFileReader::Open(file, parquet::default_reader_properties(), metadata_);
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
  int64_t size_ = 0;
  std::shared_ptr<parquet::FileMetaData> metadata_;
  std::vector<int64_t> row_group_starts_;  // per row group, then the row count
};

// The rows of `text`, which a TextScan accepted, read in blocks of
// `block_size` bytes (ParseTextRows).
Result<std::shared_ptr<arrow::Table>> ParseScannedText(
    std::shared_ptr<arrow::Buffer> text, InputFormat format, int32_t block_size,
    const std::vector<std::string>& csv_column_names, const arrow::Schema* table_schema) {
  auto input = std::make_shared<arrow::io::BufferReader>(text);
  if (format == InputFormat::kCsv) {
    auto read = arrow::csv::ReadOptions::Defaults();
    read.column_names = csv_column_names;
    read.block_size = block_size;
    SKADE_ASSIGN_OR_RAISE(
        auto reader,
        FromArrow(arrow::csv::TableReader::Make(arrow::io::default_io_context(), input, read,
                                                CsvParseOptions(), CsvConvertOptions(table_schema)),
                  ""));
    return FromArrow(reader->Read(), "");
  }
  if (format != InputFormat::kJson) return InvalidArgument("only CSV and JSON text can be parsed");
  auto read = arrow::json::ReadOptions::Defaults();
  read.block_size = block_size;
  if (table_schema != nullptr) return ReadJson(input, read, table_schema, "");
  return InferJson([&](const arrow::Schema* target) {
    return ReadJson(std::make_shared<arrow::io::BufferReader>(text), read, target, "");
  });
}

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

Result<std::shared_ptr<arrow::Schema>> ReadInputSchema(const std::string& path, InputFormat format,
                                                       int64_t sample_bytes) {
  if (format == InputFormat::kParquet) {
    SKADE_ASSIGN_OR_RAISE(auto input, ParquetInput::Open(path));
    return input->Schema();
  }
  SKADE_ASSIGN_OR_RAISE(auto file, OpenFile(path));
  SKADE_ASSIGN_OR_RAISE(int64_t size, FromArrow(file->GetSize(), path));
  SKADE_ASSIGN_OR_RAISE(auto text, FromArrow(file->Read(std::min(size, sample_bytes)), path));
  TextScan scan(format, /*file=*/true);
  if (Status fed = scan.Feed(std::string_view(*text)); !fed) {
    return InvalidArgument(path, ": line ", scan.line(), ": ", fed.error().message);
  }
  if (size > sample_bytes) {
    // Whole records only: a record cut short would not parse (a CSV record
    // may hold quoted newlines).
    if (scan.whole_records_bytes() == 0) {
      return InvalidArgument("cannot infer a schema from ", path,
                             ": its first line is longer than ", sample_bytes,
                             " bytes; create the table first");
    }
    text = arrow::SliceBuffer(text, 0, scan.whole_records_bytes());
  }
  auto rows = ParseScannedText(text, format, scan.block_size(), {}, nullptr);
  if (!rows) {
    Error error = std::move(rows).error();
    error.message = StrCat(path, ": ", error.message);
    return tl::unexpected(std::move(error));
  }
  return (*rows)->schema();
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
      SKADE_ASSIGN_OR_RAISE(auto input, TextInput::Open(path, kind, rows_per_file, table_schema));
      inputs->push_back(std::move(input));
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

Result<std::shared_ptr<arrow::Table>> ParseTextRows(
    std::shared_ptr<arrow::Buffer> text, InputFormat format,
    const std::vector<std::string>& csv_column_names, const arrow::Schema* table_schema) {
  TextScan scan(format, /*file=*/false);
  SKADE_RETURN_NOT_OK(scan.Feed(std::string_view(*text)));
  return ParseScannedText(std::move(text), format, scan.block_size(), csv_column_names,
                          table_schema);
}

Result<std::vector<std::string>> ParseCsvHeader(std::string_view line) {
  auto text = arrow::Buffer::FromString(StrCat(line, "\n"));
  auto input = std::make_shared<arrow::io::BufferReader>(std::move(text));
  SKADE_ASSIGN_OR_RAISE(auto reader, FromArrow(arrow::csv::TableReader::Make(
                                                   arrow::io::default_io_context(), input,
                                                   arrow::csv::ReadOptions::Defaults(),
                                                   CsvParseOptions(), CsvConvertOptions(nullptr)),
                                               "CSV header"));
  SKADE_ASSIGN_OR_RAISE(auto table, FromArrow(reader->Read(), "CSV header"));
  return table->schema()->field_names();
}

}  // namespace skade::ingest
