#include "skade/data/parquet_data_writer.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/compression.h>
#include <parquet/arrow/writer.h>
#include <parquet/file_writer.h>
#include <parquet/properties.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/conform_batch.h"
#include "skade/data/dictionary_choice.h"
#include "skade/data/nan_counts_internal.h"
#include "skade/data/output_stream_internal.h"
#include "skade/data/parquet_metrics.h"

namespace skade::data {

namespace {

Result<arrow::Compression::type> ParquetCodec(const std::string& name) {
  arrow::Compression::type codec;
  if (name == "zstd") {
    codec = arrow::Compression::ZSTD;
  } else if (name == "snappy") {
    codec = arrow::Compression::SNAPPY;
  } else if (name == "gzip") {
    codec = arrow::Compression::GZIP;
  } else if (name == "lz4") {
    codec = arrow::Compression::LZ4;
  } else if (name == "brotli") {
    codec = arrow::Compression::BROTLI;
  } else if (name == "uncompressed") {
    codec = arrow::Compression::UNCOMPRESSED;
  } else {
    return InvalidArgument("Unknown Parquet compression codec: ", name);
  }
  if (!arrow::util::Codec::IsAvailable(codec)) {
    return Unsupported("Parquet compression codec ", name, " is not available in this build");
  }
  return codec;
}

Result<std::shared_ptr<parquet::WriterProperties>> WriterProperties(
    const DataWriterOptions& options, const std::vector<std::string>& plain_columns) {
  SKADE_ASSIGN_OR_RAISE(auto codec, ParquetCodec(options.compression_codec));
  parquet::WriterProperties::Builder builder;
  builder.created_by(kParquetCreatedBy)
      ->compression(codec)
      ->data_pagesize(options.page_size_bytes)
      ->max_rows_per_page(options.page_row_limit)
      ->dictionary_pagesize_limit(options.dict_size_bytes)
      // Row groups are cut by size (Write), never by Arrow's row limit.
      ->max_row_group_length(std::numeric_limits<int64_t>::max())
      // Iceberg's mapping: decimal(P<=9) as int32, P<=18 as int64.
      ->enable_store_decimal_as_integer()
      // Column and offset indexes let readers skip pages (as Iceberg Java's
      // parquet-mr writes them by default).
      ->enable_write_page_index();
  for (const auto& name : plain_columns) {
    builder.disable_dictionary(
        std::make_shared<parquet::schema::ColumnPath>(std::vector<std::string>{name}));
  }
  // Like Iceberg Java, a level is ignored by codecs that take none.
  if (options.compression_level && arrow::util::Codec::SupportsCompressionLevel(codec)) {
    builder.compression_level(*options.compression_level);
  }
  return builder.build();
}

// Buffers up to this size are counted whole: a slice of them can overstate
// a file's size by no more than this.
constexpr int64_t kCountWholeBuffersBelow = 64 << 10;

int64_t ArrowBytes(const arrow::RecordBatch& batch) {
  // ReferencedBufferSize costs ~0.1 ms in builders, more than a small
  // batch's encode; it matters only for slices of large buffers.
  const int64_t whole = arrow::util::TotalBufferSize(batch);
  if (whole <= kCountWholeBuffersBelow) return whole;
  auto referenced = arrow::util::ReferencedBufferSize(batch);
  return referenced.ok() ? *referenced : whole;
}

}  // namespace

struct ParquetDataWriter::Impl {
  std::string location;
  spec::SchemaPtr schema;
  std::shared_ptr<arrow::Schema> arrow_schema;
  DataWriterOptions options;
  // Destroyed in reverse order: the Parquet writer before the stream it
  // writes to, the stream before the file under it.
  std::unique_ptr<io::OutputFile> file;
  std::shared_ptr<OutputFileStream> stream;
  // Opened by the first rows (which columns skip the dictionary is decided
  // on them), or by Close for a file with none.
  std::unique_ptr<parquet::arrow::FileWriter> writer;

  std::map<int32_t, int64_t> nan_counts;
  int64_t record_count = 0;
  // Row-group sizing: Arrow bytes buffered in the open row group, and the
  // on-disk/Arrow ratio of the row groups flushed so far.
  double row_group_arrow_bytes = 0;
  bool row_group_full = false;
  int64_t flushed_file_bytes = 0;
  double flushed_arrow_bytes = 0;
  bool closed = false;

  double Ratio() const {
    return flushed_arrow_bytes > 0 ? static_cast<double>(flushed_file_bytes) / flushed_arrow_bytes
                                   : 1.0;
  }

  // An arrow::Status as ours, preferring the FileIO error behind it.
  Status Check(const arrow::Status& status, std::string_view context) const {
    if (status.ok()) return OkStatus();
    if (stream->error()) return tl::unexpected(*stream->error());
    return FromArrowStatus(status, StrCat(context, " ", location));
  }

  Status OpenWriter(const arrow::RecordBatch* first) {
    auto plain = first ? PlainColumns(*first, options.page_row_limit) : std::vector<std::string>{};
    SKADE_ASSIGN_OR_RAISE(auto properties, WriterProperties(options, plain));
    // The Arrow schema is stored in the file so Arrow readers get back
    // exactly these types (e.g. arrow.uuid, the UTC zone).
    auto arrow_properties = parquet::ArrowWriterProperties::Builder().store_schema()->build();
    auto opened = parquet::arrow::FileWriter::Open(*arrow_schema, arrow::default_memory_pool(),
                                                   stream, properties, arrow_properties);
    SKADE_RETURN_NOT_OK(Check(opened.status(), "Cannot start Parquet file"));
    writer = std::move(opened).ValueUnsafe();
    return OkStatus();
  }

  Status StartRowGroup() {
    int64_t before = stream->position();
    SKADE_RETURN_NOT_OK(Check(writer->NewBufferedRowGroup(), "Cannot flush row group of"));
    flushed_file_bytes += stream->position() - before;
    flushed_arrow_bytes += row_group_arrow_bytes;
    row_group_arrow_bytes = 0;
    row_group_full = false;
    return OkStatus();
  }

  Result<int64_t> WriteUntil(const std::shared_ptr<arrow::RecordBatch>& batch,
                             int64_t max_file_bytes) {
    if (closed) return InvalidArgument("Parquet writer for ", location, " is closed");
    SKADE_ASSIGN_OR_RAISE(auto conformed, ConformBatch(batch, *schema));
    const int64_t rows = conformed->num_rows();
    if (rows == 0) return 0;
    if (!writer) SKADE_RETURN_NOT_OK(OpenWriter(conformed.get()));
    const double arrow_bytes_per_row =
        std::max(1.0, static_cast<double>(ArrowBytes(*conformed)) / static_cast<double>(rows));
    int64_t written = 0;
    while (written < rows) {
      const double file_room = static_cast<double>(max_file_bytes) - Estimate();
      if (written > 0 && file_room <= 0) break;
      if (row_group_full) SKADE_RETURN_NOT_OK(StartRowGroup());
      const double ratio = Ratio();
      const double row_bytes = arrow_bytes_per_row * ratio;
      const double row_group_room =
          static_cast<double>(options.row_group_size_bytes) - row_group_arrow_bytes * ratio;
      double room = std::min(row_group_room, file_room);
      auto fit = static_cast<int64_t>(std::ceil(std::max(room, 0.0) / row_bytes));
      int64_t count = std::clamp<int64_t>(fit, 1, rows - written);
      auto slice = conformed->Slice(written, count);
      SKADE_RETURN_NOT_OK(AddNanCounts(*slice, *schema, &nan_counts));
      SKADE_RETURN_NOT_OK(Check(writer->WriteRecordBatch(*slice), "Cannot write"));
      written += count;
      record_count += count;
      row_group_arrow_bytes += static_cast<double>(count) * arrow_bytes_per_row;
      if (row_group_arrow_bytes * ratio >= static_cast<double>(options.row_group_size_bytes)) {
        row_group_full = true;
      }
    }
    return written;
  }

  double Estimate() const {
    return static_cast<double>(stream->position()) + row_group_arrow_bytes * Ratio();
  }
};

ParquetDataWriter::ParquetDataWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ParquetDataWriter::~ParquetDataWriter() = default;

Result<std::unique_ptr<ParquetDataWriter>> ParquetDataWriter::Open(io::FileIO& io,
                                                                   std::string location,
                                                                   spec::SchemaPtr schema,
                                                                   DataWriterOptions options) {
  DataFileSink sink;
  SKADE_ASSIGN_OR_RAISE(sink.file, io.NewOutputFile(location, options.durable));
  sink.location = std::move(location);
  return Open(std::move(sink), std::move(schema), std::move(options));
}

Result<std::unique_ptr<ParquetDataWriter>> ParquetDataWriter::Open(DataFileSink sink,
                                                                   spec::SchemaPtr schema,
                                                                   DataWriterOptions options) {
  SKADE_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(*schema));
  // Options are checked now, though the file is started by its first rows.
  SKADE_RETURN_NOT_OK(WriterProperties(options, {}));
  auto impl = std::make_unique<Impl>();
  impl->file = std::move(sink.file);
  impl->stream = std::make_shared<OutputFileStream>(impl->file.get());
  impl->location = std::move(sink.location);
  impl->schema = std::move(schema);
  impl->arrow_schema = std::move(arrow_schema);
  impl->options = std::move(options);
  return std::unique_ptr<ParquetDataWriter>(new ParquetDataWriter(std::move(impl)));
}

Status ParquetDataWriter::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  return WriteUntilFileSize(batch, std::numeric_limits<int64_t>::max()).map([](int64_t) {});
}

Result<int64_t> ParquetDataWriter::WriteUntilFileSize(
    const std::shared_ptr<arrow::RecordBatch>& batch, int64_t max_file_bytes) {
  return CatchArrowExceptions("Cannot write Parquet file",
                              [&] { return impl_->WriteUntil(batch, max_file_bytes); });
}

int64_t ParquetDataWriter::EstimatedFileSize() const {
  return static_cast<int64_t>(impl_->Estimate());
}

int64_t ParquetDataWriter::record_count() const { return impl_->record_count; }

const std::string& ParquetDataWriter::location() const { return impl_->location; }

Result<spec::DataFile> ParquetDataWriter::Close() {
  Impl& impl = *impl_;
  if (impl.closed) return InvalidArgument("Parquet writer for ", impl.location, " is closed");
  impl.closed = true;
  std::shared_ptr<parquet::FileMetaData> footer;
  SKADE_RETURN_NOT_OK(CatchArrowExceptions("Cannot finish Parquet file", [&]() -> Status {
    if (!impl.writer) SKADE_RETURN_NOT_OK(impl.OpenWriter(nullptr));
    SKADE_RETURN_NOT_OK(impl.Check(impl.writer->Close(), "Cannot finish Parquet file"));
    SKADE_RETURN_NOT_OK(impl.Check(impl.stream->Close(), "Cannot finish Parquet file"));
    footer = impl.writer->metadata();
    return OkStatus();
  }));
  SKADE_RETURN_NOT_OK(impl.file->Close());
  SKADE_ASSIGN_OR_RAISE(
      auto data_file,
      DataFileFromParquetFooter(*footer, *impl.schema, impl.options.metrics, &impl.nan_counts));
  data_file.file_path = impl.location;
  data_file.file_size_in_bytes = impl.file->BytesWritten();
  return data_file;
}

}  // namespace skade::data
