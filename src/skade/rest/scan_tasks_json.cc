#include "skade/rest/scan_tasks_json.h"

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "skade/expr/expression_json.h"
#include "skade/spec/literal.h"
#include "skade/spec/literal_json.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

std::string_view ContentName(spec::DataFileContent content) {
  switch (content) {
    case spec::DataFileContent::kData:
      return "data";
    case spec::DataFileContent::kPositionDeletes:
      return "position-deletes";
    case spec::DataFileContent::kEqualityDeletes:
      return "equality-deletes";
  }
  return "data";
}

// A CountMap or ValueMap: {"keys": [field ids], "values": [...]}; nothing
// when `entries` is empty.
template <typename Value, typename WriteValue>
void WriteKeyValueMap(std::string_view key, const std::vector<std::pair<int32_t, Value>>& entries,
                      WriteValue write_value, JsonWriter& writer) {
  if (entries.empty()) return;
  writer.Key(key);
  writer.StartObject();
  writer.Key("keys");
  writer.StartArray();
  for (const auto& entry : entries) writer.Int(entry.first);
  writer.EndArray();
  writer.Key("values");
  writer.StartArray();
  for (const auto& entry : entries) write_value(entry.second);
  writer.EndArray();
  writer.EndObject();
}

void WriteCountMap(std::string_view key, const std::map<int32_t, int64_t>& counts,
                   const StatsFields& stats_fields, JsonWriter& writer) {
  std::vector<std::pair<int32_t, int64_t>> kept;
  for (const auto& [field_id, count] : counts) {
    if (stats_fields.contains(field_id)) kept.emplace_back(field_id, count);
  }
  WriteKeyValueMap(
      key, kept, [&](int64_t count) { writer.Int(count); }, writer);
}

void WriteValueMap(std::string_view key, const std::map<int32_t, std::string>& bounds,
                   const spec::Schema& schema, const StatsFields& stats_fields,
                   JsonWriter& writer) {
  std::vector<std::pair<int32_t, spec::Literal>> kept;
  for (const auto& [field_id, bytes] : bounds) {
    if (!stats_fields.contains(field_id)) continue;
    const spec::NestedField* field = schema.FindFieldById(field_id);
    if (field == nullptr) continue;
    auto value = spec::Literal::FromBytes(field->type, bytes);
    if (!value) continue;
    kept.emplace_back(field_id, std::move(*value));
  }
  WriteKeyValueMap(
      key, kept, [&](const spec::Literal& value) { spec::WriteLiteralJson(value, writer); },
      writer);
}

}  // namespace

void WriteContentFile(const spec::DataFile& file, const spec::Schema& schema,
                      const StatsFields& stats_fields, JsonWriter& writer) {
  writer.StartObject();
  writer.Field("content", ContentName(file.content));
  writer.Field("file-path", file.file_path);
  writer.Field("file-format", AsciiLower(spec::FileFormatName(file.file_format)));
  writer.Field("spec-id", file.spec_id);
  writer.Key("partition");
  writer.StartArray();
  for (const auto& value : file.partition) spec::WriteLiteralJson(value, writer);
  writer.EndArray();
  writer.Field("file-size-in-bytes", file.file_size_in_bytes);
  writer.Field("record-count", file.record_count);
  if (file.key_metadata) {
    writer.Field("key-metadata", spec::LiteralJsonText(spec::Literal::Binary(*file.key_metadata)));
  }
  if (!file.split_offsets.empty()) {
    writer.Key("split-offsets");
    writer.StartArray();
    for (int64_t offset : file.split_offsets) writer.Int(offset);
    writer.EndArray();
  }
  if (file.sort_order_id) writer.Field("sort-order-id", *file.sort_order_id);
  switch (file.content) {
    case spec::DataFileContent::kData:
      if (file.first_row_id) writer.Field("first-row-id", *file.first_row_id);
      WriteCountMap("column-sizes", file.column_sizes, stats_fields, writer);
      WriteCountMap("value-counts", file.value_counts, stats_fields, writer);
      WriteCountMap("null-value-counts", file.null_value_counts, stats_fields, writer);
      WriteCountMap("nan-value-counts", file.nan_value_counts, stats_fields, writer);
      WriteValueMap("lower-bounds", file.lower_bounds, schema, stats_fields, writer);
      WriteValueMap("upper-bounds", file.upper_bounds, schema, stats_fields, writer);
      break;
    case spec::DataFileContent::kPositionDeletes:
      // Iceberg Java's ContentFileParser field, for deletion vectors.
      if (file.referenced_data_file) {
        writer.Field("referenced-data-file", *file.referenced_data_file);
      }
      if (file.content_offset) writer.Field("content-offset", *file.content_offset);
      if (file.content_size_in_bytes) {
        writer.Field("content-size-in-bytes", *file.content_size_in_bytes);
      }
      break;
    case spec::DataFileContent::kEqualityDeletes:
      writer.Key("equality-ids");
      writer.StartArray();
      for (int32_t id : file.equality_ids) writer.Int(id);
      writer.EndArray();
      break;
  }
  writer.EndObject();
}

Status CheckResidualBytes(const scan::ScanPlan& plan, size_t max_bytes) {
  std::unordered_map<const expr::BoundExpression*, size_t> sizes;
  size_t total = 0;
  for (const auto& task : plan.tasks) {
    if (!task.residual) continue;
    auto [it, added] = sizes.try_emplace(task.residual.get(), 0);
    if (added) {
      JsonWriter writer;
      expr::WriteBoundExpressionJson(*task.residual, *plan.schema, writer);
      it->second = writer.Take().size();
    }
    total += it->second;
    if (total > max_bytes) {
      return InvalidArgument("The scan's residual filters, one per file of ", plan.tasks.size(),
                             ", come to more than the ", max_bytes,
                             " bytes the server answers for one plan: narrow the scan or the "
                             "filter");
    }
  }
  return OkStatus();
}

void WriteScanTasks(const scan::ScanPlan& plan, std::span<const scan::FileScanTask> tasks,
                    const StatsFields& stats_fields, JsonWriter& writer) {
  // Delete files in order of first use; tasks refer to them by index. Not
  // by path alone: the deletion vectors of many data files share one
  // Puffin file, each at its own offset.
  std::map<scan::DeleteFileKey, int64_t> delete_index;
  std::vector<const spec::DataFile*> delete_files;
  for (const auto& task : tasks) {
    for (const auto& scan_delete : task.deletes) {
      if (delete_index.emplace(scan::KeyOf(scan_delete.file), delete_files.size()).second) {
        delete_files.push_back(&scan_delete.file);
      }
    }
  }
  const StatsFields no_stats;
  writer.Key("delete-files");
  writer.StartArray();
  for (const spec::DataFile* file : delete_files) {
    WriteContentFile(*file, *plan.schema, no_stats, writer);
  }
  writer.EndArray();
  writer.Key("file-scan-tasks");
  writer.StartArray();
  for (const auto& task : tasks) {
    writer.StartObject();
    writer.Key("data-file");
    WriteContentFile(task.data_file, *plan.schema, stats_fields, writer);
    if (!task.deletes.empty()) {
      writer.Key("delete-file-references");
      writer.StartArray();
      for (const auto& scan_delete : task.deletes) {
        writer.Int(delete_index.at(scan::KeyOf(scan_delete.file)));
      }
      writer.EndArray();
    }
    if (task.residual) {
      writer.Key("residual-filter");
      expr::WriteBoundExpressionJson(*task.residual, *plan.schema, writer);
    }
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace skade::rest
