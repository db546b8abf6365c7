#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "skade/avro/decoder.h"
#include "skade/avro/encoder.h"
#include "testing/matchers.h"

namespace skade::avro {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;

std::string EncodeLong(int64_t value) {
  std::string out;
  Encoder(&out).WriteLong(value);
  return out;
}

TEST(ZigZagTest, KnownEncodings) {
  EXPECT_EQ(EncodeLong(0), std::string("\x00", 1));
  EXPECT_EQ(EncodeLong(-1), "\x01");
  EXPECT_EQ(EncodeLong(1), "\x02");
  EXPECT_EQ(EncodeLong(-64), "\x7f");
  EXPECT_EQ(EncodeLong(64), "\x80\x01");
  EXPECT_EQ(EncodeLong(-65), "\x81\x01");
  EXPECT_EQ(EncodeLong(std::numeric_limits<int32_t>::max()), "\xfe\xff\xff\xff\x0f");
  EXPECT_EQ(EncodeLong(std::numeric_limits<int32_t>::min()), "\xff\xff\xff\xff\x0f");
  EXPECT_EQ(EncodeLong(std::numeric_limits<int64_t>::max()),
            "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01");
  EXPECT_EQ(EncodeLong(std::numeric_limits<int64_t>::min()),
            "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
}

TEST(ZigZagTest, RoundTripsEdgeAndRandomValues) {
  std::vector<int64_t> values = {0,
                                 1,
                                 -1,
                                 63,
                                 -64,
                                 64,
                                 127,
                                 128,
                                 -129,
                                 std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int32_t>::min(),
                                 int64_t{1} << 62,
                                 -(int64_t{1} << 62),
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min()};
  std::mt19937_64 random(42);
  for (int i = 0; i < 1000; ++i) {
    values.push_back(static_cast<int64_t>(random()) >> (random() % 64));
  }
  std::string encoded;
  Encoder encoder(&encoded);
  for (int64_t value : values) encoder.WriteLong(value);
  Decoder decoder(encoded);
  for (int64_t value : values) {
    auto decoded = decoder.ReadLong();
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, value);
  }
  EXPECT_TRUE(decoder.at_end());
}

TEST(ZigZagTest, RejectsOverlongAndTruncatedVarints) {
  // Eleven bytes, and a tenth byte carrying more than bit 63.
  EXPECT_THAT(Decoder("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01").ReadLong(),
              IsError(ErrorKind::kCorruption));
  EXPECT_THAT(Decoder("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02").ReadLong(),
              IsErrorWithMessage(ErrorKind::kCorruption, "longer than 64 bits"));
  EXPECT_THAT(Decoder("\x80\x80").ReadLong(),
              IsErrorWithMessage(ErrorKind::kCorruption, "Truncated"));
  EXPECT_THAT(Decoder("").ReadLong(), IsError(ErrorKind::kCorruption));
}

TEST(ZigZagTest, IntMustFitIn32Bits) {
  std::string encoded = EncodeLong(int64_t{1} << 31);
  EXPECT_THAT(Decoder(encoded).ReadInt(), IsErrorWithMessage(ErrorKind::kCorruption, "32-bit"));
  encoded = EncodeLong(std::numeric_limits<int32_t>::min());
  auto value = Decoder(encoded).ReadInt();
  ASSERT_TRUE(value);
  EXPECT_EQ(*value, std::numeric_limits<int32_t>::min());
}

TEST(DecoderTest, PrimitivesRoundTrip) {
  std::string encoded;
  Encoder encoder(&encoded);
  encoder.WriteBoolean(true);
  encoder.WriteBoolean(false);
  encoder.WriteFloat(-0.0f);
  encoder.WriteDouble(std::numeric_limits<double>::quiet_NaN());
  encoder.WriteDouble(1.5e300);
  encoder.WriteString("héllo");
  encoder.WriteBytes(std::string("\x00\xff", 2));
  encoder.WriteFixed("0123456789abcdef");
  encoder.WriteUnionIndex(1);

  Decoder decoder(encoded);
  EXPECT_EQ(*decoder.ReadBoolean(), true);
  EXPECT_EQ(*decoder.ReadBoolean(), false);
  float negative_zero = *decoder.ReadFloat();
  EXPECT_EQ(negative_zero, 0.0f);
  EXPECT_TRUE(std::signbit(negative_zero));
  EXPECT_TRUE(std::isnan(*decoder.ReadDouble()));
  EXPECT_EQ(*decoder.ReadDouble(), 1.5e300);
  EXPECT_EQ(*decoder.ReadString(), "héllo");
  EXPECT_EQ(*decoder.ReadBytes(), std::string("\x00\xff", 2));
  EXPECT_EQ(*decoder.ReadFixed(16), "0123456789abcdef");
  EXPECT_EQ(*decoder.ReadUnionIndex(2), 1u);
  EXPECT_TRUE(decoder.at_end());
  // Everything past the end is an error, never a read out of bounds.
  EXPECT_THAT(decoder.ReadBoolean(), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(decoder.ReadFloat(), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(decoder.ReadDouble(), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(decoder.ReadFixed(1), IsError(ErrorKind::kCorruption));
}

TEST(DecoderTest, RejectsInvalidBooleansLengthsAndIndexes) {
  EXPECT_THAT(Decoder("\x02").ReadBoolean(), IsErrorWithMessage(ErrorKind::kCorruption, "boolean"));
  // Negative length, and a length past the end.
  EXPECT_THAT(Decoder("\x01").ReadBytes(), IsErrorWithMessage(ErrorKind::kCorruption, "Negative"));
  EXPECT_THAT(Decoder("\x0a"
                      "abc")
                  .ReadBytes(),
              IsErrorWithMessage(ErrorKind::kCorruption, "exceeds"));
  std::string huge = EncodeLong(std::numeric_limits<int64_t>::max());
  EXPECT_THAT(Decoder(huge).ReadBytes(), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(Decoder("\x04").ReadUnionIndex(2), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(Decoder("\x01").ReadUnionIndex(2), IsError(ErrorKind::kCorruption));
}

TEST(DecoderTest, BlockCountsAreBoundedByRemainingBytes) {
  // 3 items of one byte each: fine.
  std::string ok = EncodeLong(3) + "abc";
  Decoder decoder(ok);
  EXPECT_EQ(*decoder.ReadBlockCount(), 3);
  // A count far beyond the data is rejected before any item is read.
  std::string bomb = EncodeLong(int64_t{1} << 40) + "abc";
  EXPECT_THAT(Decoder(bomb).ReadBlockCount(),
              IsErrorWithMessage(ErrorKind::kCorruption, "block count"));
  // Negative counts carry a byte size, which must fit too.
  std::string sized = EncodeLong(-2) + EncodeLong(2) + "xy";
  Decoder sized_decoder(sized);
  EXPECT_EQ(*sized_decoder.ReadBlockCount(), 2);
  EXPECT_EQ(sized_decoder.remaining(), 2u);
  std::string bad_size = EncodeLong(-2) + EncodeLong(99) + "xy";
  EXPECT_THAT(Decoder(bad_size).ReadBlockCount(), IsError(ErrorKind::kCorruption));
  std::string minimum = EncodeLong(std::numeric_limits<int64_t>::min()) + EncodeLong(0);
  EXPECT_THAT(Decoder(minimum).ReadBlockCount(), IsError(ErrorKind::kCorruption));
}

}  // namespace
}  // namespace skade::avro
