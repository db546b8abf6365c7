#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "avro/manifest_fixtures.h"
#include "skade/avro/container_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/avro/manifest_reader.h"
#include "skade/avro/manifest_writer.h"
#include "skade/spec/json_serde.h"
#include "skade/util/uuid.h"
#include "testing/matchers.h"

namespace skade::avro {
namespace {

using ::skade::testing::IsError;
using ::skade::testing::IsErrorWithMessage;
using ::skade::testing::IsOk;
using spec::DataFile;
using spec::DataFileContent;
using spec::Literal;
using spec::ManifestEntry;
using spec::ManifestEntryStatus;
using spec::Type;
using namespace ::skade::avro::testing;

constexpr int64_t kSnapshotId = 7'123'456'789'012'345'678;

// A partition tuple for CommonSpec: identity(name), bucket(id), day(ts),
// truncate(name); some names and days are null.
std::vector<Literal> CommonPartition(const spec::Type& partition_type, int i) {
  const auto& f = partition_type.fields();
  std::string name = std::string("cat-") + static_cast<char>('a' + i % 3);
  return {
      i % 5 == 4 ? Literal::Null(f[0].type) : Literal(f[0].type, name),
      Literal(f[1].type, static_cast<int32_t>(i % 16)),
      i % 7 == 6 ? Literal::Null(f[2].type) : Literal(f[2].type, static_cast<int32_t>(19000 + i)),
      Literal(f[3].type, std::string("cat-"))};
}

std::unique_ptr<ManifestWriter> MakeWriter(
    int format_version, spec::PartitionSpecPtr spec, ContainerWriterOptions avro = {},
    spec::ManifestContent content = spec::ManifestContent::kData) {
  ManifestWriterOptions options;
  options.format_version = format_version;
  options.snapshot_id = kSnapshotId;
  options.content = content;
  options.avro = avro;
  auto writer = ManifestWriter::Make(TestSchema(), std::move(spec), options);
  EXPECT_THAT(writer, IsOk());
  return writer ? std::move(*writer) : nullptr;
}

class ManifestRoundTripTest : public ::testing::TestWithParam<std::tuple<int, Codec>> {};

TEST_P(ManifestRoundTripTest, EntriesAndMetadataRoundTrip) {
  auto [version, codec] = GetParam();
  auto spec = CommonSpec();
  auto writer = MakeWriter(version, spec, {.codec = codec, .block_size = 512});
  std::vector<DataFile> files;
  int64_t rows = 0;
  for (int i = 0; i < 40; ++i) {
    files.push_back(MakeDataFile(i, spec->spec_id, CommonPartition(*writer->partition_type(), i)));
    rows += files.back().record_count;
    ASSERT_THAT(writer->Add(files.back()), IsOk());
  }
  auto written = writer->Finish("s3://bucket/table/metadata/m0.avro");
  ASSERT_THAT(written, IsOk());

  const spec::ManifestFile& summary = written->manifest_file;
  EXPECT_EQ(summary.manifest_path, "s3://bucket/table/metadata/m0.avro");
  EXPECT_EQ(summary.manifest_length, static_cast<int64_t>(written->bytes.size()));
  EXPECT_EQ(summary.partition_spec_id, 2);
  EXPECT_EQ(summary.added_snapshot_id, kSnapshotId);
  EXPECT_EQ(summary.added_files_count, 40);
  EXPECT_EQ(summary.added_rows_count, rows);
  EXPECT_EQ(summary.existing_files_count + summary.deleted_files_count, 0);
  EXPECT_EQ(summary.sequence_number, spec::kUnassignedSequenceNumber);
  EXPECT_EQ(summary.min_sequence_number, spec::kUnassignedSequenceNumber);
  ASSERT_EQ(summary.partitions.size(), 4u);

  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->metadata.format_version, version);
  EXPECT_EQ(manifest->metadata.partition_spec_id, 2);
  EXPECT_EQ(manifest->metadata.schema_id, 3);
  EXPECT_EQ(manifest->metadata.content, spec::ManifestContent::kData);
  auto schema = spec::SchemaFromJsonString(manifest->metadata.schema_json);
  ASSERT_THAT(schema, IsOk());
  EXPECT_TRUE((*schema)->SameSchema(*TestSchema()));
  EXPECT_TRUE(spec::TypeEquals(manifest->partition_type, writer->partition_type()));

  ASSERT_EQ(manifest->entries.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const ManifestEntry& entry = manifest->entries[i];
    EXPECT_EQ(entry.status, ManifestEntryStatus::kAdded);
    EXPECT_EQ(entry.snapshot_id, kSnapshotId);
    // v1 has no sequence numbers: they read as 0. Later versions inherit.
    std::optional<int64_t> expected_sequence =
        version == 1 ? std::optional<int64_t>(0) : std::nullopt;
    EXPECT_EQ(entry.sequence_number, expected_sequence);
    EXPECT_EQ(entry.file_sequence_number, expected_sequence);
    EXPECT_EQ(entry.data_file, files[i]) << i;
  }

  // Planning's read: everything but the column sizes.
  auto planning = ReadManifest(written->bytes, {.skip_column_sizes = true});
  ASSERT_THAT(planning, IsOk());
  ASSERT_EQ(planning->entries.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    DataFile expected = files[i];
    ASSERT_FALSE(expected.column_sizes.empty());
    expected.column_sizes.clear();
    EXPECT_EQ(planning->entries[i].data_file, expected) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(VersionsAndCodecs, ManifestRoundTripTest,
                         ::testing::Combine(::testing::Values(1, 2, 3),
                                            ::testing::Values(Codec::kNull, Codec::kDeflate,
                                                              Codec::kZstandard, Codec::kSnappy)),
                         [](const auto& info) {
                           return "v" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(CodecName(std::get<1>(info.param)));
                         });

TEST(ManifestTest, UnpartitionedManifestRoundTrips) {
  auto writer = MakeWriter(2, Unpartitioned());
  ASSERT_THAT(writer->Add(MakeDataFile(1, 0, {})), IsOk());
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  EXPECT_TRUE(written->manifest_file.partitions.empty());
  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  ASSERT_EQ(manifest->entries.size(), 1u);
  EXPECT_EQ(manifest->entries[0].data_file, MakeDataFile(1, 0, {}));
}

// Writers build a manifest's header once per schema, spec, version and
// content, and keep a bounded number: every writer still writes its own,
// through more shapes than are kept and back to ones seen before.
TEST(ManifestTest, WritersOfManyShapesEachWriteTheirOwnHeader) {
  std::vector<spec::PartitionSpecPtr> specs;
  for (int32_t i = 0; i < 80; ++i) {
    auto spec =
        std::make_shared<spec::PartitionSpec>(i % 2 == 0 ? *Unpartitioned() : *CommonSpec());
    spec->spec_id = i;
    specs.push_back(std::move(spec));
  }
  spec::SchemaPtr other_schema = std::make_shared<spec::Schema>(
      9, std::vector<spec::NestedField>{{1, "id", Type::Long(), false, {}, {}, {}},
                                        {2, "name", Type::String(), false, {}, {}, {}},
                                        {3, "ts", Type::TimestampTz(), false, {}, {}, {}}});
  for (int round = 0; round < 2; ++round) {
    for (int32_t i = 0; i < 80; ++i) {
      const bool partitioned = i % 2 == 1;
      ManifestWriterOptions options;
      options.format_version = 1 + i % 3;
      options.snapshot_id = kSnapshotId;
      options.content = options.format_version >= 2 && i % 4 == 3 ? spec::ManifestContent::kDeletes
                                                                  : spec::ManifestContent::kData;
      spec::SchemaPtr schema = i % 5 == 0 ? other_schema : TestSchema();
      auto writer = ManifestWriter::Make(schema, specs[i], options);
      ASSERT_THAT(writer, IsOk());
      DataFile file = MakeDataFile(i, i, {});
      if (partitioned) file.partition = CommonPartition(*(*writer)->partition_type(), i);
      if (options.content == spec::ManifestContent::kDeletes) {
        file.content = DataFileContent::kPositionDeletes;
      }
      ASSERT_THAT((*writer)->Add(file), IsOk());
      auto written = (*writer)->Finish("m.avro");
      ASSERT_THAT(written, IsOk());
      auto manifest = ReadManifest(written->bytes);
      ASSERT_THAT(manifest, IsOk());
      EXPECT_EQ(manifest->metadata.partition_spec_id, i);
      EXPECT_EQ(manifest->metadata.format_version, options.format_version);
      EXPECT_EQ(manifest->metadata.content, options.content);
      EXPECT_EQ(manifest->metadata.schema_id, schema->schema_id());
      EXPECT_EQ(manifest->metadata.schema_json, spec::SchemaToJson(*schema));
      EXPECT_EQ(manifest->partition_type->fields().size(), partitioned ? 4u : 0u);
      ASSERT_EQ(manifest->entries.size(), 1u);
      EXPECT_EQ(manifest->entries[0].data_file.file_path, file.file_path);
      EXPECT_EQ(manifest->entries[0].data_file.partition, file.partition);
    }
  }
}

TEST(ManifestTest, PartitionSummariesOfCommonTransforms) {
  auto writer = MakeWriter(2, CommonSpec());
  const spec::Type& type = *writer->partition_type();
  const auto& f = type.fields();
  // name: "b", null, "a"; bucket: 7, 3, 12; day: 19500, 19400, null.
  std::vector<std::vector<Literal>> tuples = {
      {Literal(f[0].type, std::string("b")), Literal(f[1].type, int32_t{7}),
       Literal(f[2].type, int32_t{19500}), Literal(f[3].type, std::string("b"))},
      {Literal::Null(f[0].type), Literal(f[1].type, int32_t{3}), Literal(f[2].type, int32_t{19400}),
       Literal::Null(f[3].type)},
      {Literal(f[0].type, std::string("a")), Literal(f[1].type, int32_t{12}),
       Literal::Null(f[2].type), Literal(f[3].type, std::string("a"))},
  };
  for (size_t i = 0; i < tuples.size(); ++i) {
    ASSERT_THAT(writer->Add(MakeDataFile(static_cast<int>(i), 2, tuples[i])), IsOk());
  }
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  const auto& summaries = written->manifest_file.partitions;
  ASSERT_EQ(summaries.size(), 4u);
  EXPECT_TRUE(summaries[0].contains_null);
  EXPECT_EQ(summaries[0].contains_nan, false);
  EXPECT_EQ(summaries[0].lower_bound, "a");
  EXPECT_EQ(summaries[0].upper_bound, "b");
  EXPECT_FALSE(summaries[1].contains_null);
  EXPECT_EQ(summaries[1].lower_bound, Literal::Int(3).ToBytes());
  EXPECT_EQ(summaries[1].upper_bound, Literal::Int(12).ToBytes());
  EXPECT_TRUE(summaries[2].contains_null);
  EXPECT_EQ(summaries[2].lower_bound, Literal::Date(19400).ToBytes());
  EXPECT_EQ(summaries[2].upper_bound, Literal::Date(19500).ToBytes());
  EXPECT_TRUE(summaries[3].contains_null);
}

std::string UuidBytes(uint8_t first) {
  std::string bytes(16, '\x11');
  bytes[0] = static_cast<char>(first);
  return bytes;
}

// Partition tuples over TypedSpec: decimal, uuid, boolean, float, double,
// date, binary, fixed, month.
std::vector<std::vector<Literal>> TypedTuples(const spec::Type& type) {
  const auto& f = type.fields();
  auto t = [&](size_t i, Literal::Value value) { return Literal(f[i].type, std::move(value)); };
  float nan = std::numeric_limits<float>::quiet_NaN();
  return {
      {t(0, std::string("\x30\x39")), t(1, UuidBytes(0x80)), t(2, true), t(3, 0.0f), t(4, 1.5),
       t(5, int32_t{3}), t(6, std::string("\x80")), t(7, std::string("abd")), t(8, int32_t{601})},
      {t(0, std::string("\xff")), t(1, UuidBytes(0x7f)), t(2, false), t(3, -0.0f), t(4, -3.25),
       t(5, int32_t{1}), t(6, std::string("\x7f")), t(7, std::string("abc")), t(8, int32_t{600})},
      {t(0, std::string("\xff\x38")), Literal::Null(f[1].type), t(2, true), t(3, nan),
       Literal::Null(f[4].type), t(5, int32_t{2}), t(6, std::string("\x7f\x00", 2)),
       t(7, std::string("abc")), t(8, int32_t{600})},
  };
}

TEST(ManifestTest, PartitionSummariesOrderEveryTypeAsIcebergDoes) {
  auto writer = MakeWriter(2, TypedSpec());
  const spec::Type& type = *writer->partition_type();
  auto tuples = TypedTuples(type);
  for (size_t i = 0; i < tuples.size(); ++i) {
    ASSERT_THAT(writer->Add(MakeDataFile(static_cast<int>(i), 5, tuples[i])), IsOk());
  }
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  const auto& s = written->manifest_file.partitions;
  ASSERT_EQ(s.size(), 9u);
  auto bytes = [&](size_t field, Literal::Value value) {
    return std::optional<std::string>(
        Literal(type.fields()[field].type, std::move(value)).ToBytes());
  };
  // Decimals by value: -200 < -1 < 12345.
  EXPECT_EQ(s[0].lower_bound, std::string("\xff\x38"));
  EXPECT_EQ(s[0].upper_bound, std::string("\x30\x39"));
  // UUIDs as unsigned bytes.
  EXPECT_EQ(s[1].lower_bound, UuidBytes(0x7f));
  EXPECT_EQ(s[1].upper_bound, UuidBytes(0x80));
  EXPECT_TRUE(s[1].contains_null);
  EXPECT_EQ(s[2].lower_bound, bytes(2, false));
  EXPECT_EQ(s[2].upper_bound, bytes(2, true));
  // -0.0 sorts before +0.0; NaN is flagged and excluded from the bounds.
  EXPECT_EQ(s[3].contains_nan, true);
  EXPECT_EQ(s[3].lower_bound, bytes(3, -0.0f));
  EXPECT_EQ(s[3].upper_bound, bytes(3, 0.0f));
  EXPECT_NE(s[3].lower_bound, s[3].upper_bound);
  EXPECT_EQ(s[4].contains_nan, false);
  EXPECT_TRUE(s[4].contains_null);
  EXPECT_EQ(s[4].lower_bound, bytes(4, -3.25));
  EXPECT_EQ(s[4].upper_bound, bytes(4, 1.5));
  EXPECT_EQ(s[5].lower_bound, bytes(5, int32_t{1}));
  EXPECT_EQ(s[5].upper_bound, bytes(5, int32_t{3}));
  // Binary as unsigned bytes; a prefix sorts first.
  EXPECT_EQ(s[6].lower_bound, std::string("\x7f"));
  EXPECT_EQ(s[6].upper_bound, std::string("\x80"));
  EXPECT_EQ(s[7].lower_bound, "abc");
  EXPECT_EQ(s[7].upper_bound, "abd");
  EXPECT_EQ(s[8].lower_bound, bytes(8, int32_t{600}));
  EXPECT_EQ(s[8].upper_bound, bytes(8, int32_t{601}));
}

TEST(ManifestTest, EveryPartitionTypeRoundTrips) {
  for (int version : {1, 2, 3}) {
    auto writer = MakeWriter(version, TypedSpec());
    auto tuples = TypedTuples(*writer->partition_type());
    for (size_t i = 0; i < tuples.size(); ++i) {
      ASSERT_THAT(writer->Add(MakeDataFile(static_cast<int>(i), 5, tuples[i])), IsOk());
    }
    auto written = writer->Finish("m.avro");
    ASSERT_THAT(written, IsOk());
    // Read with the types derived from the file, and with the caller's.
    for (spec::TypePtr partition_type : {spec::TypePtr(), writer->partition_type()}) {
      auto manifest = ReadManifest(written->bytes, {.partition_type = partition_type});
      ASSERT_THAT(manifest, IsOk());
      EXPECT_TRUE(spec::TypeEquals(manifest->partition_type, writer->partition_type()));
      ASSERT_EQ(manifest->entries.size(), tuples.size());
      for (size_t i = 0; i < tuples.size(); ++i) {
        const auto& read = manifest->entries[i].data_file.partition;
        ASSERT_EQ(read.size(), tuples[i].size());
        for (size_t k = 0; k < read.size(); ++k) {
          const float* nan = std::get_if<float>(&tuples[i][k].value());
          if (nan != nullptr && std::isnan(*nan)) {
            EXPECT_TRUE(std::isnan(std::get<float>(read[k].value())));
          } else {
            EXPECT_EQ(read[k], tuples[i][k]) << "v" << version << " file " << i << " field " << k;
          }
        }
      }
    }
  }
}

TEST(ManifestTest, DecimalsAreSignExtendedToTheirFixedSize) {
  auto writer = MakeWriter(2, TypedSpec(), {.codec = Codec::kNull});
  auto tuples = TypedTuples(*writer->partition_type());
  ASSERT_THAT(writer->Add(MakeDataFile(0, 5, tuples[1])), IsOk());
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  // decimal(9, 2) takes 4 bytes in Avro: -1 is ff ff ff ff.
  EXPECT_NE(written->bytes.find(std::string("\x02\xff\xff\xff\xff", 5)), std::string::npos);
}

TEST(ManifestTest, AvroSchemaHasIcebergNamesAndIds) {
  for (int version : {1, 2, 3}) {
    auto writer = MakeWriter(version, CommonSpec());
    ASSERT_THAT(writer->Add(MakeDataFile(0, 2, CommonPartition(*writer->partition_type(), 0))),
                IsOk());
    auto written = writer->Finish("m.avro");
    ASSERT_THAT(written, IsOk());
    auto reader = ContainerReader::Open(written->bytes);
    ASSERT_THAT(reader, IsOk());
    const Node& entry = *(*reader)->schema();
    EXPECT_EQ(entry.name, "manifest_entry");
    std::vector<int32_t> entry_ids;
    for (const Field& field : entry.fields) entry_ids.push_back(*field.field_id);
    const Node& data_file = *entry.fields.back().type;
    EXPECT_EQ(data_file.name, "r2");
    std::vector<int32_t> ids;
    for (const Field& field : data_file.fields) ids.push_back(*field.field_id);
    const Node& partition = *data_file.fields[version == 1 ? 2 : 3].type;
    EXPECT_EQ(partition.name, "r102");
    ASSERT_EQ(partition.fields.size(), 4u);
    EXPECT_EQ(partition.fields[2].field_id, 1002);
    EXPECT_EQ(partition.fields[2].type->NonNullBranch()->logical_type, "date");
    if (version == 1) {
      EXPECT_EQ(entry_ids, (std::vector<int32_t>{0, 1, 2}));
      EXPECT_EQ(entry.fields[1].type->type, AvroType::kLong);  // required in v1
      EXPECT_EQ(ids, (std::vector<int32_t>{100, 101, 102, 103, 104, 105, 108, 109, 110, 137, 125,
                                           128, 131, 132, 140}));
      EXPECT_FALSE((*reader)->Metadata("content"));
    } else {
      EXPECT_EQ(entry_ids, (std::vector<int32_t>{0, 1, 3, 4, 2}));
      std::vector<int32_t> expected = {134, 100, 101, 102, 103, 104, 108, 109,
                                       110, 137, 125, 128, 131, 132, 135, 140};
      if (version == 3) expected.push_back(142);
      expected.push_back(143);
      if (version == 3) expected.insert(expected.end(), {144, 145});
      EXPECT_EQ(ids, expected);
      EXPECT_EQ((*reader)->Metadata("content"), "data");
    }
    const Node& column_sizes = *data_file.fields[version == 1 ? 6 : 6].type->NonNullBranch();
    EXPECT_EQ(column_sizes.logical_type, "map");
    EXPECT_EQ(column_sizes.items->name, "k117_v118");
    const Field& split_offsets = data_file.fields[version == 1 ? 13 : 13];
    EXPECT_EQ(split_offsets.field_id, 132);
    EXPECT_EQ(split_offsets.type->NonNullBranch()->IntAttribute("element-id"), 133);

    EXPECT_EQ((*reader)->Metadata("format-version"), std::to_string(version));
    EXPECT_EQ((*reader)->Metadata("partition-spec-id"), "2");
    EXPECT_EQ((*reader)->Metadata("schema-id"), "3");
    auto iceberg_schema = spec::SchemaFromJsonString(*(*reader)->Metadata("iceberg.schema"));
    ASSERT_THAT(iceberg_schema, IsOk());
    EXPECT_NE((*iceberg_schema)->FindFieldById(1002), nullptr);
    simdjson::dom::parser parser;
    auto fields = json::Parse(parser, *(*reader)->Metadata("partition-spec"));
    ASSERT_THAT(fields, IsOk());
    auto array = json::AsArray(*fields, "partition-spec");
    ASSERT_THAT(array, IsOk());
    size_t i = 0;
    for (json::Element element : *array) {
      auto field = spec::PartitionFieldFromJson(element);
      ASSERT_THAT(field, IsOk());
      EXPECT_EQ(*field, CommonSpec()->fields[i++]);
    }
    EXPECT_EQ(i, 4u);
  }
}

TEST(ManifestTest, ExistingAndDeletedEntriesKeepTheirSequenceNumbers) {
  auto writer = MakeWriter(2, CommonSpec());
  const spec::Type& type = *writer->partition_type();
  ManifestEntry existing{ManifestEntryStatus::kAdded, 42, 5, 6,
                         MakeDataFile(0, 2, CommonPartition(type, 0))};
  ManifestEntry deleted{ManifestEntryStatus::kExisting, 43, 1, 1,
                        MakeDataFile(1, 2, CommonPartition(type, 1))};
  ASSERT_THAT(writer->Existing(existing), IsOk());
  ASSERT_THAT(writer->Delete(deleted), IsOk());
  ASSERT_THAT(writer->Add(MakeDataFile(2, 2, CommonPartition(type, 2)), 3), IsOk());
  ASSERT_THAT(writer->Add(MakeDataFile(3, 2, CommonPartition(type, 3))), IsOk());
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  const spec::ManifestFile& summary = written->manifest_file;
  EXPECT_EQ(summary.added_files_count, 2);
  EXPECT_EQ(summary.existing_files_count, 1);
  EXPECT_EQ(summary.deleted_files_count, 1);
  EXPECT_EQ(summary.existing_rows_count, 100);
  EXPECT_EQ(summary.deleted_rows_count, 101);
  EXPECT_EQ(summary.added_rows_count, 102 + 103);
  // The lowest data sequence number of live entries (the deleted 1 is not).
  EXPECT_EQ(summary.min_sequence_number, 3);

  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  const auto& entries = manifest->entries;
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].status, ManifestEntryStatus::kExisting);
  EXPECT_EQ(entries[0].snapshot_id, 42);
  EXPECT_EQ(entries[0].sequence_number, 5);
  EXPECT_EQ(entries[0].file_sequence_number, 6);
  EXPECT_EQ(entries[1].status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ(entries[1].snapshot_id, kSnapshotId);
  EXPECT_EQ(entries[1].sequence_number, 1);
  EXPECT_EQ(entries[2].sequence_number, 3);
  EXPECT_EQ(entries[2].file_sequence_number, std::nullopt);
  EXPECT_EQ(entries[3].sequence_number, std::nullopt);

  // Inheritance from the manifest list entry.
  spec::ManifestFile listed = summary;
  listed.sequence_number = 9;
  listed.min_sequence_number = 3;
  std::vector<ManifestEntry> inherited = entries;
  ASSERT_THAT(InheritFromManifestFile(listed, &inherited), IsOk());
  EXPECT_EQ(inherited[0].sequence_number, 5);
  EXPECT_EQ(inherited[1].sequence_number, 1);
  EXPECT_EQ(inherited[2].sequence_number, 3);
  EXPECT_EQ(inherited[2].file_sequence_number, 9);
  EXPECT_EQ(inherited[3].sequence_number, 9);
  EXPECT_EQ(inherited[3].file_sequence_number, 9);
  EXPECT_EQ(inherited[3].data_file.spec_id, 2);
  listed.sequence_number = spec::kUnassignedSequenceNumber;
  EXPECT_THAT(InheritFromManifestFile(listed, &inherited), IsError(ErrorKind::kInvalidArgument));
}

TEST(ManifestTest, NullSnapshotIdsAreInherited) {
  auto writer = MakeWriter(2, Unpartitioned());
  ManifestEntry entry{ManifestEntryStatus::kExisting, 11, 2, 2, MakeDataFile(0, 0, {})};
  ASSERT_THAT(writer->Existing(entry), IsOk());
  auto written = writer->Finish("m.avro");
  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  manifest->entries[0].snapshot_id.reset();
  spec::ManifestFile listed = written->manifest_file;
  listed.sequence_number = 4;
  ASSERT_THAT(InheritFromManifestFile(listed, &manifest->entries), IsOk());
  EXPECT_EQ(manifest->entries[0].snapshot_id, kSnapshotId);
  // Existing entries keep their own sequence numbers.
  EXPECT_EQ(manifest->entries[0].sequence_number, 2);
}

TEST(ManifestTest, V1EntriesInheritSequenceNumberZero) {
  auto writer = MakeWriter(1, Unpartitioned());
  ManifestEntry entry{ManifestEntryStatus::kExisting, 11, std::nullopt, std::nullopt,
                      MakeDataFile(0, 0, {})};
  ASSERT_THAT(writer->Existing(entry), IsOk());
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->metadata.format_version, 1);
  EXPECT_EQ(manifest->entries[0].sequence_number, 0);
  EXPECT_EQ(manifest->entries[0].status, ManifestEntryStatus::kExisting);
}

TEST(ManifestTest, FirstRowIdsAreInheritedInFileOrder) {
  auto writer = MakeWriter(3, Unpartitioned());
  DataFile assigned = MakeDataFile(1, 0, {});
  assigned.first_row_id = 5;
  ASSERT_THAT(writer->Add(MakeDataFile(0, 0, {})), IsOk());  // 100 rows
  ASSERT_THAT(writer->Existing({ManifestEntryStatus::kExisting, 1, 1, 1, assigned}), IsOk());
  ASSERT_THAT(writer->Delete({ManifestEntryStatus::kExisting, 1, 1, 1, MakeDataFile(2, 0, {})}),
              IsOk());
  ASSERT_THAT(writer->Add(MakeDataFile(3, 0, {})), IsOk());  // 103 rows
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  auto& entries = manifest->entries;
  EXPECT_EQ(entries[0].data_file.first_row_id, std::nullopt);
  EXPECT_EQ(entries[1].data_file.first_row_id, 5);

  spec::ManifestFile listed = written->manifest_file;
  listed.sequence_number = 3;
  listed.first_row_id = 1000;
  std::vector<ManifestEntry> inherited = entries;
  ASSERT_THAT(InheritFromManifestFile(listed, &inherited), IsOk());
  EXPECT_EQ(inherited[0].data_file.first_row_id, 1000);
  EXPECT_EQ(inherited[1].data_file.first_row_id, 5);
  EXPECT_EQ(inherited[2].data_file.first_row_id, std::nullopt);  // deleted
  EXPECT_EQ(inherited[3].data_file.first_row_id, 1100);
  // A manifest without a first_row_id assigns none (and clears stale ones).
  listed.first_row_id.reset();
  inherited = entries;
  ASSERT_THAT(InheritFromManifestFile(listed, &inherited), IsOk());
  EXPECT_EQ(inherited[1].data_file.first_row_id, std::nullopt);
}

TEST(ManifestTest, DeleteManifestsHoldDeleteFiles) {
  auto writer = MakeWriter(3, Unpartitioned(), {}, spec::ManifestContent::kDeletes);
  DataFile deletes = MakeDataFile(0, 0, {});
  deletes.content = DataFileContent::kPositionDeletes;
  deletes.file_format = spec::FileFormat::kPuffin;
  deletes.referenced_data_file = "s3://bucket/table/data/part-9.parquet";
  deletes.content_offset = 4;
  deletes.content_size_in_bytes = 40;
  DataFile equality = MakeDataFile(1, 0, {});
  equality.content = DataFileContent::kEqualityDeletes;
  equality.equality_ids = {1, 2};
  ASSERT_THAT(writer->Add(deletes), IsOk());
  ASSERT_THAT(writer->Add(equality), IsOk());
  EXPECT_THAT(writer->Add(MakeDataFile(2, 0, {})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "delete manifest"));
  auto written = writer->Finish("d.avro");
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(written->manifest_file.content, spec::ManifestContent::kDeletes);
  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->metadata.content, spec::ManifestContent::kDeletes);
  ASSERT_EQ(manifest->entries.size(), 2u);
  EXPECT_EQ(manifest->entries[0].data_file, deletes);
  EXPECT_EQ(manifest->entries[1].data_file, equality);
}

TEST(ManifestTest, InvalidEntriesAreRejectedAndTheWriterStaysUsable) {
  auto writer = MakeWriter(2, CommonSpec());
  const spec::Type& type = *writer->partition_type();
  EXPECT_THAT(writer->Add(MakeDataFile(0, 2, {})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Partition tuple"));
  auto wrong = CommonPartition(type, 0);
  wrong[1] = Literal::Long(3);  // bucket values are ints
  EXPECT_THAT(writer->Add(MakeDataFile(0, 2, wrong)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "id_bucket"));
  DataFile deletes = MakeDataFile(0, 2, CommonPartition(type, 0));
  deletes.content = DataFileContent::kPositionDeletes;
  EXPECT_THAT(writer->Add(deletes),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "data manifest"));
  ManifestEntry unsequenced{ManifestEntryStatus::kExisting, 1, std::nullopt, std::nullopt,
                            MakeDataFile(0, 2, CommonPartition(type, 0))};
  EXPECT_THAT(writer->Existing(unsequenced),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "inherit"));
  ManifestEntry no_snapshot{ManifestEntryStatus::kExisting, std::nullopt, 1, 1,
                            MakeDataFile(0, 2, CommonPartition(type, 0))};
  EXPECT_THAT(writer->Existing(no_snapshot), IsError(ErrorKind::kInvalidArgument));

  ASSERT_THAT(writer->Add(MakeDataFile(7, 2, CommonPartition(type, 7))), IsOk());
  auto written = writer->Finish("m.avro");
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(written->manifest_file.added_files_count, 1);
  auto manifest = ReadManifest(written->bytes);
  ASSERT_THAT(manifest, IsOk());
  ASSERT_EQ(manifest->entries.size(), 1u);
  EXPECT_EQ(manifest->entries[0].data_file.file_path, MakeDataFile(7, 2, {}).file_path);
}

TEST(ManifestTest, DecimalTooWideForItsPrecisionIsRejected) {
  auto writer = MakeWriter(2, TypedSpec());
  auto tuple = TypedTuples(*writer->partition_type())[0];
  tuple[0] = Literal(tuple[0].type(), std::string("\x01\x00\x00\x00\x00", 5));
  EXPECT_THAT(writer->Add(MakeDataFile(0, 5, tuple)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Decimal"));
}

TEST(ManifestTest, WriterRejectsBadConfigurations) {
  ManifestWriterOptions options;
  options.format_version = 4;
  EXPECT_THAT(ManifestWriter::Make(TestSchema(), CommonSpec(), options),
              IsError(ErrorKind::kInvalidArgument));
  options.format_version = 1;
  options.content = spec::ManifestContent::kDeletes;
  EXPECT_THAT(ManifestWriter::Make(TestSchema(), CommonSpec(), options),
              IsError(ErrorKind::kInvalidArgument));
  auto bad_spec = std::make_shared<spec::PartitionSpec>();
  bad_spec->fields = {SpecField(6, 1000, "flag_bucket", spec::Transform::Day())};
  EXPECT_THAT(ManifestWriter::Make(TestSchema(), bad_spec, {}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(ManifestTest, WritesThroughFileIOAndReadsWithInheritance) {
  std::string dir = (std::filesystem::temp_directory_path() / ("skade-avro-" + NewUuid())).string();
  auto io = io::NewLocalFileIO();
  auto writer = MakeWriter(2, CommonSpec());
  for (int i = 0; i < 3; ++i) {
    ASSERT_THAT(writer->Add(MakeDataFile(i, 2, CommonPartition(*writer->partition_type(), i))),
                IsOk());
  }
  std::string location = "file://" + dir + "/metadata/m0.avro";
  auto manifest_file = writer->WriteTo(*io, location, false);
  ASSERT_THAT(manifest_file, IsOk());
  EXPECT_EQ(*io->FileSize(location), manifest_file->manifest_length);

  ManifestListWriterOptions list_options;
  list_options.snapshot_id = kSnapshotId;
  list_options.sequence_number = 12;
  auto list_writer = ManifestListWriter::Make(list_options);
  ASSERT_THAT(list_writer, IsOk());
  ASSERT_THAT((*list_writer)->Add(*manifest_file), IsOk());
  const spec::ManifestFile& listed = (*list_writer)->manifests()[0];
  EXPECT_EQ(listed.sequence_number, 12);
  auto entries = ReadManifestEntries(*io, listed);
  ASSERT_THAT(entries, IsOk());
  ASSERT_EQ(entries->size(), 3u);
  for (const ManifestEntry& entry : *entries) {
    EXPECT_EQ(entry.sequence_number, 12);
    EXPECT_EQ(entry.file_sequence_number, 12);
  }
  // Manifests are never overwritten.
  auto again = MakeWriter(2, CommonSpec());
  EXPECT_THAT(again->WriteTo(*io, location, false), IsError(ErrorKind::kAlreadyExists));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace skade::avro
