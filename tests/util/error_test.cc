#include <gtest/gtest.h>

#include "skade/util/result.h"
#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;
using testing::IsOk;

Result<int> ParsePositive(int value) {
  if (value <= 0) return InvalidArgument("not positive: ", value);
  return value;
}

Result<int> Doubled(int value) {
  SKADE_ASSIGN_OR_RAISE(int parsed, ParsePositive(value));
  return parsed * 2;
}

Status CheckBoth(int a, int b) {
  SKADE_RETURN_NOT_OK(ParsePositive(a));
  SKADE_RETURN_NOT_OK(ParsePositive(b));
  return OkStatus();
}

TEST(ResultTest, AssignOrRaisePropagatesValueAndError) {
  EXPECT_EQ(*Doubled(4), 8);
  auto failed = Doubled(-1);
  ASSERT_THAT(failed, IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(failed.error().message, "not positive: -1");
  EXPECT_FALSE(failed.error().retryable);
}

TEST(ResultTest, ReturnNotOkStopsAtFirstError) {
  EXPECT_THAT(CheckBoth(1, 2), IsOk());
  auto failed = CheckBoth(1, 0);
  ASSERT_THAT(failed, IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(failed.error().message, "not positive: 0");
}

TEST(ResultTest, RetryableErrorsCarryTheBit) {
  Status status = MakeRetryableError(ErrorKind::kCommitFailed, "lost the race");
  ASSERT_THAT(status, IsError(ErrorKind::kCommitFailed));
  EXPECT_TRUE(status.error().retryable);
  EXPECT_EQ(status.error().ToString(), "CommitFailed: lost the race");
}

}  // namespace
}  // namespace skade
