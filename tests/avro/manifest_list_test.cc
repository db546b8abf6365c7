#include <gtest/gtest.h>

#include <limits>
#include <utility>
#include <vector>

#include "skade/avro/container_reader.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/spec/json_serde.h"
#include "skade/spec/literal.h"
#include "testing/matchers.h"

namespace skade::avro {
namespace {

using ::skade::testing::IsError;
using ::skade::testing::IsErrorWithMessage;
using ::skade::testing::IsOk;
using spec::Literal;
using spec::ManifestContent;
using spec::ManifestFile;

constexpr int64_t kSnapshotId = 987654321;
constexpr int64_t kParentId = 123456789;

// A manifest written by snapshot `snapshot_id`; sequence numbers unassigned
// unless given.
ManifestFile MakeManifest(int index, int64_t snapshot_id, ManifestContent content,
                          int64_t sequence_number = spec::kUnassignedSequenceNumber) {
  ManifestFile manifest;
  manifest.manifest_path = "s3://bucket/t/metadata/m" + std::to_string(index) + ".avro";
  manifest.manifest_length = 5000 + index;
  manifest.partition_spec_id = index % 2;
  manifest.content = content;
  manifest.sequence_number = sequence_number;
  manifest.min_sequence_number = sequence_number;
  manifest.added_snapshot_id = snapshot_id;
  manifest.added_files_count = 3 + index;
  manifest.existing_files_count = index;
  manifest.deleted_files_count = 1;
  manifest.added_rows_count = 300 + index;
  manifest.existing_rows_count = 20 * index;
  manifest.deleted_rows_count = 7;
  spec::PartitionFieldSummary with_bounds{false, false, Literal::Int(1).ToBytes(),
                                          Literal::Int(9).ToBytes()};
  spec::PartitionFieldSummary nulls_only{true, std::nullopt, std::nullopt, std::nullopt};
  manifest.partitions = {with_bounds, nulls_only};
  if (index == 2) manifest.key_metadata = std::string("\x00key", 4);
  return manifest;
}

std::unique_ptr<ManifestListWriter> MakeWriter(int format_version, int64_t first_row_id = 0,
                                               Codec codec = Codec::kDeflate) {
  ManifestListWriterOptions options;
  options.format_version = format_version;
  options.snapshot_id = kSnapshotId;
  options.parent_snapshot_id = kParentId;
  options.sequence_number = 8;
  options.first_row_id = first_row_id;
  options.avro.codec = codec;
  auto writer = ManifestListWriter::Make(options);
  EXPECT_THAT(writer, IsOk());
  return writer ? std::move(*writer) : nullptr;
}

TEST(ManifestListTest, V2AssignsTheSnapshotSequenceNumberToNewManifests) {
  for (Codec codec : {Codec::kNull, Codec::kDeflate, Codec::kZstandard, Codec::kSnappy}) {
    auto writer = MakeWriter(2, 0, codec);
    ManifestFile fresh = MakeManifest(0, kSnapshotId, ManifestContent::kData);
    ManifestFile older = MakeManifest(1, kParentId, ManifestContent::kData, 5);
    older.min_sequence_number = 2;
    ManifestFile deletes = MakeManifest(2, kSnapshotId, ManifestContent::kDeletes);
    deletes.min_sequence_number = 6;
    for (const ManifestFile& manifest : {fresh, older, deletes}) {
      ASSERT_THAT(writer->Add(manifest), IsOk());
    }
    auto bytes = writer->Finish();
    ASSERT_THAT(bytes, IsOk());

    auto list = ReadManifestList(*bytes);
    ASSERT_THAT(list, IsOk());
    EXPECT_EQ(list->metadata.format_version, 2);
    EXPECT_EQ(list->metadata.snapshot_id, kSnapshotId);
    EXPECT_EQ(list->metadata.parent_snapshot_id, kParentId);
    EXPECT_EQ(list->metadata.sequence_number, 8);
    EXPECT_EQ(list->metadata.first_row_id, std::nullopt);
    ASSERT_EQ(list->manifests.size(), 3u);
    ManifestFile expected_fresh = fresh;
    expected_fresh.sequence_number = 8;
    expected_fresh.min_sequence_number = 8;
    ManifestFile expected_deletes = deletes;
    expected_deletes.sequence_number = 8;
    EXPECT_EQ(list->manifests[0], expected_fresh);
    EXPECT_EQ(list->manifests[1], older);
    EXPECT_EQ(list->manifests[2], expected_deletes);
    EXPECT_EQ(writer->manifests(), list->manifests);
  }
}

TEST(ManifestListTest, UnassignedManifestFromAnotherSnapshotIsRejected) {
  auto writer = MakeWriter(2);
  EXPECT_THAT(writer->Add(MakeManifest(0, kParentId, ManifestContent::kData)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "unassigned"));
  ASSERT_THAT(writer->Add(MakeManifest(1, kSnapshotId, ManifestContent::kData)), IsOk());
  auto list = ReadManifestList(*writer->Finish());
  ASSERT_THAT(list, IsOk());
  ASSERT_EQ(list->manifests.size(), 1u);
  EXPECT_EQ(list->manifests[0].manifest_path,
            MakeManifest(1, 0, ManifestContent::kData).manifest_path);
}

TEST(ManifestListTest, V1HoldsDataManifestsWithoutSequenceNumbers) {
  auto writer = MakeWriter(1);
  EXPECT_THAT(writer->Add(MakeManifest(0, kSnapshotId, ManifestContent::kDeletes)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "v1"));
  ManifestFile manifest = MakeManifest(1, kSnapshotId, ManifestContent::kData);
  ASSERT_THAT(writer->Add(manifest), IsOk());
  auto bytes = writer->Finish();
  ASSERT_THAT(bytes, IsOk());
  auto list = ReadManifestList(*bytes);
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->metadata.format_version, 1);
  EXPECT_EQ(list->metadata.sequence_number, std::nullopt);
  ASSERT_EQ(list->manifests.size(), 1u);
  // v1 lists store no sequence numbers: they read as 0.
  ManifestFile expected = manifest;
  expected.sequence_number = 0;
  expected.min_sequence_number = 0;
  EXPECT_EQ(list->manifests[0], expected);

  auto reader = ContainerReader::Open(*bytes);
  ASSERT_THAT(reader, IsOk());
  std::vector<int32_t> ids;
  for (const Field& field : (*reader)->schema()->fields) ids.push_back(*field.field_id);
  EXPECT_EQ(ids,
            (std::vector<int32_t>{500, 501, 502, 503, 504, 505, 506, 512, 513, 514, 507, 519}));
  EXPECT_FALSE((*reader)->Metadata("sequence-number"));
}

TEST(ManifestListTest, V3AssignsFirstRowIdsToDataManifests) {
  auto writer = MakeWriter(3, 1000);
  ManifestFile first = MakeManifest(0, kSnapshotId, ManifestContent::kData);      // 300 + 0 rows
  ManifestFile assigned = MakeManifest(1, kParentId, ManifestContent::kData, 4);  // keeps its id
  assigned.first_row_id = 17;
  ManifestFile deletes = MakeManifest(2, kSnapshotId, ManifestContent::kDeletes);
  ManifestFile second = MakeManifest(3, kSnapshotId, ManifestContent::kData);  // 303 + 60 rows
  for (const ManifestFile& manifest : {first, assigned, deletes, second}) {
    ASSERT_THAT(writer->Add(manifest), IsOk());
  }
  EXPECT_EQ(writer->next_row_id(), 1000 + 300 + 303 + 60);
  auto bytes = writer->Finish();
  ASSERT_THAT(bytes, IsOk());
  auto list = ReadManifestList(*bytes);
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->metadata.format_version, 3);
  EXPECT_EQ(list->metadata.first_row_id, 1000);
  ASSERT_EQ(list->manifests.size(), 4u);
  EXPECT_EQ(list->manifests[0].first_row_id, 1000);
  EXPECT_EQ(list->manifests[1].first_row_id, 17);
  EXPECT_EQ(list->manifests[2].first_row_id, std::nullopt);
  EXPECT_EQ(list->manifests[3].first_row_id, 1300);
  EXPECT_EQ(list->manifests[3].sequence_number, 8);
  EXPECT_EQ(writer->manifests(), list->manifests);
}

// Row counts can come from a client's list (a rebased append): ones that are
// negative or overflow the row ids fail the manifest, and the writer goes on
// from where it was.
TEST(ManifestListTest, V3RefusesRowCountsThatAreNegativeOrOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto writer = MakeWriter(3, 1000);
  auto with_rows = [](int64_t added, int64_t existing) {
    ManifestFile manifest = MakeManifest(0, kSnapshotId, ManifestContent::kData);
    manifest.added_rows_count = added;
    manifest.existing_rows_count = existing;
    return manifest;
  };
  for (auto [added, existing] : std::vector<std::pair<int64_t, int64_t>>{
           {-5, 0}, {5, -1}, {kMax, 1}, {kMax - 1000, 1}, {kMax / 2 + 1, kMax / 2 + 1}}) {
    EXPECT_THAT(writer->Add(with_rows(added, existing)), IsError(ErrorKind::kInvalidArgument))
        << added << " + " << existing;
    EXPECT_EQ(writer->next_row_id(), 1000);
  }
  ASSERT_THAT(writer->Add(with_rows(kMax - 1001, 1)), IsOk());  // ends at the largest id
  EXPECT_EQ(writer->next_row_id(), kMax);
  EXPECT_THAT(writer->Add(with_rows(1, 0)), IsError(ErrorKind::kInvalidArgument));
}

// What the writer says it wrote is what a reader reads back: the server-side
// rebase caches a list it writes from these (catalog/append_rebase.h), and
// the next rebase builds on that entry instead of the file.
TEST(ManifestListTest, WrittenManifestsAndMetadataAreWhatTheReaderReadsBack) {
  for (int version : {1, 2, 3}) {
    SCOPED_TRACE(version);
    auto writer = MakeWriter(version, 500);
    ManifestFile added = MakeManifest(1, kSnapshotId, ManifestContent::kData);
    ManifestFile carried = MakeManifest(3, kParentId, ManifestContent::kData, 4);
    carried.first_row_id = 40;  // dropped before v3
    for (const ManifestFile& manifest : {added, carried}) {
      ASSERT_THAT(writer->Add(manifest), IsOk());
    }
    ManifestListMetadata metadata = writer->metadata();
    std::vector<ManifestFile> manifests = writer->manifests();
    auto list = ReadManifestList(*writer->Finish());
    ASSERT_THAT(list, IsOk());
    EXPECT_EQ(manifests, list->manifests);
    EXPECT_EQ(metadata.format_version, list->metadata.format_version);
    EXPECT_EQ(metadata.snapshot_id, list->metadata.snapshot_id);
    EXPECT_EQ(metadata.parent_snapshot_id, list->metadata.parent_snapshot_id);
    EXPECT_EQ(metadata.sequence_number, list->metadata.sequence_number);
    EXPECT_EQ(metadata.first_row_id, list->metadata.first_row_id);
  }
}

ManifestListWriterOptions ChildOptions(int format_version) {
  ManifestListWriterOptions options;
  options.format_version = format_version;
  options.snapshot_id = kSnapshotId + 1;
  options.parent_snapshot_id = kSnapshotId;
  options.sequence_number = 9;
  options.first_row_id = 2000;
  return options;
}

// A list that keeps its parent's manifests after its own copies their
// blocks: a reader reads what it would from a list that encodes them again.
TEST(ManifestListTest, CopiedBlocksReadBackAsTheManifestsTheyHold) {
  for (int version : {1, 2, 3}) {
    SCOPED_TRACE(version);
    auto parent = MakeWriter(version, 500);
    ASSERT_THAT(parent->Add(MakeManifest(1, kSnapshotId, ManifestContent::kData)), IsOk());
    ASSERT_THAT(parent->Add(MakeManifest(3, kParentId, ManifestContent::kData, 4)), IsOk());
    ASSERT_THAT(parent->Finish(), IsOk());
    std::shared_ptr<const EncodedManifests> encoded = parent->encoded();
    ASSERT_NE(encoded, nullptr);
    EXPECT_EQ(encoded->block_count, 1);
    EXPECT_EQ(encoded->manifest_count, 2u);

    ManifestListWriterOptions options = ChildOptions(version);
    EXPECT_FALSE(ManifestListWriter::CanCopy(*encoded, options));  // another sync marker
    options.avro.sync_marker = encoded->sync_marker;
    ASSERT_TRUE(ManifestListWriter::CanCopy(*encoded, options));
    ManifestFile added = MakeManifest(5, kSnapshotId + 1, ManifestContent::kData);
    auto child = ManifestListWriter::Make(options);
    ASSERT_THAT(child, IsOk());
    ASSERT_THAT((*child)->Add(added), IsOk());
    ASSERT_THAT((*child)->AddEncoded(*encoded, parent->manifests()), IsOk());
    auto bytes = (*child)->Finish();
    ASSERT_THAT(bytes, IsOk());
    EXPECT_NE(bytes->find(encoded->blocks), std::string::npos);
    EXPECT_EQ((*child)->encoded()->block_count, 2);
    EXPECT_EQ((*child)->encoded()->manifest_count, 3u);
    auto list = ReadManifestList(*bytes);
    ASSERT_THAT(list, IsOk());
    EXPECT_EQ(list->manifests, (*child)->manifests());
    EXPECT_EQ(list->metadata.snapshot_id, kSnapshotId + 1);

    options.avro.sync_marker.reset();
    auto again = ManifestListWriter::Make(options);
    ASSERT_THAT(again, IsOk());
    ASSERT_THAT((*again)->Add(added), IsOk());
    for (const ManifestFile& manifest : parent->manifests()) {
      ASSERT_THAT((*again)->Add(manifest), IsOk());
    }
    auto encoded_again = ReadManifestList(*(*again)->Finish());
    ASSERT_THAT(encoded_again, IsOk());
    EXPECT_EQ(encoded_again->manifests, list->manifests);
  }
}

TEST(ManifestListTest, BlocksAreCopiedOnlyIntoAListOfTheSameShape) {
  auto parent = MakeWriter(2);
  ASSERT_THAT(parent->Add(MakeManifest(1, kSnapshotId, ManifestContent::kData)), IsOk());
  ASSERT_THAT(parent->Finish(), IsOk());
  const EncodedManifests& encoded = *parent->encoded();
  ManifestListWriterOptions options = ChildOptions(2);
  options.avro.sync_marker = encoded.sync_marker;
  ASSERT_TRUE(ManifestListWriter::CanCopy(encoded, options));

  ManifestListWriterOptions other_version = options;
  other_version.format_version = 3;
  EXPECT_FALSE(ManifestListWriter::CanCopy(encoded, other_version));
  ManifestListWriterOptions other_codec = options;
  other_codec.avro.codec = Codec::kZstandard;
  EXPECT_FALSE(ManifestListWriter::CanCopy(encoded, other_codec));
  EncodedManifests many_blocks = encoded;
  many_blocks.block_count = EncodedManifests::kMaxCopiedBlocks;
  EXPECT_FALSE(ManifestListWriter::CanCopy(many_blocks, options));

  auto child = ManifestListWriter::Make(options);
  ASSERT_THAT(child, IsOk());
  EXPECT_THAT((*child)->AddEncoded(many_blocks, parent->manifests()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT((*child)->AddEncoded(encoded, {}), IsError(ErrorKind::kInvalidArgument));
  ASSERT_THAT((*child)->AddEncoded(encoded, parent->manifests()), IsOk());
}

TEST(ManifestListTest, HeaderKeysFollowIcebergJava) {
  ManifestListWriterOptions options;
  options.format_version = 3;
  options.snapshot_id = kSnapshotId;
  options.sequence_number = 1;
  options.first_row_id = 0;
  auto writer = ManifestListWriter::Make(options);
  ASSERT_THAT(writer, IsOk());
  auto bytes = (*writer)->Finish();
  ASSERT_THAT(bytes, IsOk());
  auto reader = ContainerReader::Open(*bytes);
  ASSERT_THAT(reader, IsOk());
  EXPECT_EQ((*reader)->Metadata("snapshot-id"), std::to_string(kSnapshotId));
  EXPECT_EQ((*reader)->Metadata("parent-snapshot-id"), "null");
  EXPECT_EQ((*reader)->Metadata("sequence-number"), "1");
  EXPECT_EQ((*reader)->Metadata("first-row-id"), "0");
  EXPECT_EQ((*reader)->Metadata("format-version"), "3");
  auto schema = spec::SchemaFromJsonString(*(*reader)->Metadata("iceberg.schema"));
  ASSERT_THAT(schema, IsOk());
  EXPECT_NE((*schema)->FindFieldById(520), nullptr);
  const Node& root = *(*reader)->schema();
  EXPECT_EQ(root.name, "manifest_file");
  const Node& partitions = *root.fields[13].type->NonNullBranch();
  EXPECT_EQ(partitions.IntAttribute("element-id"), 508);
  EXPECT_EQ(partitions.items->name, "r508");

  auto list = ReadManifestList(*bytes);
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->metadata.parent_snapshot_id, std::nullopt);
  EXPECT_TRUE(list->manifests.empty());
}

TEST(ManifestListTest, RejectsUnknownVersions) {
  ManifestListWriterOptions options;
  options.format_version = 0;
  EXPECT_THAT(ManifestListWriter::Make(options), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::avro
