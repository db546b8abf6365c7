// Location: parsing, per-scheme normalisation and "is under".
#include "skade/io/location.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/matchers.h"

namespace skade::io {
namespace {

using testing::IsError;

Location Parsed(std::string_view location) {
  auto parsed = Location::Parse(location);
  EXPECT_TRUE(parsed) << location << ": " << parsed.error().ToString();
  return parsed ? *parsed : Location{};
}

bool Under(std::string_view location, std::string_view root) {
  return Parsed(location).IsUnder(Parsed(root));
}

TEST(LocationTest, ThreeSpellingsOfALocalFileAreOneLocation) {
  Location expected{"file", "", "/a"};
  EXPECT_EQ(Parsed("file:/a"), expected);
  EXPECT_EQ(Parsed("file:///a"), expected);
  EXPECT_EQ(Parsed("/a"), expected);
  EXPECT_EQ(Parsed("FILE:///a"), expected);  // schemes are case-insensitive
  EXPECT_EQ(Parsed("/a").ToString(), "file:///a");
}

TEST(LocationTest, SplitsSchemeAuthorityAndPath) {
  EXPECT_EQ(Parsed("s3://bucket/wh/t"), (Location{"s3", "bucket", "/wh/t"}));
  EXPECT_EQ(Parsed("s3://bucket"), (Location{"s3", "bucket", "/"}));
  EXPECT_EQ(Parsed("file://host/p"), (Location{"file", "host", "/p"}));
  EXPECT_EQ(Parsed("s3://bucket/wh/t").ToString(), "s3://bucket/wh/t");
  // Not a scheme: a path with a colon in it.
  EXPECT_EQ(Parsed("/a/b:c"), (Location{"file", "", "/a/b:c"}));
  // Kept as written: no percent-decoding, no query or fragment.
  EXPECT_EQ(Parsed("/a/%2E%2E/b?c#d").path, "/a/%2E%2E/b?c#d");
}

TEST(LocationTest, LocalPathsCollapseSlashes) {
  EXPECT_EQ(Parsed("file:///a//b/").path, "/a/b");
  EXPECT_EQ(Parsed("/a///b//").path, "/a/b");
  EXPECT_EQ(Parsed("/").path, "/");
  EXPECT_EQ(Parsed("file:///").path, "/");
  EXPECT_EQ(Parsed("//").path, "/");
}

TEST(LocationTest, ObjectStoreKeysKeepInteriorEmptySegments) {
  // `a//b` and `a/b` are different objects; a trailing slash is not a key.
  EXPECT_EQ(Parsed("s3://b/a//c/").path, "/a//c");
  EXPECT_EQ(Parsed("s3://b/a/").path, "/a");
  EXPECT_TRUE(Under("s3://b/wh//x", "s3://b/wh"));
  EXPECT_FALSE(Under("s3://b//wh/x", "s3://b/wh"));
}

TEST(LocationTest, DotSegmentsAndRelativePathsAreRejected) {
  for (const char* bad : {"/a/../b", "file:///a/./b", "/..", "s3://b/a/../c", "relative/path",
                          "file:relative", "s3:relative", "", "./a"}) {
    EXPECT_THAT(Location::Parse(bad), IsError(ErrorKind::kInvalidArgument)) << bad;
  }
  // Only whole segments are dots.
  EXPECT_EQ(Parsed("/a/..b/.c").path, "/a/..b/.c");
}

TEST(LocationTest, ControlCharactersAreRejected) {
  for (std::string bad : {std::string("/a/b\0c", 6), std::string("/a\x01"),
                          std::string("s3://b/k\x1f"), std::string("file:///a\x7f")}) {
    EXPECT_THAT(Location::Parse(bad), IsError(ErrorKind::kInvalidArgument));
    auto verbatim = Location::ParseVerbatim(bad);
    ASSERT_THAT(verbatim, IsError(ErrorKind::kInvalidArgument));
    // The message names the byte, never carries it.
    EXPECT_EQ(verbatim.error().message.find_first_of(std::string("\0\x01\x1f\x7f", 4)),
              std::string::npos);
  }
  auto nul = Location::ParseVerbatim(std::string("/a/b\0c", 6));
  EXPECT_NE(nul.error().message.find("0x00 at byte 4"), std::string::npos) << nul.error().message;
  EXPECT_EQ(Parsed("/a/é b~").path, "/a/é b~");  // printable and UTF-8 are names
}

TEST(LocationTest, ParseVerbatimKeepsThePathAsWritten) {
  auto verbatim = Location::ParseVerbatim("file:///a//b/../c/");
  ASSERT_TRUE(verbatim);
  EXPECT_EQ(verbatim->path, "/a//b/../c/");
  EXPECT_THAT(Location::ParseVerbatim("a/b"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocationTest, UserInputTakesRelativePathsFromTheWorkingDirectory) {
  std::string cwd = std::filesystem::current_path().string();
  auto relative = Location::ParseUserInput("./x/../y//z/");
  ASSERT_TRUE(relative);
  EXPECT_EQ(*relative, Parsed(cwd + "/y/z"));
  // Absolute paths and URIs are parsed as by Parse.
  EXPECT_EQ(*Location::ParseUserInput("file:///a//b"), Parsed("/a/b"));
  EXPECT_THAT(Location::ParseUserInput("/a/../b"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Location::ParseUserInput("s3:relative"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocationTest, IsUnderComparesWholeSegments) {
  EXPECT_TRUE(Under("/a/b", "/a/b"));
  EXPECT_TRUE(Under("/a/b/c", "/a/b"));
  EXPECT_TRUE(Under("file:/a/b/c", "file:///a/b/"));
  EXPECT_TRUE(Under("/a/b//c/", "file:/a/b"));
  EXPECT_FALSE(Under("/a/bc", "/a/b"));
  EXPECT_FALSE(Under("/a", "/a/b"));
  EXPECT_TRUE(Under("/anything", "/"));
  EXPECT_TRUE(Under("/", "/"));
}

TEST(LocationTest, DifferentSchemesOrAuthoritiesAreNeverUnderEachOther) {
  EXPECT_FALSE(Under("s3://b/a", "/a"));
  EXPECT_FALSE(Under("/a", "s3://b/a"));
  EXPECT_FALSE(Under("s3://b/a/x", "gs://b/a"));
  EXPECT_FALSE(Under("s3://b/a/x", "s3://other/a"));
  EXPECT_FALSE(Under("file://host/a/x", "file:///a"));
  EXPECT_FALSE(Under("s3://b/x", "/"));  // not even under the local root
}

TEST(LocationTest, ParentNameAndChild) {
  Location file = Parsed("s3://b/a/c.json");
  EXPECT_EQ(file.Parent(), Parsed("s3://b/a"));
  EXPECT_EQ(file.Name(), "c.json");
  EXPECT_EQ(file.Parent().Child(file.Name()), file);
  EXPECT_EQ(Parsed("/a").Parent(), Parsed("/"));
  EXPECT_EQ(Parsed("/").Parent(), Parsed("/"));
  EXPECT_EQ(Parsed("/").Name(), "");
  EXPECT_EQ(Parsed("/").Child("x"), Parsed("/x"));
}

}  // namespace
}  // namespace skade::io
