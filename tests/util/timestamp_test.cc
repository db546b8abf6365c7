#include "skade/util/timestamp.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;

// 2026-11-01T12:00:00Z
constexpr int64_t kNoon = 1'793'534'400'000;

TEST(TimestampTest, FormatsUtcWithMillis) {
  EXPECT_EQ(FormatTimestampMillis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimestampMillis(kNoon + 7), "2026-11-01T12:00:00.007Z");
  EXPECT_EQ(FormatTimestampMillis(-1), "1969-12-31T23:59:59.999Z");
}

TEST(TimestampTest, ParsesMillisAndEveryIsoForm) {
  EXPECT_EQ(ParseTimestampMillis("1793534400000"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T12:00:00Z"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T12:00:00"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01 12:00:00"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T12:00"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01"), kNoon - 12 * 3'600'000);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T12:00:00.25Z"), kNoon + 250);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T12:00:00.123456789Z"), kNoon + 123);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T14:00:00+02:00"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T14:00:00+0200"), kNoon);
  EXPECT_EQ(ParseTimestampMillis("2026-11-01T07:00:00-05"), kNoon);
  EXPECT_EQ(ParseTimestampMillis(FormatTimestampMillis(kNoon + 42)), kNoon + 42);
}

TEST(TimestampTest, RejectsMalformedAndImpossibleTimes) {
  for (const char* bad : {"",
                          "-5",
                          "+5",
                          "1e3",
                          "99999999999999999999",
                          "2026-11",
                          "2026-13-01",
                          "2026-02-30",
                          "2026-11-01T",
                          "2026-11-01T24:00",
                          "2026-11-01T12:60",
                          "2026-11-01T12:00:61",
                          "2026-11-01T12:00:00.",
                          "2026-11-01T12:00:00Zx",
                          "2026-11-01T12:00:00+2",
                          "2026-11-01T12:00:00+02:",
                          "2026-11-01X12:00",
                          " 2026-11-01",
                          "2026/11/01",
                          "now"}) {
    EXPECT_THAT(ParseTimestampMillis(bad), IsError(ErrorKind::kInvalidArgument)) << bad;
  }
}

TEST(TimestampTest, ParsesIsoPartsAtNanosecondPrecision) {
  auto parts = ParseIsoDateTime("2026-11-01T12:00:00.123456789+02:00");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->days, 20758);
  EXPECT_EQ(parts->nanos_of_day, 12 * 3'600'000'000'000 + 123'456'789);
  EXPECT_TRUE(parts->has_time);
  EXPECT_EQ(parts->offset_minutes, 120);
  parts = ParseIsoDateTime("1969-12-31");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->days, -1);
  EXPECT_FALSE(parts->has_time);
  EXPECT_FALSE(parts->offset_minutes.has_value());
  EXPECT_FALSE(ParseIsoDateTime("2026-11-01T12:00:00.1234567891").has_value());
  EXPECT_EQ(ParseIsoTimeOfDay("22:31:08.000001"),
            (22 * 3600 + 31 * 60 + 8) * 1'000'000'000LL + 1000);
  EXPECT_FALSE(ParseIsoTimeOfDay("22:31Z").has_value());
}

}  // namespace
}  // namespace skade
