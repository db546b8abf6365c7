#include "skade/spec/transform.h"

#include <gtest/gtest.h>

#include "skade/spec/bucket_hash.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;
using testing::IsOk;

Literal Apply(const Transform& transform, const Literal& value) {
  auto result = transform.Apply(value);
  EXPECT_THAT(result, IsOk()) << transform.ToString() << " of " << value.ToString();
  return result ? *result : Literal();
}

// 2017-11-16T22:31:08 UTC, the spec's example instant.
constexpr int64_t kMicros = 1510871468000000;

TEST(TransformTest, ParsesKnownTransforms) {
  struct Case {
    const char* text;
    TransformKind kind;
    int32_t param;
    const char* canonical;
  };
  for (const Case& c :
       {Case{"identity", TransformKind::kIdentity, 0, "identity"},
        Case{"bucket[16]", TransformKind::kBucket, 16, "bucket[16]"},
        Case{"truncate[4]", TransformKind::kTruncate, 4, "truncate[4]"},
        Case{"year", TransformKind::kYear, 0, "year"},
        Case{"month", TransformKind::kMonth, 0, "month"},
        Case{"day", TransformKind::kDay, 0, "day"}, Case{"hour", TransformKind::kHour, 0, "hour"},
        Case{"void", TransformKind::kVoid, 0, "void"},
        Case{"Bucket[3]", TransformKind::kBucket, 3, "bucket[3]"},
        Case{" DAY ", TransformKind::kDay, 0, "day"}}) {
    auto transform = Transform::Parse(c.text);
    ASSERT_TRUE(transform) << c.text;
    EXPECT_EQ(transform->kind(), c.kind) << c.text;
    EXPECT_EQ(transform->param(), c.param) << c.text;
    EXPECT_EQ(transform->ToString(), c.canonical) << c.text;
  }
}

TEST(TransformTest, KeepsUnknownTransformsByName) {
  auto transform = Transform::Parse("zOrder[1, 2]");
  ASSERT_TRUE(transform);
  EXPECT_EQ(transform->kind(), TransformKind::kUnknown);
  EXPECT_EQ(transform->ToString(), "zOrder[1, 2]");
  EXPECT_NE(*transform, *Transform::Parse("other"));
  EXPECT_EQ(*transform, *Transform::Parse("zOrder[1, 2]"));
}

TEST(TransformTest, RejectsBadParameters) {
  for (const char* text : {"bucket[0]", "bucket[-1]", "bucket[x]", "bucket[16", "bucket[]",
                           "truncate[0]", "truncate[99999999999]",
                           // Java reads any name[digits] with an int width.
                           "x[99999999999]", "zorder[2147483648]"}) {
    EXPECT_THAT(Transform::Parse(text), IsError(ErrorKind::kInvalidArgument)) << text;
  }
  EXPECT_EQ(Transform::Parse("x[5]")->kind(), TransformKind::kUnknown);
}

TEST(TransformTest, ResultTypes) {
  auto result = [](const Transform& transform, const TypePtr& source) -> std::string {
    auto type = transform.ResultType(source);
    return type ? (*type)->ToString() : "error";
  };
  EXPECT_EQ(result(Transform::Identity(), Type::String()), "string");
  EXPECT_EQ(result(Transform::Bucket(8), Type::String()), "int");
  EXPECT_EQ(result(Transform::Bucket(8), Type::Uuid()), "int");
  EXPECT_EQ(result(Transform::Bucket(8), Type::Decimal(9, 2)), "int");
  EXPECT_EQ(result(Transform::Truncate(3), Type::String()), "string");
  EXPECT_EQ(result(Transform::Truncate(3), Type::Decimal(9, 2)), "decimal(9, 2)");
  EXPECT_EQ(result(Transform::Year(), Type::Date()), "int");
  EXPECT_EQ(result(Transform::Month(), Type::TimestampTz()), "int");
  EXPECT_EQ(result(Transform::Day(), Type::Timestamp()), "date");
  EXPECT_EQ(result(Transform::Hour(), Type::TimestampNs()), "int");
  EXPECT_EQ(result(Transform::Void(), Type::Double()), "double");
}

TEST(TransformTest, RejectsUnsupportedSourceTypes) {
  EXPECT_THAT(Transform::Bucket(4).ResultType(Type::Double()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Bucket(4).ResultType(Type::Boolean()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Truncate(4).ResultType(Type::Uuid()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Hour().ResultType(Type::Date()), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Day().ResultType(Type::String()), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Identity().ResultType(Type::Variant()),
              IsError(ErrorKind::kInvalidArgument));
  auto list = Type::List(NestedField{2, "", Type::Int(), false});
  EXPECT_THAT(Transform::Identity().ResultType(list), IsError(ErrorKind::kInvalidArgument));
}

// The examples of the spec's "Partition Transforms" and Appendix B.
TEST(TransformApplyTest, SpecExamples) {
  EXPECT_EQ(Apply(Transform::Bucket(16), Literal::Int(34)), Literal::Int(BucketOf(2017239379, 16)));
  EXPECT_EQ(Apply(Transform::Bucket(16), Literal::Long(34)),
            Literal::Int(BucketOf(2017239379, 16)));
  EXPECT_EQ(Apply(Transform::Bucket(1000), Literal::String("iceberg")),
            Literal::Int(BucketOf(1210000089, 1000)));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Int(1)), Literal::Int(0));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Int(-1)), Literal::Int(-10));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Long(-1)), Literal::Long(-10));
  EXPECT_EQ(Apply(Transform::Truncate(3), Literal::String("iceberg")), Literal::String("ice"));
  // 10.65 truncated to width 50 is 10.50 (unscaled 1065 -> 1050 = 0x041A).
  auto decimal = Type::Decimal(9, 2);
  EXPECT_EQ(Apply(Transform::Truncate(50), Literal(decimal, std::string("\x04\x29", 2))),
            Literal(decimal, std::string("\x04\x1A", 2)));

  Literal ts(Type::TimestampTz(), kMicros);
  EXPECT_EQ(Apply(Transform::Year(), ts), Literal::Int(47));
  EXPECT_EQ(Apply(Transform::Month(), ts), Literal::Int(47 * 12 + 10));
  EXPECT_EQ(Apply(Transform::Day(), ts), Literal::Date(17486));
  EXPECT_EQ(Apply(Transform::Hour(), ts), Literal::Int(419686));
  EXPECT_EQ(Apply(Transform::Day(), Literal(Type::TimestampNs(), kMicros * 1000 + 999)),
            Literal::Date(17486));
  EXPECT_EQ(Apply(Transform::Month(), Literal::Date(17486)), Literal::Int(574));
}

TEST(TransformApplyTest, TimeTransformsFloorBeforeTheEpoch) {
  Literal before(Type::Timestamp(), int64_t{-1});
  EXPECT_EQ(Apply(Transform::Hour(), before), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Day(), before), Literal::Date(-1));
  EXPECT_EQ(Apply(Transform::Month(), before), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Year(), before), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Year(), Literal::Date(-366)), Literal::Int(-2));
}

TEST(TransformApplyTest, NullsVoidAndIdentity) {
  EXPECT_EQ(Apply(Transform::Bucket(4), Literal::Null(Type::Long())), Literal::Null(Type::Int()));
  EXPECT_EQ(Apply(Transform::Day(), Literal::Null(Type::Timestamp())), Literal::Null(Type::Date()));
  EXPECT_EQ(Apply(Transform::Void(), Literal::String("x")), Literal::Null(Type::String()));
  EXPECT_EQ(Apply(Transform::Identity(), Literal::String("x")), Literal::String("x"));
}

TEST(TransformApplyTest, RejectsWhatDoesNotApply) {
  EXPECT_THAT(Transform::Day().Apply(Literal::String("x")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Bucket(2).Apply(Literal::Double(1.5)),
              IsError(ErrorKind::kInvalidArgument));
  // A long-typed literal that holds a string.
  EXPECT_THAT(Transform::Bucket(2).Apply(Literal(Type::Long(), std::string("x"))),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Parse("zorder")->Apply(Literal::Int(1)), IsError(ErrorKind::kUnsupported));
}

}  // namespace
}  // namespace skade::spec
