#include "skade/spec/transform.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;

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
                           "truncate[0]", "truncate[99999999999]"}) {
    EXPECT_THAT(Transform::Parse(text), IsError(ErrorKind::kInvalidArgument)) << text;
  }
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

}  // namespace
}  // namespace skade::spec
