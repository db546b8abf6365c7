#include "skade/expr/expression_json.h"

#include <gtest/gtest.h>

#include "expr/test_schema.h"
#include "skade/expr/expression_parser.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsError;
using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using spec::Literal;

ExpressionPtr FromJson(std::string_view json) {
  auto parsed = ParseExpressionJson(json);
  EXPECT_THAT(parsed, IsOk()) << json;
  return parsed ? *parsed : Expression::False();
}

ExpressionPtr FromText(std::string_view text) {
  auto parsed = ParseExpression(text);
  EXPECT_THAT(parsed, IsOk()) << text;
  return parsed ? *parsed : Expression::False();
}

TEST(ExpressionJsonTest, ReadsTheRestSpecForms) {
  struct Case {
    const char* json;
    const char* text;
  };
  Case cases[] = {
      {"true", "true"},
      {"false", "false"},
      {R"js({"type":"true"})js", "true"},
      {R"js({"type":"lt","term":"id","value":5})js", "id < 5"},
      {R"js({"type":"lt-eq","term":"id","value":5.5})js", "id <= 5.5"},
      {R"js({"type":"eq","term":"name","value":"x"})js", "name = 'x'"},
      {R"js({"type":"not-eq","term":"flag","value":true})js", "flag != true"},
      {R"js({"type":"in","term":"id","values":[1,2,3]})js", "id in (1, 2, 3)"},
      {R"js({"type":"not-in","term":"id","values":["a"]})js", "id not in ('a')"},
      {R"js({"type":"is-null","term":"id"})js", "id is null"},
      {R"js({"type":"not-null","child":"id"})js", "id is not null"},
      {R"js({"type":"is-nan","term":"x"})js", "x is nan"},
      {R"js({"type":"not-nan","term":"x"})js", "x is not nan"},
      {R"js({"type":"starts-with","term":"name","value":"ab"})js", "name starts with 'ab'"},
      {R"js({"type":"not-starts-with","term":"name","value":"ab"})js", "name not starts with 'ab'"},
      {R"js({"type":"and","left":{"type":"gt","term":"id","value":1},"right":{"type":"lt","term":"id","value":9}})js",
       "id > 1 and id < 9"},
      {R"js({"type":"or","left":true,"right":{"type":"lt","term":"id","value":9}})js", "true"},
      {R"js({"type":"not","child":{"type":"gt-eq","term":"id","value":1}})js", "not id >= 1"},
      {R"js({"type":"eq","term":{"type":"transform","transform":"day","term":"ts"},"value":"2026-11-01"})js",
       "day(ts) = '2026-11-01'"},
      {R"js({"type":"eq","term":{"type":"transform","transform":"bucket[16]","term":"id"},"value":3})js",
       "bucket(16, id) = 3"},
      // The newer left/right, child and reference forms.
      {R"js({"type":"gt","left":{"type":"reference","name":"id"},"right":5})js", "id > 5"},
      {R"js({"type":"gt","left":5,"right":{"type":"reference","name":"id"}})js", "id < 5"},
      {R"js({"type":"eq","left":{"type":"apply","function":"truncate","arguments":[4,{"type":"reference","name":"s"}]},"right":"ab"})js",
       "truncate(4, s) = 'ab'"},
      {R"js({"type":"in","child":{"type":"reference","name":"id"},"values":[{"type":"literal","value":7}]})js",
       "id in (7)"},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(FromJson(c.json)->Equals(*FromText(c.text)))
        << c.json << " read as " << FromJson(c.json)->ToString();
  }
}

TEST(ExpressionJsonTest, TypedLiteralsConvertOnRead) {
  auto parsed = FromJson(
      R"js({"type":"eq","left":{"type":"reference","name":"d"},"right":{"type":"literal","value":"2026-11-01","data-type":"date"}})js");
  EXPECT_EQ(parsed->literals()[0], Literal::Date(20758));
  auto set = FromJson(
      R"js({"type":"in","term":"dec","values":{"type":"literals","values":["1.50","2"],"data-type":"decimal(9, 2)"}})js");
  ASSERT_EQ(set->literals().size(), 2u);
  EXPECT_EQ(set->literals()[0].type()->ToString(), "decimal(9, 2)");
}

TEST(ExpressionJsonTest, WritesWhatItReads) {
  for (const char* text :
       {"id > 5 and day(ts) = '2026-11-01'", "not (a = 1 or b in (1, 2))", "x = 1.5 or y is nan",
        "bucket(16, id) != 3", "s not starts with 'p'", "true", "false",
        "flag = false and name is not null", "x = 1.0", "x != -0.0"}) {
    auto expression = FromText(text);
    std::string json = ExpressionToJson(*expression);
    EXPECT_TRUE(FromJson(json)->Equals(*expression)) << text << " wrote " << json;
  }
  EXPECT_EQ(
      ExpressionToJson(*FromText("id > 5 and bucket(16, id) in (1, 2)")),
      R"js({"type":"and","left":{"type":"gt","term":"id","value":5},"right":{"type":"in",)js"
      R"js("term":{"type":"transform","transform":"bucket[16]","term":"id"},"values":[1,2]}})js");
}

TEST(ExpressionJsonTest, BoundExpressionsBindBackToThemselves) {
  auto schema = testing::AllTypesSchema();
  for (const char* text : {"d = '2026-11-01'",
                           "ts >= '2026-11-01T12:00:00.000001'",
                           "tstz < '2026-11-01T12:00:00Z'",
                           "tsns = '2026-11-01T12:00:00.123456789'",
                           "tstzns > '2026-11-01T12:00:00.1+01:00'",
                           "dec in (1.5, '-2.25', 7)",
                           "u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'",
                           "b = '00FF10'",
                           "fx != '78797A'",
                           "f < 1.1",
                           "x > -1e300 and x < inf",
                           "t = '10:00:00'",
                           "flag = true",
                           "i in (1, 2) or id != 5",
                           "day(ts) = '2026-11-01'",
                           "bucket(8, name) = 3",
                           "truncate(2, name) = 'ab'",
                           "loc.lat > 0.5",
                           "name starts with 'a'",
                           "i is null and x is not nan",
                           "false",
                           "true",
                           "d < 2000000000",
                           "ts > -9223372036854775807",
                           "x < inf"}) {
    auto parsed = ParseExpression(text);
    ASSERT_THAT(parsed, IsOk()) << text;
    auto bound = Bind(**parsed, *schema);
    ASSERT_THAT(bound, IsOk()) << text;
    JsonWriter writer;
    WriteBoundExpressionJson(**bound, *schema, writer);
    auto reread = ParseExpressionJson(writer.str());
    ASSERT_THAT(reread, IsOk()) << writer.str();
    auto rebound = Bind(**reread, *schema);
    ASSERT_THAT(rebound, IsOk()) << writer.str();
    EXPECT_TRUE((*rebound)->Equals(**bound)) << text << " wrote " << writer.str();
  }
  auto bound = Bind(*FromText("d = '2026-11-01' and dec > 1.5"), *schema);
  JsonWriter writer;
  WriteBoundExpressionJson(**bound, *schema, writer);
  EXPECT_EQ(writer.str(),
            R"js({"type":"and","left":{"type":"eq","term":"d","value":"2026-11-01"},)js"
            R"js("right":{"type":"gt","term":"dec","value":"1.50"}})js");
}

// Planning costs grow with a filter's predicates and set values: a filter
// of more than 100,000 is refused as it is read, in either literal form.
TEST(ExpressionJsonTest, AFilterOfTooManyPredicatesOrValuesIsRefused) {
  auto in_list = [](size_t values, bool typed) {
    std::string list = "[0";
    for (size_t i = 1; i < values; ++i) StrAppend(&list, ",", i);
    list += "]";
    if (typed) list = StrCat(R"({"type":"literals","data-type":"long","values":)", list, "}");
    return StrCat(R"({"type":"in","term":"id","values":)", list, "}");
  };
  EXPECT_THAT(ParseExpressionJson(in_list(99'999, false)), IsOk());
  EXPECT_THAT(ParseExpressionJson(in_list(100'001, false)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than 100000"));
  EXPECT_THAT(ParseExpressionJson(in_list(100'001, true)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than 100000"));
  // A left-deep tree of single predicates counts each.
  std::string tree = R"({"type":"eq","term":"id","value":0})";
  for (int i = 1; i <= 600; ++i) {
    tree = StrCat(R"({"type":"or","left":)", tree, R"(,"right":)", in_list(200, false), "}");
  }
  EXPECT_THAT(ParseExpressionJson(tree),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than 100000"));
}

TEST(ExpressionJsonTest, ReportsThePathOfTheFault) {
  EXPECT_THAT(ParseExpressionJson(
                  R"js({"type":"and","left":{"type":"lt","term":5,"value":1},"right":true})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "filter.left.term: expected a string or object"));
  EXPECT_THAT(ParseExpressionJson(R"js({"type":"lt","term":"id"})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.value: missing"));
  EXPECT_THAT(ParseExpressionJson(R"js({"type":"lt","term":"id","value":null})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.value: null"));
  EXPECT_THAT(
      ParseExpressionJson(R"js({"type":"in","term":"id","values":[]})js"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.values: expected at least one"));
  EXPECT_THAT(ParseExpressionJson(R"js({"type":"in","term":"id","values":[1,[2]]})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.values[1]"));
  EXPECT_THAT(ParseExpressionJson(R"js({"type":"like","term":"id","value":1})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "unknown expression type 'like'"));
  EXPECT_THAT(ParseExpressionJson(R"js({"term":"id"})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.type: missing"));
  EXPECT_THAT(ParseExpressionJson(R"js({"type":"not"})js"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.child: missing"));
  EXPECT_THAT(
      ParseExpressionJson(
          R"js({"type":"eq","term":{"type":"transform","transform":"zorder","term":"id"},"value":1})js"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "unknown transform 'zorder'"));
  EXPECT_THAT(
      ParseExpressionJson(R"js({"type":"eq","term":{"type":"reference","id":3},"value":1})js"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "references by field id"));
  EXPECT_THAT(
      ParseExpressionJson(
          R"js({"type":"eq","term":"d","value":{"type":"literal","value":"x","data-type":"date"}})js"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter.value.value: Invalid date"));
  EXPECT_THAT(
      ParseExpressionJson("[1]"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "filter: expected a boolean or an object"));
  EXPECT_THAT(ParseExpressionJson("{"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "JSON"));
  auto nested = [](int depth) {
    std::string json;
    for (int i = 0; i < depth; ++i) json += R"js({"type":"not","child":)js";
    return json + "true" + std::string(depth, '}');
  };
  EXPECT_THAT(ParseExpressionJson(nested(1010)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "nested too deeply"));
  EXPECT_THAT(ParseExpressionJson(nested(100000)), IsError(ErrorKind::kInvalidArgument));
  // A conjunction of 900 predicates as a left-deep tree, as clients send it.
  std::string chain = R"js({"type":"eq","term":"id","value":0})js";
  for (int i = 1; i < 900; ++i) {
    chain = StrCat(R"js({"type":"and","left":)js", chain,
                   R"js(,"right":{"type":"not-eq","term":"id","value":)js", i, "}}");
  }
  EXPECT_THAT(ParseExpressionJson(chain), IsOk());
}

}  // namespace
}  // namespace skade::expr
