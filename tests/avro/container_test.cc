#include <gtest/gtest.h>
#include <zstd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "skade/avro/codec.h"
#include "skade/avro/container_reader.h"
#include "skade/avro/container_writer.h"
#include "skade/avro/value_reader.h"
#include "testing/matchers.h"

namespace skade::avro {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

constexpr char kRecordSchema[] = R"({"type": "record", "name": "row", "fields": [
    {"name": "id", "type": "long", "field-id": 1},
    {"name": "name", "type": ["null", "string"], "field-id": 2}]})";

NodePtr RecordSchema() { return *ParseSchema(kRecordSchema); }

std::string NameFor(int64_t id) { return "name-" + std::to_string(id * 7919); }

// Writes `count` rows (id, name), names null for every third row.
std::string WriteRows(int64_t count, const ContainerWriterOptions& options) {
  auto writer = ContainerWriter::Make(*RecordSchema(), {{"owner", "skade"}}, options);
  EXPECT_THAT(writer, IsOk());
  for (int64_t id = 0; id < count; ++id) {
    Encoder& encoder = (*writer)->encoder();
    encoder.WriteLong(id);
    if (id % 3 == 0) {
      encoder.WriteUnionIndex(0);
    } else {
      encoder.WriteUnionIndex(1);
      encoder.WriteString(NameFor(id));
    }
    EXPECT_THAT((*writer)->EndDatum(), IsOk());
  }
  auto file = (*writer)->Finish();
  EXPECT_THAT(file, IsOk());
  return *file;
}

// Reads the rows back, checking each; returns how many there were.
Result<int64_t> ReadRows(std::string_view file, const ContainerReaderOptions& options = {}) {
  SKADE_ASSIGN_OR_RAISE(auto reader, ContainerReader::Open(file, options));
  const Node& schema = *reader->schema();
  int64_t expected_id = 0;
  SKADE_RETURN_NOT_OK(reader->ForEachDatum([&](Decoder& decoder) -> Status {
    SKADE_ASSIGN_OR_RAISE(auto id, ReadOptionalLong(decoder, *schema.fields[0].type));
    SKADE_ASSIGN_OR_RAISE(auto name, ReadOptionalBytes(decoder, *schema.fields[1].type));
    if (id != expected_id) return Corruption("unexpected id");
    if (expected_id % 3 == 0 ? name.has_value() : name != NameFor(expected_id)) {
      return Corruption("unexpected name");
    }
    ++expected_id;
    return OkStatus();
  }));
  return expected_id;
}

class ContainerCodecTest : public ::testing::TestWithParam<Codec> {};

TEST_P(ContainerCodecTest, RoundTripsManyBlocks) {
  ContainerWriterOptions options;
  options.codec = GetParam();
  options.block_size = 4096;
  std::string file = WriteRows(5000, options);

  auto reader = ContainerReader::Open(file);
  ASSERT_THAT(reader, IsOk());
  EXPECT_EQ((*reader)->codec(), GetParam());
  EXPECT_EQ((*reader)->Metadata("owner"), "skade");
  EXPECT_EQ((*reader)->Metadata("avro.codec"), CodecName(GetParam()));
  EXPECT_EQ((*reader)->schema()->fields[1].field_id, 2);
  int blocks = 0;
  while (true) {
    auto next = (*reader)->NextBlock();
    ASSERT_THAT(next, IsOk());
    if (!*next) break;
    ++blocks;
  }
  EXPECT_GT(blocks, 10);

  auto rows = ReadRows(file);
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ(*rows, 5000);
}

TEST_P(ContainerCodecTest, EmptyFileHasOnlyTheHeader) {
  ContainerWriterOptions options;
  options.codec = GetParam();
  std::string file = WriteRows(0, options);
  auto rows = ReadRows(file);
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ(*rows, 0);
}

INSTANTIATE_TEST_SUITE_P(Codecs, ContainerCodecTest,
                         ::testing::Values(Codec::kNull, Codec::kDeflate, Codec::kZstandard,
                                           Codec::kSnappy),
                         [](const auto& info) { return std::string(CodecName(info.param)); });

TEST(ContainerTest, CompressionShrinksRepetitiveBlocks) {
  ContainerWriterOptions options;
  options.codec = Codec::kNull;
  size_t plain = WriteRows(2000, options).size();
  options.codec = Codec::kDeflate;
  size_t deflated = WriteRows(2000, options).size();
  options.codec = Codec::kZstandard;
  size_t zstd = WriteRows(2000, options).size();
  EXPECT_LT(deflated, plain / 2);
  EXPECT_LT(zstd, plain / 2);
}

TEST(ContainerTest, FixedSyncMarkerMakesFilesReproducible) {
  ContainerWriterOptions options;
  options.sync_marker = SyncMarker{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  EXPECT_EQ(WriteRows(100, options), WriteRows(100, options));
  options.sync_marker.reset();
  EXPECT_NE(WriteRows(100, options), WriteRows(100, options));
}

TEST(ContainerTest, ReservedMetadataKeysAreRejected) {
  EXPECT_THAT(ContainerWriter::Make(*RecordSchema(), {{"avro.codec", "null"}}, {}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(ContainerTest, DiscardDatumDropsAHalfWrittenDatum) {
  auto writer = ContainerWriter::Make(*RecordSchema(), {}, {});
  ASSERT_THAT(writer, IsOk());
  (*writer)->encoder().WriteLong(0);
  (*writer)->encoder().WriteUnionIndex(0);
  ASSERT_THAT((*writer)->EndDatum(), IsOk());
  (*writer)->encoder().WriteLong(99);
  (*writer)->DiscardDatum();
  (*writer)->encoder().WriteLong(1);
  (*writer)->encoder().WriteUnionIndex(1);
  (*writer)->encoder().WriteString(NameFor(1));
  ASSERT_THAT((*writer)->EndDatum(), IsOk());
  auto file = (*writer)->Finish();
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(*ReadRows(*file), 2);
}

// Iceberg Java writes zstandard blocks with a streaming compressor, whose
// frames do not record the content size.
TEST(ContainerTest, ReadsZstdFramesWithoutContentSize) {
  std::string plain = WriteRows(300, {.codec = Codec::kNull});
  // Re-encode the single block of the plain file as a streamed zstd frame.
  auto reader = ContainerReader::Open(plain);
  ASSERT_THAT(reader, IsOk());
  ASSERT_TRUE(*(*reader)->NextBlock());
  size_t header_size = plain.find(
      std::string(reinterpret_cast<const char*>((*reader)->sync_marker().data()), kSyncSize));
  header_size += kSyncSize;
  Decoder block_header(std::string_view(plain).substr(header_size));
  int64_t count = *block_header.ReadLong();
  int64_t size = *block_header.ReadLong();
  std::string data = plain.substr(header_size + block_header.position(), size);

  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0);
  std::string frame(ZSTD_compressBound(data.size()) + 64, '\0');
  ZSTD_inBuffer input{data.data(), data.size(), 0};
  ZSTD_outBuffer output{frame.data(), frame.size(), 0};
  ASSERT_EQ(ZSTD_compressStream2(context, &output, &input, ZSTD_e_end), 0u);
  ZSTD_freeCCtx(context);
  frame.resize(output.pos);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);

  // Same header with codec zstandard, then the one block.
  auto writer =
      ContainerWriter::Make(*RecordSchema(), {{"owner", "skade"}},
                            {.codec = Codec::kZstandard, .sync_marker = (*reader)->sync_marker()});
  std::string file = *(*writer)->Finish();
  std::string block;
  Encoder encoder(&block);
  encoder.WriteLong(count);
  encoder.WriteLong(static_cast<int64_t>(frame.size()));
  file += block + frame;
  file.append(reinterpret_cast<const char*>((*reader)->sync_marker().data()), kSyncSize);
  auto rows = ReadRows(file);
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ(*rows, 300);
}

TEST(ContainerTest, DecompressedBlocksAreBounded) {
  for (Codec codec : {Codec::kDeflate, Codec::kZstandard, Codec::kSnappy}) {
    std::string file = WriteRows(2000, {.codec = codec});
    EXPECT_THAT(ReadRows(file, {.max_block_size = 1000}),
                IsErrorWithMessage(ErrorKind::kCorruption, "limit"))
        << CodecName(codec);
  }
}

// Avro's snappy blocks carry the CRC32 of their contents: a block whose
// snappy data is intact but whose contents differ is caught by it.
TEST(ContainerTest, SnappyBlocksAreCheckedAgainstTheirChecksum) {
  BlockCodec codec(Codec::kSnappy, BlockCodec::kDefaultLevel);
  std::string block;
  ASSERT_THAT(codec.Compress("the rows of one block", &block), IsOk());
  std::string out;
  ASSERT_THAT(codec.Decompress(block, 1000, &out), IsOk());
  EXPECT_EQ(out, "the rows of one block");
  std::string wrong_checksum = block;
  wrong_checksum.back() ^= 1;
  EXPECT_THAT(codec.Decompress(wrong_checksum, 1000, &out),
              IsErrorWithMessage(ErrorKind::kCorruption, "checksum"));
  EXPECT_THAT(codec.Decompress(block.substr(0, 3), 1000, &out), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(codec.Decompress(block, 5, &out),
              IsErrorWithMessage(ErrorKind::kCorruption, "limit"));
}

// Deflate contexts are per thread and level: codecs of different levels
// used in turn on one thread must each compress at their own level, and
// codecs on several threads at once must not share one.
TEST(ContainerTest, DeflateLevelsAndThreadsKeepTheirOwnContexts) {
  std::string data;
  for (int i = 0; i < 4000; ++i) data += "manifest-entry-" + std::to_string(i % 97) + ";";
  BlockCodec stored(Codec::kDeflate, 0);
  BlockCodec fast(Codec::kDeflate, 1);
  BlockCodec best(Codec::kDeflate, 12);
  std::string by_stored, by_fast, by_best, back;
  for (int round = 0; round < 3; ++round) {
    ASSERT_THAT(fast.Compress(data, &by_fast), IsOk());
    ASSERT_THAT(best.Compress(data, &by_best), IsOk());
    ASSERT_THAT(stored.Compress(data, &by_stored), IsOk());
    EXPECT_GE(by_stored.size(), data.size());  // level 0 stores
    EXPECT_LT(by_best.size(), by_fast.size());
    for (const std::string* block : {&by_stored, &by_fast, &by_best}) {
      ASSERT_THAT(best.Decompress(*block, data.size(), &back), IsOk());
      EXPECT_EQ(back, data);
    }
  }
  for (int level : {-2, 13}) {
    BlockCodec invalid(Codec::kDeflate, level);
    EXPECT_THAT(invalid.Compress(data, &back), IsErrorWithMessage(ErrorKind::kInternal, "level"));
  }

  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::string mine = data + std::to_string(t);
      BlockCodec codec(Codec::kDeflate, BlockCodec::kDefaultLevel);
      std::string block, out;
      for (int i = 0; i < 200; ++i) {
        if (!codec.Compress(mine, &block) || !codec.Decompress(block, mine.size(), &out) ||
            out != mine) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ContainerTest, CodecNames) {
  EXPECT_EQ(*ParseCodec("zstandard"), Codec::kZstandard);
  EXPECT_EQ(*ParseCodec("zstd"), Codec::kZstandard);
  EXPECT_EQ(*ParseCodec("deflate"), Codec::kDeflate);
  EXPECT_EQ(*ParseCodec("gzip"), Codec::kDeflate);
  EXPECT_EQ(*ParseCodec("null"), Codec::kNull);
  EXPECT_EQ(*ParseCodec("snappy"), Codec::kSnappy);
  EXPECT_THAT(ParseCodec("bzip2"), IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(ParseCodec("lzma-ish"), IsError(ErrorKind::kInvalidArgument));
}

TEST(ContainerTest, UnsupportedCodecIsReportedAsSuch) {
  std::string file = WriteRows(10, {.codec = Codec::kNull});
  // Rewrite the codec name in place ("null" -> "bzip2" would change the
  // length; build a header by hand instead).
  std::string header(kMagic, sizeof(kMagic));
  Encoder encoder(&header);
  encoder.WriteBlockCount(2);
  encoder.WriteString("avro.schema");
  encoder.WriteBytes(kRecordSchema);
  encoder.WriteString("avro.codec");
  encoder.WriteBytes("bzip2");
  encoder.WriteEndOfBlocks();
  header.append(16, 'S');
  EXPECT_THAT(ContainerReader::Open(header), IsError(ErrorKind::kUnsupported));
}

TEST(ContainerTest, HeaderErrors) {
  EXPECT_THAT(ContainerReader::Open(""), IsErrorWithMessage(ErrorKind::kCorruption, "magic"));
  EXPECT_THAT(ContainerReader::Open("PAR1...."),
              IsErrorWithMessage(ErrorKind::kCorruption, "magic"));
  std::string header(kMagic, sizeof(kMagic));
  Encoder encoder(&header);
  encoder.WriteBlockCount(1);
  encoder.WriteString("avro.codec");
  encoder.WriteBytes("null");
  encoder.WriteEndOfBlocks();
  header.append(16, 'S');
  EXPECT_THAT(ContainerReader::Open(header),
              IsErrorWithMessage(ErrorKind::kCorruption, "avro.schema"));
}

TEST(ContainerTest, WrongSyncMarkerIsCorruption) {
  std::string file = WriteRows(10, {.codec = Codec::kNull});
  file[file.size() - 1] ^= 0x01;
  EXPECT_THAT(ReadRows(file), IsErrorWithMessage(ErrorKind::kCorruption, "sync marker"));
}

TEST(ContainerTest, TrailingBytesInABlockAreCorruption) {
  auto writer = ContainerWriter::Make(*RecordSchema(), {}, {.codec = Codec::kNull});
  (*writer)->encoder().WriteLong(0);
  (*writer)->encoder().WriteUnionIndex(0);
  (*writer)->encoder().WriteLong(12345);  // not part of any datum
  ASSERT_THAT((*writer)->EndDatum(), IsOk());
  std::string file = *(*writer)->Finish();
  EXPECT_THAT(ReadRows(file), IsErrorWithMessage(ErrorKind::kCorruption, "bytes after"));
}

}  // namespace
}  // namespace skade::avro
