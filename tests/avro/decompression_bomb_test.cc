// Review finding: a small deflate manifest of millions of identical entries
// made the server allocate without bound (60 KB: +360 MB; 3.6 MB:
// std::bad_alloc). Reading a manifest or manifest list now stops, with
// kInvalidArgument naming the file and the limit, once what it parsed would
// pass ContainerReaderOptions::max_decoded_bytes — before that memory is
// allocated.
#include <gtest/gtest.h>

#include <string>

#include "avro/manifest_bomb.h"
#include "avro/manifest_fixtures.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/avro/manifest_reader.h"
#include "skade/avro/manifest_writer.h"
#include "testing/matchers.h"

namespace skade::avro {
namespace {

using ::skade::testing::IsError;
using ::skade::testing::IsErrorWithMessage;
using ::skade::testing::IsOk;
using namespace ::skade::avro::testing;

// A one-entry manifest without metrics, the smallest entry on the wire.
std::string OneEntryManifest(spec::DataFile file) {
  ManifestWriterOptions options;
  options.snapshot_id = 7;
  auto writer = *ManifestWriter::Make(TestSchema(), Unpartitioned(), options);
  EXPECT_THAT(writer->Add(file), IsOk());
  return writer->Finish("m.avro")->bytes;
}

spec::DataFile SmallFile() {
  spec::DataFile file;
  file.file_path = "s3://b/x.parquet";
  file.record_count = 1;
  file.file_size_in_bytes = 1;
  return file;
}

TEST(DecompressionBombTest, TheReviewBombIsRefusedUnderTheDefaultLimit) {
  // Enough entries that their slots alone pass the limit: 35 MB inflated,
  // in a file of a few tens of KB. The old reader parsed them all (~1 GB).
  const int64_t copies =
      (ContainerReaderOptions{}.max_decoded_bytes / sizeof(spec::ManifestEntry)) + 1;
  const std::string bomb = ManifestBomb(OneEntryManifest(SmallFile()), copies);
  ASSERT_LT(bomb.size(), 1u << 20);
  EXPECT_THAT(ReadManifest(bomb, {}, "s3://b/bomb.avro"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "manifest s3://b/bomb.avro holds more than 512 MiB of entries "
                                 "once parsed; skade reads at most 512 MiB"));
}

TEST(DecompressionBombTest, TheLimitIsWhatRefusesTheBomb) {
  const std::string bomb = ManifestBomb(OneEntryManifest(SmallFile()), 5000);
  ManifestReaderOptions options;
  options.avro.max_decoded_bytes = 1 << 20;
  options.avro.decoded_bytes_per_file_byte = 0;
  EXPECT_THAT(ReadManifest(bomb, options, "bomb.avro"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "manifest bomb.avro holds more than 1 MiB of entries"));
  options.avro.max_decoded_bytes = 64 << 20;
  auto read = ReadManifest(bomb, options);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->entries.size(), 5000u);
}

TEST(DecompressionBombTest, OneEntryWithAHugeMapStopsWhileItIsRead) {
  // Map entries of a few bytes each take ~80 in memory: one entry may
  // weigh as much as a million small ones.
  spec::DataFile file = SmallFile();
  for (int32_t id = 1; id <= 20000; ++id) file.lower_bounds[id] = "v";
  const std::string manifest = OneEntryManifest(file);
  ManifestReaderOptions options;
  options.avro.max_decoded_bytes = 256 << 10;
  options.avro.decoded_bytes_per_file_byte = 0;
  EXPECT_THAT(ReadManifest(manifest, options),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "manifest holds more than 262144 bytes of entries"));
  options.avro.max_decoded_bytes = 16 << 20;
  EXPECT_THAT(ReadManifest(manifest, options), IsOk());
}

TEST(DecompressionBombTest, AManifestListOfManyEntriesIsRefused) {
  ManifestListWriterOptions options;
  options.snapshot_id = 7;
  options.sequence_number = 1;
  auto writer = *ManifestListWriter::Make(options);
  for (int i = 0; i < 2000; ++i) {
    spec::ManifestFile manifest;
    manifest.manifest_path = "s3://b/table/metadata/a-manifest-of-the-table-m0.avro";
    manifest.manifest_length = 100;
    manifest.added_snapshot_id = 7;
    manifest.sequence_number = spec::kUnassignedSequenceNumber;
    manifest.min_sequence_number = spec::kUnassignedSequenceNumber;
    ASSERT_THAT(writer->Add(manifest), IsOk());
  }
  const std::string list = *writer->Finish();
  EXPECT_THAT(
      ReadManifestList(list, {.max_decoded_bytes = 64 << 10, .decoded_bytes_per_file_byte = 0},
                       "s3://b/snap.avro"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument,
                         "manifest list s3://b/snap.avro holds more than 65536 bytes"));
  auto read = ReadManifestList(list);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->manifests.size(), 2000u);
}

// A manifest larger than the fixed limit allows (PyIceberg and Flink write
// one per commit, however large) may take memory in proportion to its size.
TEST(DecompressionBombTest, ALargeManifestMayTakeInProportionToItsSize) {
  ManifestWriterOptions writer_options;
  writer_options.snapshot_id = 7;
  auto writer = *ManifestWriter::Make(TestSchema(), Unpartitioned(), writer_options);
  for (int i = 0; i < 1000; ++i) ASSERT_THAT(writer->Add(MakeDataFile(i, 0, {})), IsOk());
  const std::string manifest = writer->Finish("m.avro")->bytes;
  ManifestReaderOptions options;
  options.avro.max_decoded_bytes = 64 << 10;
  options.avro.decoded_bytes_per_file_byte = 0;
  EXPECT_THAT(ReadManifest(manifest, options), IsError(ErrorKind::kInvalidArgument));
  options.avro.decoded_bytes_per_file_byte = ContainerReaderOptions{}.decoded_bytes_per_file_byte;
  ASSERT_LT(manifest.size() * options.avro.decoded_bytes_per_file_byte, 64u << 20);
  auto read = ReadManifest(manifest, options);
  ASSERT_THAT(read, IsOk()) << read.error().ToString();
  EXPECT_EQ(read->entries.size(), 1000u);
}

TEST(DecompressionBombTest, AnOrdinaryManifestReadsUnderASmallLimit) {
  ManifestWriterOptions writer_options;
  writer_options.snapshot_id = 7;
  auto writer = *ManifestWriter::Make(TestSchema(), Unpartitioned(), writer_options);
  for (int i = 0; i < 100; ++i) ASSERT_THAT(writer->Add(MakeDataFile(i, 0, {})), IsOk());
  const std::string manifest = writer->Finish("m.avro")->bytes;
  ManifestReaderOptions options;
  options.avro.max_decoded_bytes = 1 << 20;
  auto read = ReadManifest(manifest, options);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->entries.size(), 100u);
}

}  // namespace
}  // namespace skade::avro
