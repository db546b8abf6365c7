#include <deque>

#include "skade/commit/row_encoder_internal.h"
#include "skade/commit/upsert_keys_internal.h"
#include "skade/data/data_file_namer.h"
#include "skade/data/data_writer_options.h"
#include "skade/data/fanout_data_writer.h"
#include "skade/data/partition_path.h"
#include "skade/data/record_batches.h"
#include "skade/io/buffer_output_file.h"

namespace skade::commit {

namespace {

// Small batches — a flush's writes, a row or a few each — concatenated into
// batches of up to this many bytes: every batch costs the writers a schema
// check and a Parquet write call, which cost more than a few rows.
constexpr int64_t kMaxConcatenatedBytes = 1 << 20;

std::vector<std::shared_ptr<arrow::RecordBatch>> ConcatenateSmall(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  std::vector<std::shared_ptr<arrow::RecordBatch>> group;
  int64_t group_bytes = 0;
  auto close_group = [&] {
    auto one = group.size() > 1 ? data::ConcatenateBatches(group) : nullptr;
    if (one && *one) {
      out.push_back(std::move(*one));
    } else {
      // One batch, or batches whose schemas differ: as they are.
      out.insert(out.end(), group.begin(), group.end());
    }
    group.clear();
    group_bytes = 0;
  };
  for (const auto& batch : batches) {
    int64_t bytes = data::BatchBytes(*batch);
    if (!group.empty() && group_bytes + bytes > kMaxConcatenatedBytes) close_group();
    group.push_back(batch);
    group_bytes += bytes;
  }
  close_group();
  return out;
}

// Writes `batches` as files of `schema` (the table's, or an upsert's key)
// partitioned by `partition_spec` and appends the unsynced ones to `unsynced`.
Result<std::vector<spec::DataFile>> WriteFiles(
    const spec::TableMetadata& metadata, const RowSink& sink, data::DataWriterOptions options,
    spec::SchemaPtr schema, const spec::PartitionSpecPtr& partition_spec,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches, data::DataFileNamer* namer,
    std::vector<std::string>* written, std::vector<catalog::UnsyncedFile>* unsynced) {
  auto next_location = [&](const std::vector<spec::Literal>& partition) -> Result<std::string> {
    std::string partition_path;
    if (!partition_spec->fields.empty()) {
      SKADE_ASSIGN_OR_RAISE(partition_path,
                            data::PartitionPath(*partition_spec, *metadata.Schema(), partition));
    }
    written->push_back(namer->Next(partition_path));
    return written->back();
  };
  std::unique_ptr<data::FanoutDataWriter> writer;
  // Encoded in memory first when the commit may take them unsynced.
  std::deque<std::pair<std::string, std::string>> buffered;  // location, bytes
  bool buffer = sink.durable && sink.unsynced_limit > 0;
  options.durable = sink.durable;
  if (buffer) {
    SKADE_ASSIGN_OR_RAISE(
        writer, data::FanoutDataWriter::Make(
                    std::move(schema), partition_spec, options,
                    [&](const std::vector<spec::Literal>& partition) -> Result<data::DataFileSink> {
                      SKADE_ASSIGN_OR_RAISE(std::string location, next_location(partition));
                      auto& file = buffered.emplace_back(location, std::string());
                      return data::DataFileSink{
                          location, std::make_unique<io::BufferOutputFile>(&file.second)};
                    }));
  } else {
    SKADE_ASSIGN_OR_RAISE(
        writer, data::FanoutDataWriter::Make(sink.io, std::move(schema), partition_spec, options,
                                             next_location));
  }
  for (const auto& batch : ConcatenateSmall(batches)) SKADE_RETURN_NOT_OK(writer->Write(batch));
  SKADE_ASSIGN_OR_RAISE(auto files, writer->Close());
  for (auto& [location, bytes] : buffered) {
    bool hand_over = bytes.size() <= sink.unsynced_limit;
    SKADE_RETURN_NOT_OK(sink.io->WriteFile(location, bytes, !hand_over));
    if (hand_over) {
      unsynced->push_back({location, std::make_shared<const std::string>(std::move(bytes))});
    }
  }
  return files;
}

std::vector<std::string> KeyNames(const spec::Schema& schema,
                                  const std::vector<int32_t>& key_field_ids) {
  std::vector<std::string> names;
  for (int32_t id : key_field_ids) names.push_back(schema.FindFieldById(id)->name);
  return names;
}

}  // namespace

Result<EncodedRows> EncodeRows(const spec::TableMetadata& metadata, const RowSink& sink,
                               const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                               const std::vector<int32_t>& key_field_ids,
                               const spec::PartitionSpecPtr& delete_spec,
                               std::vector<std::string>* written) {
  EncodedRows encoded;
  if (batches.empty()) return encoded;
  SKADE_ASSIGN_OR_RAISE(data::DataWriterOptions options,
                        data::DataWriterOptions::FromProperties(metadata.properties));
  data::DataFileNamer namer(metadata, "");
  if (key_field_ids.empty()) {
    SKADE_ASSIGN_OR_RAISE(encoded.data_files,
                          WriteFiles(metadata, sink, options, metadata.Schema(), metadata.Spec(),
                                     batches, &namer, written, &encoded.unsynced));
    return encoded;
  }
  // Later rows of a key replace earlier ones: the delete file (same
  // sequence number) cannot remove rows of its own snapshot.
  std::vector<std::string> keys = KeyNames(*metadata.Schema(), key_field_ids);
  SKADE_ASSIGN_OR_RAISE(auto rows, data::ConcatenateBatches(batches));
  SKADE_ASSIGN_OR_RAISE(rows, data::LastRowPerKey(rows, keys));
  SKADE_ASSIGN_OR_RAISE(encoded.data_files,
                        WriteFiles(metadata, sink, options, metadata.Schema(), metadata.Spec(),
                                   {rows}, &namer, written, &encoded.unsynced));
  SKADE_ASSIGN_OR_RAISE(auto key_rows, data::SelectColumns(rows, keys));
  SKADE_ASSIGN_OR_RAISE(
      encoded.delete_files,
      WriteFiles(metadata, sink, options, KeySchema(*metadata.Schema(), key_field_ids), delete_spec,
                 {key_rows}, &namer, written, &encoded.unsynced));
  for (spec::DataFile& file : encoded.delete_files) {
    file.content = spec::DataFileContent::kEqualityDeletes;
    file.equality_ids = key_field_ids;
  }
  return encoded;
}

void DeleteFiles(io::FileIO& io, const std::vector<std::string>& locations) {
  for (const std::string& location : locations) (void)io.DeleteFile(location);
}

}  // namespace skade::commit
