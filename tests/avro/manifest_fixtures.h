// Schemas, partition specs and data files shared by the manifest tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/spec/data_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"

namespace skade::avro::testing {

using spec::Literal;
using spec::Type;

// A table schema with a column of every primitive type partitions use.
inline spec::SchemaPtr TestSchema() {
  auto field = [](int32_t id, const char* name, spec::TypePtr type) {
    return spec::NestedField{id, name, std::move(type), false, {}, {}, {}};
  };
  return std::make_shared<spec::Schema>(
      3, std::vector<spec::NestedField>{
             field(1, "id", Type::Long()), field(2, "name", Type::String()),
             field(3, "ts", Type::TimestampTz()), field(4, "price", Type::Decimal(9, 2)),
             field(5, "uid", Type::Uuid()), field(6, "flag", Type::Boolean()),
             field(7, "score", Type::Float()), field(8, "ratio", Type::Double()),
             field(9, "day", Type::Date()), field(10, "payload", Type::Binary()),
             field(11, "code", Type::Fixed(3))});
}

inline spec::PartitionField SpecField(int32_t source, int32_t id, const char* name,
                                      spec::Transform transform) {
  return spec::PartitionField{source, {}, id, name, transform};
}

// identity, bucket, day and truncate partitions (the common ones).
inline spec::PartitionSpecPtr CommonSpec() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->spec_id = 2;
  spec->fields = {SpecField(2, 1000, "name", spec::Transform::Identity()),
                  SpecField(1, 1001, "id_bucket", spec::Transform::Bucket(16)),
                  SpecField(3, 1002, "ts_day", spec::Transform::Day()),
                  SpecField(2, 1003, "name_trunc", spec::Transform::Truncate(4))};
  return spec;
}

// Identity partitions on every other primitive type.
inline spec::PartitionSpecPtr TypedSpec() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->spec_id = 5;
  spec->fields = {SpecField(4, 1000, "price", spec::Transform::Identity()),
                  SpecField(5, 1001, "uid", spec::Transform::Identity()),
                  SpecField(6, 1002, "flag", spec::Transform::Identity()),
                  SpecField(7, 1003, "score", spec::Transform::Identity()),
                  SpecField(8, 1004, "ratio", spec::Transform::Identity()),
                  SpecField(9, 1005, "day", spec::Transform::Identity()),
                  SpecField(10, 1006, "payload", spec::Transform::Identity()),
                  SpecField(11, 1007, "code", spec::Transform::Identity()),
                  SpecField(3, 1008, "ts_month", spec::Transform::Month())};
  return spec;
}

inline spec::PartitionSpecPtr Unpartitioned() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->spec_id = 0;
  return spec;
}

// A data file with metrics; `partition` must match the spec.
inline spec::DataFile MakeDataFile(int index, int32_t spec_id, std::vector<Literal> partition) {
  spec::DataFile file;
  file.file_path = "s3://bucket/table/data/part-" + std::to_string(index) + ".parquet";
  file.file_format = spec::FileFormat::kParquet;
  file.spec_id = spec_id;
  file.partition = std::move(partition);
  file.record_count = 100 + index;
  file.file_size_in_bytes = 4096 + index * 10;
  file.column_sizes = {{1, 800 + index}, {2, 1200}};
  file.value_counts = {{1, 100 + index}, {2, 100 + index}};
  file.null_value_counts = {{1, 0}, {2, index}};
  file.nan_value_counts = {{7, index % 2}};
  file.lower_bounds = {{1, Literal::Long(index).ToBytes()}, {2, "aaa"}};
  file.upper_bounds = {{1, Literal::Long(index + 99).ToBytes()}, {2, std::string("zz\xff", 3)}};
  file.split_offsets = {4, 4000 + index};
  file.sort_order_id = index % 3 == 0 ? std::optional<int32_t>(1) : std::nullopt;
  if (index % 4 == 1) file.key_metadata = std::string("\x00\x01key", 5);
  return file;
}

}  // namespace skade::avro::testing
