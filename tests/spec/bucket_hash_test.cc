#include "skade/spec/bucket_hash.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <string>

namespace skade::spec {
namespace {

using std::chrono::days;
using std::chrono::sys_days;

int32_t DaysFromEpoch(std::chrono::year_month_day date) {
  return static_cast<int32_t>(sys_days(date).time_since_epoch().count());
}

int64_t MicrosFromEpoch(std::chrono::year_month_day date, int64_t seconds_of_day) {
  return static_cast<int64_t>(DaysFromEpoch(date)) * 86'400'000'000LL +
         seconds_of_day * 1'000'000LL;
}

constexpr int64_t kTimeOfDay = 22 * 3600 + 31 * 60 + 8;  // 22:31:08

// Every test vector of the spec's "Appendix B: 32-bit Hash Requirements".
TEST(BucketHashTest, SpecIntAndLong) {
  EXPECT_EQ(BucketHashInt(34), 2017239379);
  EXPECT_EQ(BucketHashLong(34), 2017239379);
}

TEST(BucketHashTest, SpecDecimal) {
  // 14.20 has unscaled value 1420 = 0x058C, minimal big-endian bytes 05 8C.
  EXPECT_EQ(BucketHashBytes(std::string("\x05\x8C", 2)), -500754589);
}

TEST(BucketHashTest, SpecDate) {
  using namespace std::chrono_literals;
  EXPECT_EQ(BucketHashInt(DaysFromEpoch(2017y / 11 / 16)), -653330422);
}

TEST(BucketHashTest, SpecTime) { EXPECT_EQ(BucketHashLong(kTimeOfDay * 1'000'000), -662762989); }

TEST(BucketHashTest, SpecTimestamp) {
  using namespace std::chrono_literals;
  int64_t micros = MicrosFromEpoch(2017y / 11 / 16, kTimeOfDay);
  EXPECT_EQ(BucketHashLong(micros), -2047944441);
  EXPECT_EQ(BucketHashLong(micros + 1), -1207196810);
}

TEST(BucketHashTest, SpecTimestampTz) {
  using namespace std::chrono_literals;
  // 2017-11-16T14:31:08-08:00 is 22:31:08 UTC.
  int64_t micros = MicrosFromEpoch(2017y / 11 / 16, 14 * 3600 + 31 * 60 + 8) + 8 * 3'600'000'000LL;
  EXPECT_EQ(BucketHashLong(micros), -2047944441);
  EXPECT_EQ(BucketHashLong(micros + 1), -1207196810);
}

TEST(BucketHashTest, SpecTimestampNanos) {
  using namespace std::chrono_literals;
  int64_t nanos = MicrosFromEpoch(2017y / 11 / 16, kTimeOfDay) * 1000;
  EXPECT_EQ(BucketHashTimestampNanos(nanos), -2047944441);
  EXPECT_EQ(BucketHashTimestampNanos(nanos + 1001), -1207196810);
}

TEST(BucketHashTest, SpecTimestampTzNanos) {
  using namespace std::chrono_literals;
  int64_t nanos =
      (MicrosFromEpoch(2017y / 11 / 16, 14 * 3600 + 31 * 60 + 8) + 8 * 3'600'000'000LL) * 1000;
  EXPECT_EQ(BucketHashTimestampNanos(nanos), -2047944441);
  EXPECT_EQ(BucketHashTimestampNanos(nanos + 1001), -1207196810);
}

TEST(BucketHashTest, NanosBeforeEpochFloorToMicros) {
  // -1 ns is within the microsecond -1, not 0.
  EXPECT_EQ(BucketHashTimestampNanos(-1), BucketHashLong(-1));
  EXPECT_EQ(BucketHashTimestampNanos(-1000), BucketHashLong(-1));
  EXPECT_EQ(BucketHashTimestampNanos(-1001), BucketHashLong(-2));
}

TEST(BucketHashTest, SpecString) { EXPECT_EQ(BucketHashBytes("iceberg"), 1210000089); }

TEST(BucketHashTest, SpecUuid) {
  const unsigned char uuid[] = {0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD,
                                0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7};
  EXPECT_EQ(BucketHashBytes(std::string(reinterpret_cast<const char*>(uuid), 16)), 1488055340);
}

TEST(BucketHashTest, SpecFixedAndBinary) {
  EXPECT_EQ(BucketHashBytes(std::string("\x00\x01\x02\x03", 4)), -188683207);
}

TEST(BucketHashTest, SpecBoolean) { EXPECT_EQ(BucketHashBoolean(true), 1392991556); }

TEST(BucketHashTest, SpecFloatAndDouble) {
  EXPECT_EQ(BucketHashFloat(1.0F), -142385009);
  EXPECT_EQ(BucketHashFloat(0.0F), 1669671676);
  EXPECT_EQ(BucketHashFloat(-0.0F), 1669671676);
  EXPECT_EQ(BucketHashDouble(1.0), -142385009);
  EXPECT_EQ(BucketHashDouble(0.0), 1669671676);
  EXPECT_EQ(BucketHashDouble(-0.0), 1669671676);
}

TEST(BucketHashTest, NanBitPatternsHashAlike) {
  double quiet = std::numeric_limits<double>::quiet_NaN();
  double other;
  uint64_t bits = 0x7ff0000000000001ULL;  // a signalling NaN
  std::memcpy(&other, &bits, 8);
  EXPECT_EQ(BucketHashDouble(quiet), BucketHashDouble(other));
  EXPECT_EQ(BucketHashDouble(quiet), BucketHashLong(0x7ff8000000000000LL));
}

TEST(BucketHashTest, Murmur3TailLengths) {
  // Reference values of MurmurHash3_x86_32 with seed 0 (every tail length).
  EXPECT_EQ(Murmur3X86Hash32(""), 0);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3X86Hash32("a")), 0x3c2569b2U);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3X86Hash32("ab")), 0x9bbfd75fU);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3X86Hash32("abc")), 0xb3dd93faU);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3X86Hash32("abcd")), 0x43ed676aU);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3X86Hash32("hello", 0)), 0x248bfa47U);
}

TEST(BucketHashTest, BucketDropsTheSignBit) {
  EXPECT_EQ(BucketOf(-1, 16), 0x7FFFFFFF % 16);
  EXPECT_EQ(BucketOf(2017239379, 100), 2017239379 % 100);
  for (int32_t hash : {-500754589, -653330422, 1210000089}) {
    int32_t bucket = BucketOf(hash, 7);
    EXPECT_GE(bucket, 0);
    EXPECT_LT(bucket, 7);
  }
}

}  // namespace
}  // namespace skade::spec
