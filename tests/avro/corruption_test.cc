// Damaged manifests and manifest lists: every single-byte change and every
// truncation must end in a clean kCorruption (or, where the damage happens
// to leave a valid file, a successful read), never a crash, hang or
// unbounded allocation. Run under -DSKADE_SANITIZE=address to check memory
// safety as well.
#include <gtest/gtest.h>

#include <random>

#include "avro/manifest_fixtures.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/avro/manifest_reader.h"
#include "skade/avro/manifest_writer.h"
#include "testing/matchers.h"

namespace skade::avro {
namespace {

using spec::Literal;
using namespace ::skade::avro::testing;

// A manifest of several blocks over CommonSpec.
std::string SampleManifest(Codec codec) {
  ManifestWriterOptions options;
  options.snapshot_id = 42;
  options.avro = {.codec = codec, .block_size = 256};
  auto writer = *ManifestWriter::Make(TestSchema(), CommonSpec(), options);
  const auto& f = writer->partition_type()->fields();
  for (int i = 0; i < 12; ++i) {
    std::vector<Literal> partition = {
        i % 4 == 0 ? Literal::Null(f[0].type)
                   : Literal(f[0].type, std::string("x") + char('a' + i)),
        Literal(f[1].type, int32_t{i}), Literal(f[2].type, int32_t{19000 + i}),
        Literal(f[3].type, std::string("x"))};
    EXPECT_TRUE(writer->Add(MakeDataFile(i, 2, partition)));
  }
  return writer->Finish("m.avro")->bytes;
}

std::string SampleManifestList(Codec codec) {
  ManifestListWriterOptions options;
  options.format_version = 3;
  options.snapshot_id = 42;
  options.sequence_number = 3;
  options.avro = {.codec = codec, .block_size = 128};
  auto writer = *ManifestListWriter::Make(options);
  for (int i = 0; i < 6; ++i) {
    spec::ManifestFile manifest;
    manifest.manifest_path = "s3://b/t/metadata/m" + std::to_string(i) + ".avro";
    manifest.manifest_length = 1000 + i;
    manifest.sequence_number = spec::kUnassignedSequenceNumber;
    manifest.min_sequence_number = spec::kUnassignedSequenceNumber;
    manifest.added_snapshot_id = 42;
    manifest.added_files_count = i;
    manifest.added_rows_count = 10 * i;
    manifest.partitions = {{i % 2 == 0, false, "a", "z"}};
    EXPECT_TRUE(writer->Add(manifest));
  }
  return *writer->Finish();
}

// Reads `bytes`; returns the number of entries, or -1 on a clean error.
template <typename Read>
int64_t TryRead(Read&& read, std::string_view bytes) {
  auto result = read(bytes);
  if (result) return static_cast<int64_t>(*result);
  EXPECT_EQ(result.error().kind, ErrorKind::kCorruption) << result.error().ToString();
  return -1;
}

Result<size_t> ReadManifestSize(std::string_view bytes) {
  SKADE_ASSIGN_OR_RAISE(Manifest manifest, ReadManifest(bytes));
  return manifest.entries.size();
}

Result<size_t> ReadManifestListSize(std::string_view bytes) {
  SKADE_ASSIGN_OR_RAISE(ManifestList list, ReadManifestList(bytes));
  return list.manifests.size();
}

template <typename Read>
void FuzzFile(const std::string& file, Read&& read) {
  int64_t entries = TryRead(read, file);
  ASSERT_GT(entries, 0);
  // Every byte of every sync marker (the header's and each block's) is
  // checked, so damage there is always noticed.
  std::string sync = file.substr(file.size() - kSyncSize);
  std::vector<bool> in_sync(file.size(), false);
  for (size_t at = file.find(sync); at != std::string::npos; at = file.find(sync, at + 1)) {
    for (size_t k = 0; k < kSyncSize; ++k) in_sync[at + k] = true;
  }
  for (size_t offset = 0; offset < file.size(); ++offset) {
    for (uint8_t flip : {0x01, 0xFF}) {
      std::string damaged = file;
      damaged[offset] = static_cast<char>(damaged[offset] ^ flip);
      int64_t read_entries = TryRead(read, damaged);
      if (in_sync[offset]) {
        EXPECT_EQ(read_entries, -1) << "sync byte at " << offset;
      }
    }
  }
  for (size_t length = 0; length < file.size(); ++length) {
    int64_t read_entries = TryRead(read, std::string_view(file).substr(0, length));
    // Cutting exactly after a block leaves a valid, shorter file.
    EXPECT_LT(read_entries, entries) << "truncated to " << length;
  }
}

class CorruptionTest : public ::testing::TestWithParam<Codec> {};

TEST_P(CorruptionTest, DamagedManifestsFailCleanly) {
  FuzzFile(SampleManifest(GetParam()), ReadManifestSize);
}

TEST_P(CorruptionTest, DamagedManifestListsFailCleanly) {
  FuzzFile(SampleManifestList(GetParam()), ReadManifestListSize);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CorruptionTest,
                         ::testing::Values(Codec::kNull, Codec::kDeflate, Codec::kZstandard,
                                           Codec::kSnappy),
                         [](const auto& info) { return std::string(CodecName(info.param)); });

TEST(CorruptionTest, RandomBytesAfterTheMagicFailCleanly) {
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(kMagic, sizeof(kMagic));
    size_t size = random() % 200;
    for (size_t k = 0; k < size; ++k) bytes.push_back(static_cast<char>(random()));
    TryRead(ReadManifestSize, bytes);
    TryRead(ReadManifestListSize, bytes);
  }
}

TEST(CorruptionTest, RandomBlocksAfterAValidHeaderFailCleanly) {
  std::string file = SampleManifest(Codec::kNull);
  // Keep the header (everything up to the first sync marker) and append
  // random block bytes.
  std::string sync = file.substr(file.size() - kSyncSize);
  size_t header_size = file.find(sync) + kSyncSize;
  std::mt19937 random(11);
  for (int i = 0; i < 2000; ++i) {
    std::string damaged = file.substr(0, header_size);
    size_t size = random() % 300;
    for (size_t k = 0; k < size; ++k) damaged.push_back(static_cast<char>(random()));
    damaged += sync;
    EXPECT_LT(TryRead(ReadManifestSize, damaged), 12);
  }
}

}  // namespace
}  // namespace skade::avro
