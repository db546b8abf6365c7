#include <gtest/gtest.h>

#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;

TEST(JsonWriterTest, WritesNestedValuesWithCommas) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("name", "t\"1\n");
  writer.Key("ids");
  writer.StartArray();
  writer.Int(1);
  writer.Int(-2);
  writer.EndArray();
  writer.Key("empty");
  writer.StartObject();
  writer.EndObject();
  writer.Field("ok", true);
  writer.Key("none");
  writer.Null();
  writer.Key("pi");
  writer.Double(3.5);
  writer.EndObject();
  EXPECT_EQ(writer.str(),
            R"({"name":"t\"1\n","ids":[1,-2],"empty":{},"ok":true,"none":null,"pi":3.5})");
}

TEST(JsonWriterTest, EscapesControlCharacters) {
  std::string out;
  JsonWriter::AppendQuoted(&out, std::string("a\x01z\\", 4));
  EXPECT_EQ(out, "\"a\\u0001z\\\\\"");
}

TEST(JsonReaderTest, RoundTripsThroughTheWriter) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("s", "x\ty");
  writer.Field("n", int64_t{-9007199254740993});
  writer.EndObject();
  simdjson::dom::parser parser;
  auto element = json::Parse(parser, writer.str());
  ASSERT_TRUE(element);
  auto object = json::AsObject(*element, "doc");
  ASSERT_TRUE(object);
  EXPECT_EQ(*json::GetString(*object, "s"), "x\ty");
  EXPECT_EQ(*json::GetInt64(*object, "n"), -9007199254740993);
}

// Every ASCII character, escapes between plain runs and at both ends, and
// multi-byte UTF-8 come back unchanged through a real JSON parser.
TEST(JsonReaderTest, EveryCharacterRoundTripsThroughTheWriter) {
  std::string text = "\"start";
  for (int c = 0; c < 0x80; ++c) text += StrCat("run", std::string(1, static_cast<char>(c)));
  text += "gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\xA7\x8A\\";
  JsonWriter writer;
  writer.StartObject();
  writer.Field("s", text);
  writer.EndObject();
  simdjson::dom::parser parser;
  auto element = json::Parse(parser, writer.str());
  ASSERT_TRUE(element) << writer.str();
  auto object = json::AsObject(*element, "doc");
  ASSERT_TRUE(object);
  EXPECT_EQ(*json::GetString(*object, "s"), text);
}

TEST(JsonReaderTest, MissingAndMistypedFieldsNameTheField) {
  simdjson::dom::parser parser;
  auto element = json::Parse(parser, R"({"a": "x", "b": 1, "c": null, "m": {"k": 1}})");
  ASSERT_TRUE(element);
  auto object = *json::AsObject(*element, "doc");
  EXPECT_THAT(
      json::GetString(object, "location"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse missing string: location"));
  EXPECT_THAT(json::GetInt64(object, "a"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "a"));
  EXPECT_THAT(json::GetInt32(object, "c"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(json::GetOptionalString(object, "c")->has_value());
  EXPECT_THAT(json::GetStringMap(object, "m"), IsError(ErrorKind::kInvalidArgument));
}

TEST(JsonReaderTest, MalformedJsonIsInvalidArgument) {
  simdjson::dom::parser parser;
  EXPECT_THAT(json::Parse(parser, "{\"a\": "),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "malformed JSON"));
  EXPECT_THAT(json::Parse(parser, ""), IsError(ErrorKind::kInvalidArgument));
}

// Readers disagree on which of two equal keys counts: a document with one
// is refused, at any depth and however the key is escaped.
TEST(JsonReaderTest, AKeyTwiceInOneObjectIsRefused) {
  simdjson::dom::parser parser;
  for (const char* text : {R"({"a":1,"a":2})", R"({"x":[{"id":1},{"id":2,"n":{"k":1,"k":1}}]})",
                           R"({"a":1,"\u0061":2})", R"([[{"b":0,"c":0,"b":0}]])"}) {
    auto parsed = json::Parse(parser, text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_THAT(json::CheckUniqueKeys(*parsed),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "appears twice"))
        << text;
  }
  // The same key in different objects, or as a value, is fine.
  for (const char* text : {R"({"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"a"})", "[]", "7", "{}"}) {
    auto parsed = json::Parse(parser, text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_THAT(json::CheckUniqueKeys(*parsed), testing::IsOk()) << text;
  }
}

}  // namespace
}  // namespace skade
