#include "skade/store/lmdb/lmdb_keys.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::store::lmdb {
namespace {

using testing::IsError;

TEST(KeysTest, BigEndianKeysSortNumerically) {
  EXPECT_LT(CommitLogKey(255), CommitLogKey(256));
  EXPECT_LT(SnapshotKey(1, 5), SnapshotKey(2, 1));
  EXPECT_EQ(ReadBigEndian(CommitLogKey(0x0102030405060708)), 0x0102030405060708u);
}

TEST(KeysTest, RecordsRoundTrip) {
  TableRecord table{42, "file:///w/ns/t/metadata/00001-x.metadata.json"};
  EXPECT_EQ(*DecodeTableRecord(EncodeTableRecord(table)), table);
  CommitLogRecord commit{7, "file:///m.json", {1, -2, 9007199254740993}};
  EXPECT_EQ(*DecodeCommitLogRecord(EncodeCommitLogRecord(commit)), commit);
  EXPECT_THAT(DecodeTableRecord("x"), IsError(ErrorKind::kCorruption));
  std::string truncated = EncodeCommitLogRecord(commit).substr(0, 20);
  EXPECT_THAT(DecodeCommitLogRecord(truncated), IsError(ErrorKind::kCorruption));
}

TEST(KeysTest, PageTokensRoundTripAndRejectGarbage) {
  std::string key(
      "a\x1f"
      "b\x00"
      "c",
      5);
  EXPECT_EQ(*DecodePageToken(EncodePageToken(key)), key);
  EXPECT_THAT(DecodePageToken("zz"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(DecodePageToken("abc"), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::store::lmdb
