#include "skade/data/partition_splitter.h"

#include <absl/container/flat_hash_map.h>
#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include <cstring>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_literal.h"
#include "skade/data/arrow_values_internal.h"
#include "skade/data/transform_array.h"

namespace skade::data {

namespace {

// Finds the child-index path to field `id` through structs only.
bool FindPath(const std::vector<spec::NestedField>& fields, int32_t id, std::vector<int>* path) {
  for (size_t i = 0; i < fields.size(); ++i) {
    path->push_back(static_cast<int>(i));
    if (fields[i].id == id) return true;
    if (fields[i].type->id() == spec::TypeId::kStruct &&
        FindPath(fields[i].type->fields(), id, path)) {
      return true;
    }
    path->pop_back();
  }
  return false;
}

// Appends an unambiguous encoding of one partition value to a row key.
class KeyAppender {
 public:
  explicit KeyAppender(const arrow::Array& array)
      : array_(&array), storage_(&StorageOf(array)), binary_(*storage_) {
    if (const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(storage_->type().get())) {
      bit_width_ = fixed->bit_width();
    }
  }

  void Append(int64_t row, std::string* key) const {
    if (array_->IsNull(row)) {
      key->push_back('\0');
      return;
    }
    key->push_back('\1');
    if (binary_.valid() && storage_->type_id() != arrow::Type::FIXED_SIZE_BINARY) {
      std::string_view bytes = binary_[row];
      uint64_t size = bytes.size();
      key->append(reinterpret_cast<const char*>(&size), sizeof(size));
      key->append(bytes);
    } else if (bit_width_ == 1) {
      key->push_back(static_cast<const arrow::BooleanArray&>(*storage_).Value(row) ? '\1' : '\0');
    } else {
      int64_t width = bit_width_ / 8;
      const uint8_t* values = storage_->data()->GetValues<uint8_t>(1, 0);
      key->append(reinterpret_cast<const char*>(values + (storage_->offset() + row) * width),
                  static_cast<size_t>(width));
    }
  }

 private:
  const arrow::Array* array_;
  const arrow::Array* storage_;
  BinaryValues binary_;
  int bit_width_ = 0;
};

struct Group {
  int64_t first_row = 0;
  int64_t last_row = 0;
  std::vector<int64_t> rows;
};

Result<std::shared_ptr<arrow::RecordBatch>> TakeRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const Group& group) {
  auto count = static_cast<int64_t>(group.rows.size());
  if (count == batch->num_rows()) return batch;
  if (group.last_row - group.first_row + 1 == count) return batch->Slice(group.first_row, count);
  arrow::Int64Builder indices;
  SKADE_RETURN_NOT_OK_ARROW(indices.AppendValues(group.rows));
  SKADE_ASSIGN_OR_RAISE_ARROW(auto index_array, indices.Finish());
  SKADE_ASSIGN_OR_RAISE_ARROW(auto taken,
                              arrow::compute::Take(arrow::Datum(batch), arrow::Datum(index_array)));
  return taken.record_batch();
}

}  // namespace

std::string PartitionKey(const std::vector<spec::Literal>& partition) {
  std::string key;
  for (const auto& value : partition) {
    if (value.is_null()) {
      key.push_back('\0');
      continue;
    }
    std::string bytes = value.ToBytes();
    uint64_t size = bytes.size();
    key.push_back('\1');
    key.append(reinterpret_cast<const char*>(&size), sizeof(size));
    key.append(bytes);
  }
  return key;
}

Result<PartitionSplitter> PartitionSplitter::Make(spec::SchemaPtr schema,
                                                  spec::PartitionSpecPtr spec) {
  std::vector<Field> fields;
  for (const auto& partition_field : spec->fields) {
    if (!partition_field.source_ids.empty() && partition_field.source_ids.size() != 1) {
      return Unsupported("Partition field '", partition_field.name, "' has several source columns");
    }
    Field field;
    field.transform = partition_field.transform;
    if (!FindPath(schema->fields(), partition_field.source_id, &field.path)) {
      return InvalidArgument("Partition field '", partition_field.name, "': source column ",
                             partition_field.source_id,
                             " is not a column outside lists and maps of the schema");
    }
    field.source_type = schema->FindFieldById(partition_field.source_id)->type;
    if (!field.source_type->is_primitive()) {
      return InvalidArgument("Partition field '", partition_field.name,
                             "': source column is not primitive");
    }
    if (field.transform.kind() == spec::TransformKind::kUnknown) {
      return Unsupported("Partition field '", partition_field.name, "' has unknown transform ",
                         field.transform.ToString());
    }
    SKADE_ASSIGN_OR_RAISE(field.result_type, field.transform.ResultType(field.source_type));
    fields.push_back(std::move(field));
  }
  return PartitionSplitter(std::move(schema), std::move(spec), std::move(fields));
}

Result<std::vector<std::shared_ptr<arrow::Array>>> PartitionSplitter::PartitionColumns(
    const arrow::RecordBatch& batch) const {
  if (static_cast<size_t>(batch.num_columns()) != schema_->fields().size()) {
    return InvalidArgument("Batch has ", batch.num_columns(), " columns, the schema ",
                           schema_->fields().size(), "; conform it first");
  }
  std::vector<std::shared_ptr<arrow::Array>> out;
  for (const auto& field : fields_) {
    std::shared_ptr<arrow::Array> source = batch.column(field.path[0]);
    for (size_t depth = 1; depth < field.path.size(); ++depth) {
      if (source->type_id() != arrow::Type::STRUCT) {
        return InvalidArgument("Batch column is not a struct where the schema has one");
      }
      // Flattening folds the struct's nulls into the child's.
      SKADE_ASSIGN_OR_RAISE_ARROW(
          source,
          static_cast<const arrow::StructArray&>(*source).GetFlattenedField(field.path[depth]));
    }
    SKADE_ASSIGN_OR_RAISE(auto transformed,
                          ApplyTransform(field.transform, field.source_type, source));
    out.push_back(std::move(transformed));
  }
  return out;
}

Result<std::vector<PartitionedBatch>> PartitionSplitter::Split(
    const std::shared_ptr<arrow::RecordBatch>& batch) const {
  SKADE_ASSIGN_OR_RAISE(auto columns, PartitionColumns(*batch));
  std::vector<KeyAppender> appenders;
  appenders.reserve(columns.size());
  for (const auto& column : columns) appenders.emplace_back(*column);

  std::vector<Group> groups;
  absl::flat_hash_map<std::string, size_t> group_by_key;
  std::string key;
  std::string previous_key;
  size_t previous_group = 0;
  for (int64_t row = 0; row < batch->num_rows(); ++row) {
    key.clear();
    for (const auto& appender : appenders) appender.Append(row, &key);
    // Rows usually arrive clustered by partition: skip the hash lookup
    // while the key repeats.
    size_t group;
    if (row > 0 && key == previous_key) {
      group = previous_group;
    } else {
      auto [it, inserted] = group_by_key.try_emplace(key, groups.size());
      if (inserted) groups.push_back(Group{row, row, {}});
      group = it->second;
      previous_key = key;
      previous_group = group;
    }
    groups[group].rows.push_back(row);
    groups[group].last_row = row;
  }

  std::vector<PartitionedBatch> out;
  out.reserve(groups.size());
  for (const auto& group : groups) {
    PartitionedBatch part;
    for (size_t f = 0; f < fields_.size(); ++f) {
      SKADE_ASSIGN_OR_RAISE(auto value,
                            LiteralFromArrow(*columns[f], group.first_row, fields_[f].result_type));
      part.partition.push_back(std::move(value));
    }
    SKADE_ASSIGN_OR_RAISE(part.batch, TakeRows(batch, group));
    out.push_back(std::move(part));
  }
  return out;
}

}  // namespace skade::data
