#include "skade/cli/config_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::cli {
namespace {

using ::testing::ElementsAre;
using testing::IsErrorWithMessage;

TEST(ConfigFileTest, ReadsTablesKeysAndValues) {
  auto entries = ParseConfigFile(R"(# a comment
warehouse = "/data/wh"   # trailing comment
"quoted key" = 'C:\literal'
retention = 1_000
ratio = -1.5e3

[serve]
port = 8181
quiet = true
oauth-client = [
  "a:x#y",  # '#' inside quotes is data
  'b:"q"',
]
serve.extra = "dotted"
)");
  ASSERT_THAT(entries, testing::IsOk());
  ASSERT_EQ(entries->size(), 8u);
  const auto& e = *entries;
  EXPECT_EQ(e[0].key(), "warehouse");
  EXPECT_THAT(e[0].values, ElementsAre("/data/wh"));
  EXPECT_EQ(e[0].line, 2);
  EXPECT_EQ(e[1].key(), "quoted key");
  EXPECT_THAT(e[1].values, ElementsAre("C:\\literal"));
  EXPECT_THAT(e[2].values, ElementsAre("1000"));
  EXPECT_THAT(e[3].values, ElementsAre("-1.5e3"));
  EXPECT_EQ(e[4].key(), "serve.port");
  EXPECT_EQ(e[4].line, 8);
  EXPECT_THAT(e[5].values, ElementsAre("true"));
  EXPECT_EQ(e[6].key(), "serve.oauth-client");
  EXPECT_TRUE(e[6].is_array);
  EXPECT_THAT(e[6].values, ElementsAre("a:x#y", "b:\"q\""));
  EXPECT_FALSE(e[5].is_array);
  EXPECT_EQ(e[7].key(), "serve.serve.extra");
}

TEST(ConfigFileTest, DecodesEscapes) {
  auto entries = ParseConfigFile(R"(s = "tab\there \"q\" \\ \u00e9 \U0001F600")");
  ASSERT_THAT(entries, testing::IsOk());
  EXPECT_THAT((*entries)[0].values, ElementsAre("tab\there \"q\" \\ \xC3\xA9 \xF0\x9F\x98\x80"));
}

TEST(ConfigFileTest, EmptyAndCrlf) {
  auto empty = ParseConfigFile("");
  ASSERT_THAT(empty, testing::IsOk());
  EXPECT_TRUE(empty->empty());
  auto crlf = ParseConfigFile("a = 1\r\n[serve]\r\nb = [\r\n 2 ,\r\n]\r\n");
  ASSERT_THAT(crlf, testing::IsOk());
  ASSERT_EQ(crlf->size(), 2u);
  EXPECT_EQ((*crlf)[1].line, 3);
  EXPECT_THAT((*crlf)[1].values, ElementsAre("2"));
}

TEST(ConfigFileTest, RejectsWhatItDoesNotUnderstandWithTheLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"a = 1\nport 8181\n", "line 2: expected '=' after the key 'port'"},
      {"a = \"open\n", "line 1: unterminated string"},
      {"a = 'open\n", "line 1: unterminated string"},
      {"a = 1\n\na = 2\n", "line 3: duplicate key 'a' (first at line 1)"},
      {"[s]\n[s]\n", "line 2: table [s] appears twice"},
      {"s.a = 1\n[s]\na = 2\n", "line 3: duplicate key 's.a' (first at line 1)"},
      {"a = token\n", "line 1: the value of 'a' is not a TOML value (quote strings"},
      {"a = 1 2\n", "line 1: unexpected text at column 7 after the value of 'a'"},
      {"a = [1, [2]]\n", "line 1: nested arrays are not supported"},
      {"a = [1,\n 2\n", "line 3: unterminated array"},
      {"a = [1 2]\n", "line 1: expected ',' or ']' in the array"},
      {"a = {b = 1}\n", "line 1: inline tables are not supported"},
      {"a = \"\"\"x\"\"\"\n", "line 1: multi-line strings are not supported"},
      {"[[a]]\n", "line 1: arrays of tables"},
      {"a = \"\\q\"\n", "line 1: unknown escape at column 6"},
      {"a = 1979-05-27\n", "line 1: the value of 'a' is not a TOML value"},
      {"a =\n", "line 1: expected the value of 'a' at column 4"},
      {"= 1\n", "line 1: expected a key"},
      {"[a\n", "line 1: expected ']'"},
      {"a = 1\n[a]\n", "line 2: table [a] is also a key"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_THAT(ParseConfigFile(text), IsErrorWithMessage(ErrorKind::kInvalidArgument, message))
        << text;
  }
}

// Regression: an unquoted secret (`oauth-client = admin:S3cr3tValue`) was
// echoed in the error, which goes to stderr and logs.
TEST(ConfigFileTest, ErrorsNameTheKeyNeverTheValue) {
  const std::pair<const char*, const char*> cases[] = {
      {"[serve]\noauth-client = admin:S3cr3tValue\n",
       "line 2: the value of 'serve.oauth-client' is not a TOML value (quote strings"},
      {"[serve]\noauth-client = S3cr3tValue\n",
       "line 2: the value of 'serve.oauth-client' is not a TOML value"},
      {"[serve]\noauth-client = [\"x\", S3cr3tValue]\n",
       "line 2: the value of 'serve.oauth-client' is not a TOML value"},
      {"[serve]\noauth-client = \"admin\" S3cr3tValue\n",
       "line 2: unexpected text at column 24 after the value of 'serve.oauth-client'"},
      {"[serve]\noauth-client = @S3cr3tValue\n",
       "line 2: expected the value of 'serve.oauth-client' at column 16"},
      {"[serve]\noauth-client = \"S3cr3t\\Value\"\n", "line 2: unknown escape at column 23"},
      {"[serve] S3cr3tValue\n", "line 1: unexpected text at column 9 after the table name"},
      {"[serve]\n@S3cr3tValue = 1\n", "line 2: expected a key at column 1"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = ParseConfigFile(text);
    EXPECT_THAT(parsed, IsErrorWithMessage(ErrorKind::kInvalidArgument, message)) << text;
    if (!parsed) {
      EXPECT_EQ(parsed.error().message.find("S3cr3t"), std::string::npos) << parsed.error().message;
    }
  }
  auto parsed = ParseConfigValue("[\"a\", S3cr3tValue]");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message.find("S3cr3t"), std::string::npos) << parsed.error().message;
}

TEST(ConfigFileTest, ParsesOneValue) {
  auto list = ParseConfigValue(R"( ["a=1", 'b=2,3'] )");
  ASSERT_THAT(list, testing::IsOk());
  EXPECT_TRUE(list->is_array);
  EXPECT_THAT(list->values, ElementsAre("a=1", "b=2,3"));
  EXPECT_THAT(ParseConfigValue("[a]"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "the value is not a TOML value"));
  EXPECT_THAT(ParseConfigValue("[\"a\"] x"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "unexpected text"));
}

}  // namespace
}  // namespace skade::cli
