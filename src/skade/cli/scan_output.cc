#include "skade/cli/scan_output.h"

#include <arrow/builder.h>
#include <arrow/csv/writer.h>
#include <arrow/io/file.h>
#include <arrow/io/stdio.h>
#include <arrow/ipc/writer.h>
#include <arrow/scalar.h>
#include <arrow/type_traits.h>
#include <arrow/util/base64.h>
#include <fcntl.h>
#include <parquet/arrow/writer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "skade/io/location.h"
#include "skade/spec/literal_json.h"
#include "skade/util/json_writer.h"
#include "skade/util/random.h"

namespace skade::cli {
namespace {

Status FromArrow(const arrow::Status& status, std::string_view what) {
  if (status.ok()) return OkStatus();
  return IoError(what, ": ", status.ToString());
}

constexpr char kHexDigits[] = "0123456789abcdef";

bool IsUuid(const arrow::DataType& type) {
  return type.id() == arrow::Type::EXTENSION &&
         static_cast<const arrow::ExtensionType&>(type).extension_name() == "arrow.uuid";
}

// A valid scalar of a flat type as text, the same in every text format:
// binary as base64 (never raw bytes), uuids in their canonical form, other
// extension types as their storage, everything else the scalar's own
// rendering.
std::string FlatText(const arrow::Scalar& scalar) {
  switch (scalar.type->id()) {
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY:
      return arrow::util::base64_encode(static_cast<const arrow::BaseBinaryScalar&>(scalar).view());
    case arrow::Type::EXTENSION: {
      const auto& storage = *static_cast<const arrow::ExtensionScalar&>(scalar).value;
      if (IsUuid(*scalar.type)) {
        return spec::UuidString(static_cast<const arrow::BaseBinaryScalar&>(storage).view());
      }
      return FlatText(storage);
    }
    default:
      return scalar.ToString();
  }
}

bool IsNested(const arrow::DataType& type) {
  if (type.id() == arrow::Type::EXTENSION) {
    return IsNested(*static_cast<const arrow::ExtensionType&>(type).storage_type());
  }
  return arrow::is_nested(type.id());
}

// A JSON value for a scalar: numbers and booleans as JSON, nested values as
// objects and arrays, binary as base64, uuids in their canonical text,
// everything else (dates, timestamps, decimals) as the scalar's text.
void WriteScalar(const arrow::Scalar& scalar, JsonWriter& json) {
  if (!scalar.is_valid) {
    json.Null();
    return;
  }
  switch (scalar.type->id()) {
    case arrow::Type::BOOL:
      json.Bool(static_cast<const arrow::BooleanScalar&>(scalar).value);
      return;
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      std::string text = scalar.ToString();
      if (text == "nan" || text == "inf" || text == "-inf")
        json.String(text);
      else
        json.Raw(text);
      return;
    }
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY:
      json.String(FlatText(scalar));
      return;
    case arrow::Type::EXTENSION:
      if (IsUuid(*scalar.type)) {
        json.String(FlatText(scalar));
      } else {
        WriteScalar(*static_cast<const arrow::ExtensionScalar&>(scalar).value, json);
      }
      return;
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructScalar&>(scalar);
      json.StartObject();
      for (int i = 0; i < scalar.type->num_fields(); ++i) {
        json.Key(scalar.type->field(i)->name());
        WriteScalar(*s.value[i], json);
      }
      json.EndObject();
      return;
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST:
    case arrow::Type::MAP: {
      const auto& list = static_cast<const arrow::BaseListScalar&>(scalar);
      json.StartArray();
      for (int64_t i = 0; i < list.value->length(); ++i) {
        auto item = list.value->GetScalar(i);
        if (item.ok())
          WriteScalar(**item, json);
        else
          json.Null();
      }
      json.EndArray();
      return;
    }
    default:
      json.String(scalar.ToString());
  }
}

// A valid scalar as text for the table and CSV formats: nested values as the
// JSON jsonl writes for them, others as FlatText.
std::string ValueText(const arrow::Scalar& scalar) {
  if (!IsNested(*scalar.type)) return FlatText(scalar);
  JsonWriter json;
  WriteScalar(scalar, json);
  return json.Take();
}

// A cell of the table format: one line, so control characters (from
// strings; binary is base64 already) are escaped.
std::string CellText(const arrow::Array& column, int64_t row) {
  if (column.IsNull(row)) return "NULL";
  auto scalar = column.GetScalar(row);
  if (!scalar.ok()) return "?";
  std::string text;
  for (char c : ValueText(**scalar)) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      text += "\\n";
    } else if (c == '\r') {
      text += "\\r";
    } else if (c == '\t') {
      text += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      text += "\\x";
      text += kHexDigits[byte >> 4];
      text += kHexDigits[byte & 0xf];
    } else {
      text += c;
    }
  }
  return text;
}

// An aligned text table; widths are computed per chunk of rows so output
// starts before a large scan ends.
class TableOutput : public ScanOutput {
 public:
  TableOutput(std::shared_ptr<arrow::io::OutputStream> out, std::shared_ptr<arrow::Schema> schema)
      : out_(std::move(out)), schema_(std::move(schema)) {}

  Status Write(const arrow::RecordBatch& batch) override {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::vector<std::string> cells;
      for (int c = 0; c < batch.num_columns(); ++c)
        cells.push_back(CellText(*batch.column(c), row));
      rows_.push_back(std::move(cells));
      ++total_;
      if (rows_.size() >= kChunkRows) SKADE_RETURN_NOT_OK(Flush());
    }
    return OkStatus();
  }

  Status Close() override {
    SKADE_RETURN_NOT_OK(Flush());
    std::string tail = "(" + std::to_string(total_) + (total_ == 1 ? " row)\n" : " rows)\n");
    SKADE_RETURN_NOT_OK(FromArrow(out_->Write(tail), "write"));
    return FromArrow(out_->Close(), "close");
  }

 private:
  static constexpr size_t kChunkRows = 10000;
  static constexpr size_t kMaxWidth = 60;

  Status Flush() {
    std::vector<size_t> widths;
    for (const auto& field : schema_->fields()) widths.push_back(field->name().size());
    for (const auto& cells : rows_) {
      for (size_t c = 0; c < cells.size(); ++c) widths[c] = std::max(widths[c], cells[c].size());
    }
    for (size_t& w : widths) w = std::min(w, kMaxWidth);
    std::string text;
    auto line = [&](const std::vector<std::string>& cells) {
      for (size_t c = 0; c < cells.size(); ++c) {
        std::string cell = cells[c];
        if (cell.size() > kMaxWidth) {
          // Cut at a character boundary: the output stays UTF-8.
          size_t cut = kMaxWidth - 1;
          while (cut > 0 && (static_cast<unsigned char>(cell[cut]) & 0xc0) == 0x80) --cut;
          cell = cell.substr(0, cut) + "~";
        }
        text += (c ? " | " : "") + cell + std::string(widths[c] - cell.size(), ' ');
      }
      text += "\n";
    };
    if (!header_printed_) {
      std::vector<std::string> names;
      for (const auto& field : schema_->fields()) names.push_back(field->name());
      line(names);
      for (size_t c = 0; c < widths.size(); ++c)
        text += (c ? "-+-" : "") + std::string(widths[c], '-');
      text += "\n";
      header_printed_ = true;
    }
    for (const auto& cells : rows_) line(cells);
    rows_.clear();
    return FromArrow(out_->Write(text), "write");
  }

  std::shared_ptr<arrow::io::OutputStream> out_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<std::vector<std::string>> rows_;
  bool header_printed_ = false;
  int64_t total_ = 0;
};

// Arrow's CSV writer takes no extension or nested types and writes binary
// raw (failing on bytes that are not UTF-8), so columns of those types are
// written as string columns of their ValueText: the text jsonl shows.
class CsvOutput : public ScanOutput {
 public:
  static Result<std::unique_ptr<ScanOutput>> Make(std::shared_ptr<arrow::io::OutputStream> out,
                                                  const std::shared_ptr<arrow::Schema>& schema) {
    std::vector<bool> as_text;
    arrow::FieldVector fields;
    for (const auto& field : schema->fields()) {
      as_text.push_back(NeedsText(*field->type()));
      fields.push_back(as_text.back() ? field->WithType(arrow::utf8()) : field);
    }
    auto csv_schema = arrow::schema(std::move(fields), schema->metadata());
    auto writer = arrow::csv::MakeCSVWriter(out, csv_schema);
    if (!writer.ok()) return InvalidArgument("cannot write CSV: ", writer.status().ToString());
    return std::unique_ptr<ScanOutput>(
        new CsvOutput(std::move(out), *writer, std::move(csv_schema), std::move(as_text)));
  }
  Status Write(const arrow::RecordBatch& batch) override {
    arrow::ArrayVector columns;
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (!as_text_[c]) {
        columns.push_back(batch.column(c));
        continue;
      }
      const arrow::Array& column = *batch.column(c);
      arrow::StringBuilder text;
      for (int64_t row = 0; row < column.length(); ++row) {
        if (column.IsNull(row)) {
          SKADE_RETURN_NOT_OK(FromArrow(text.AppendNull(), "write CSV"));
          continue;
        }
        auto scalar = column.GetScalar(row);
        SKADE_RETURN_NOT_OK(FromArrow(scalar.status(), "write CSV"));
        SKADE_RETURN_NOT_OK(FromArrow(text.Append(ValueText(**scalar)), "write CSV"));
      }
      std::shared_ptr<arrow::Array> array;
      SKADE_RETURN_NOT_OK(FromArrow(text.Finish(&array), "write CSV"));
      columns.push_back(std::move(array));
    }
    auto text_batch = arrow::RecordBatch::Make(schema_, batch.num_rows(), std::move(columns));
    return FromArrow(writer_->WriteRecordBatch(*text_batch), "write CSV");
  }
  Status Close() override {
    SKADE_RETURN_NOT_OK(FromArrow(writer_->Close(), "close CSV"));
    return FromArrow(out_->Close(), "close");
  }

 private:
  CsvOutput(std::shared_ptr<arrow::io::OutputStream> out,
            std::shared_ptr<arrow::ipc::RecordBatchWriter> writer,
            std::shared_ptr<arrow::Schema> schema, std::vector<bool> as_text)
      : out_(std::move(out)),
        writer_(std::move(writer)),
        schema_(std::move(schema)),
        as_text_(std::move(as_text)) {}

  static bool NeedsText(const arrow::DataType& type) {
    switch (type.id()) {
      case arrow::Type::BINARY:
      case arrow::Type::LARGE_BINARY:
      case arrow::Type::BINARY_VIEW:
      case arrow::Type::FIXED_SIZE_BINARY:
      case arrow::Type::EXTENSION:
        return true;
      default:
        return arrow::is_nested(type.id());
    }
  }

  std::shared_ptr<arrow::io::OutputStream> out_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
  std::shared_ptr<arrow::Schema> schema_;  // the columns as written
  std::vector<bool> as_text_;              // per column: written as ValueText
};

class JsonLinesOutput : public ScanOutput {
 public:
  explicit JsonLinesOutput(std::shared_ptr<arrow::io::OutputStream> out) : out_(std::move(out)) {}
  Status Write(const arrow::RecordBatch& batch) override {
    std::string text;
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      JsonWriter json;
      json.StartObject();
      for (int c = 0; c < batch.num_columns(); ++c) {
        json.Key(batch.schema()->field(c)->name());
        auto scalar = batch.column(c)->GetScalar(row);
        if (scalar.ok())
          WriteScalar(**scalar, json);
        else
          json.Null();
      }
      json.EndObject();
      text += json.str();
      text += '\n';
    }
    return FromArrow(out_->Write(text), "write");
  }
  Status Close() override { return FromArrow(out_->Close(), "close"); }

 private:
  std::shared_ptr<arrow::io::OutputStream> out_;
};

class ParquetOutput : public ScanOutput {
 public:
  static Result<std::unique_ptr<ScanOutput>> Make(std::shared_ptr<arrow::io::OutputStream> out,
                                                  const std::shared_ptr<arrow::Schema>& schema) {
    auto writer = parquet::arrow::FileWriter::Open(*schema, arrow::default_memory_pool(), out);
    if (!writer.ok()) return InvalidArgument("cannot write Parquet: ", writer.status().ToString());
    return std::unique_ptr<ScanOutput>(new ParquetOutput(std::move(out), std::move(*writer)));
  }
  Status Write(const arrow::RecordBatch& batch) override {
    return FromArrow(writer_->WriteRecordBatch(batch), "write Parquet");
  }
  Status Close() override {
    SKADE_RETURN_NOT_OK(FromArrow(writer_->Close(), "close Parquet"));
    return FromArrow(out_->Close(), "close");
  }

 private:
  ParquetOutput(std::shared_ptr<arrow::io::OutputStream> out,
                std::unique_ptr<parquet::arrow::FileWriter> writer)
      : out_(std::move(out)), writer_(std::move(writer)) {}
  std::shared_ptr<arrow::io::OutputStream> out_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;
};

// The scan's file is the operator's, named on the command line, not a table
// file: it is written with POSIX calls, not through a FileIO, which never
// replaces a file.

std::string ErrnoText() { return std::strerror(errno); }

// A file written under a hidden name beside its destination and renamed
// onto it by Publish (ScanDestination says why); deleted unless published.
class HiddenFile {
 public:
  // `mode`: the permission bits to give the file (those of the file it
  // replaces); none: a new file's (0666 less the umask).
  static Result<std::unique_ptr<HiddenFile>> Create(const std::filesystem::path& destination,
                                                    std::optional<mode_t> mode, bool replace) {
    // A name of at most 255 bytes, whatever the destination's length.
    std::string name = destination.filename().string().substr(0, 200);
    std::unique_ptr<HiddenFile> file(new HiddenFile(destination.string(), replace));
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 10; ++attempt) {
      char suffix[32];
      std::snprintf(suffix, sizeof(suffix), ".skade-%016llx.tmp",
                    static_cast<unsigned long long>(RandomU64()));
      file->hidden_ = (destination.parent_path() / ("." + name + suffix)).string();
      fd = ::open(file->hidden_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
      file->hidden_.clear();
      return IoError("cannot create a file in ", destination.parent_path().string(), ": ",
                     ErrnoText());
    }
    file->fd_ = fd;
    if (mode && ::fchmod(fd, *mode & 0777) != 0) {
      return IoError("cannot set the permissions of ", file->hidden_, ": ", ErrnoText());
    }
    // The stream gets a descriptor of its own to close; fd_ stays for fsync.
    int stream_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (stream_fd < 0) return IoError("cannot write ", file->hidden_, ": ", ErrnoText());
    auto stream = arrow::io::FileOutputStream::Open(stream_fd);
    if (!stream.ok()) {
      ::close(stream_fd);
      return IoError("cannot write ", file->hidden_, ": ", stream.status().ToString());
    }
    file->stream_ = *stream;
    return file;
  }

  ~HiddenFile() {
    if (stream_ && !stream_->closed()) (void)stream_->Close();
    if (fd_ >= 0) ::close(fd_);
    if (!published_ && !hidden_.empty()) ::unlink(hidden_.c_str());
  }

  std::shared_ptr<arrow::io::OutputStream> stream() const { return stream_; }

  // After the stream is closed: the rows reach the disk before the name
  // does, so the destination is never an empty or partial file, even after
  // a power loss.
  Status Publish() {
    if (::fsync(fd_) != 0) return IoError("cannot sync ", hidden_, ": ", ErrnoText());
    if (replace_) {
      if (::rename(hidden_.c_str(), destination_.c_str()) != 0) {
        return IoError("cannot rename ", hidden_, " to ", destination_, ": ", ErrnoText());
      }
    } else if (::renameat2(AT_FDCWD, hidden_.c_str(), AT_FDCWD, destination_.c_str(),
                           RENAME_NOREPLACE) != 0) {
      if (errno == EEXIST) return AppearedMeanwhile();
      if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
        return IoError("cannot rename ", hidden_, " to ", destination_, ": ", ErrnoText());
      }
      // A file system without RENAME_NOREPLACE.
      struct stat st;
      if (::lstat(destination_.c_str(), &st) == 0) return AppearedMeanwhile();
      if (::rename(hidden_.c_str(), destination_.c_str()) != 0) {
        return IoError("cannot rename ", hidden_, " to ", destination_, ": ", ErrnoText());
      }
    }
    published_ = true;
    return OkStatus();
  }

 private:
  HiddenFile(std::string destination, bool replace)
      : destination_(std::move(destination)), replace_(replace) {}

  tl::unexpected<Error> AppearedMeanwhile() const {
    return MakeError(ErrorKind::kAlreadyExists, destination_,
                     " was created while the scan ran; it is left as it is (--force replaces it)");
  }

  std::string destination_;
  bool replace_;
  std::string hidden_;
  int fd_ = -1;
  std::shared_ptr<arrow::io::FileOutputStream> stream_;
  bool published_ = false;
};

// A format's output into a HiddenFile, published by Close.
class PublishingOutput : public ScanOutput {
 public:
  PublishingOutput(std::unique_ptr<HiddenFile> file, std::unique_ptr<ScanOutput> rows)
      : file_(std::move(file)), rows_(std::move(rows)) {}
  Status Write(const arrow::RecordBatch& batch) override { return rows_->Write(batch); }
  Status Close() override {
    SKADE_RETURN_NOT_OK(rows_->Close());
    return file_->Publish();
  }

 private:
  std::unique_ptr<HiddenFile> file_;
  // Destroyed before file_: whatever a format writes when dropped goes to
  // the hidden file, before it is deleted.
  std::unique_ptr<ScanOutput> rows_;
};

Result<std::unique_ptr<ScanOutput>> MakeFormatOutput(const std::string& format,
                                                     std::shared_ptr<arrow::io::OutputStream> out,
                                                     std::shared_ptr<arrow::Schema> schema) {
  if (format == "table") return std::unique_ptr<ScanOutput>(new TableOutput(out, schema));
  if (format == "csv") return CsvOutput::Make(out, schema);
  if (format == "jsonl") return std::unique_ptr<ScanOutput>(new JsonLinesOutput(out));
  return ParquetOutput::Make(out, schema);
}

// `path` as the file system resolves it: absolute, without "..", the links
// of its existing part resolved (its own too: a link is written through).
Result<std::filesystem::path> ResolvePath(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::path resolved = std::filesystem::absolute(path, error);
  if (!error) resolved = std::filesystem::weakly_canonical(resolved, error);
  if (error) return IoError("cannot resolve ", path.string(), ": ", error.message());
  return resolved;
}

// A protected directory as a resolved local path; none for a location
// elsewhere (an object store), where no local file can be.
std::optional<std::filesystem::path> ResolveDirectory(const std::string& directory) {
  auto location = io::Location::ParseUserInput(directory);
  if (!location || location->scheme != "file") return std::nullopt;
  auto resolved = ResolvePath(location->path);
  if (!resolved) return std::nullopt;
  return *resolved;
}

bool IsInside(const std::filesystem::path& path, const std::filesystem::path& directory) {
  std::string dir = directory.string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string& p = path.native();
  return dir == "/" || p == dir || (p.starts_with(dir) && p[dir.size()] == '/');
}

}  // namespace

Result<std::unique_ptr<ScanOutput>> MakeScanOutput(const std::string& format,
                                                   const ScanDestination& destination,
                                                   std::shared_ptr<arrow::Schema> schema) {
  if (format != "table" && format != "csv" && format != "jsonl" && format != "parquet") {
    return InvalidArgument("unknown --format '", format, "' (table, csv, jsonl or parquet)");
  }
  const std::string& named = destination.path;
  if (named.empty()) {
    if (format == "parquet") return InvalidArgument("--format parquet needs --output PATH");
    return MakeFormatOutput(format, std::make_shared<arrow::io::StdoutStream>(), schema);
  }
  // /dev/stdout, /dev/stderr, /dev/null, /dev/fd/N: a stream the caller
  // opened, not a file to replace (resolved, /dev/stdout is a link into
  // /proc/self/fd that may name the shell's target file).
  if (named.starts_with("/dev/")) {
    auto opened = arrow::io::FileOutputStream::Open(named);
    if (!opened.ok()) return IoError("cannot write to ", named, ": ", opened.status().ToString());
    return MakeFormatOutput(format, *opened, schema);
  }
  SKADE_ASSIGN_OR_RAISE(std::filesystem::path path, ResolvePath(named));
  for (const std::string& directory : destination.protected_directories) {
    auto resolved = ResolveDirectory(directory);
    if (resolved && IsInside(path, *resolved)) {
      return MakeError(ErrorKind::kForbidden, "will not write to ", named, " (", path.string(),
                       "): it is in ", resolved->string(),
                       ", where the catalog keeps its store or table files; --force does not "
                       "change that");
    }
  }
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return IoError("cannot write to ", named, ": ", ErrnoText());
  if ((exists && S_ISDIR(st.st_mode)) || !path.has_filename()) {
    return InvalidArgument("--output ", named, " is a directory: name a file");
  }
  if (exists && !S_ISREG(st.st_mode)) {
    // A FIFO or a device: nothing in it is lost, and it cannot be replaced.
    auto opened = arrow::io::FileOutputStream::Open(path.string());
    if (!opened.ok()) return IoError("cannot write to ", named, ": ", opened.status().ToString());
    return MakeFormatOutput(format, *opened, schema);
  }
  if (exists && !destination.replace) {
    return MakeError(ErrorKind::kAlreadyExists, named,
                     " exists: pass --force to replace it (it is replaced only when the scan "
                     "succeeds)");
  }
  std::optional<mode_t> mode;
  if (exists) mode = st.st_mode;
  SKADE_ASSIGN_OR_RAISE(auto file, HiddenFile::Create(path, mode, destination.replace));
  SKADE_ASSIGN_OR_RAISE(auto rows, MakeFormatOutput(format, file->stream(), std::move(schema)));
  return std::unique_ptr<ScanOutput>(new PublishingOutput(std::move(file), std::move(rows)));
}

}  // namespace skade::cli
