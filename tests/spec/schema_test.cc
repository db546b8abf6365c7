#include "skade/spec/schema.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsErrorWithMessage;
using testing::IsOk;

NestedField Field(int32_t id, std::string name, TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), std::move(type), required};
}

// id, data, location{lat, long} (required struct), tags list<string>,
// props map<string, double>, opt{inner} (optional struct).
std::vector<NestedField> SampleFields() {
  return {
      Field(1, "id", Type::Long(), true),
      Field(2, "data", Type::String()),
      Field(3, "location",
            Type::Struct(
                {Field(4, "lat", Type::Double(), true), Field(5, "long", Type::Int(), true)}),
            true),
      Field(6, "tags", Type::List(Field(7, "", Type::String(), true))),
      Field(8, "props", Type::Map(Field(9, "", Type::String()), Field(10, "", Type::Double()))),
      Field(11, "opt", Type::Struct({Field(12, "inner", Type::Int(), true)})),
  };
}

TEST(SchemaTest, IndexesFieldsAtEveryDepth) {
  Schema schema(3, SampleFields());
  EXPECT_EQ(schema.schema_id(), 3);
  EXPECT_EQ(schema.HighestFieldId(), 12);
  ASSERT_NE(schema.FindFieldById(4), nullptr);
  EXPECT_EQ(schema.FindFieldById(4)->name, "lat");
  EXPECT_EQ(schema.FindFieldById(99), nullptr);
  EXPECT_EQ(schema.FindColumnName(7), "tags.element");
  EXPECT_EQ(schema.FindColumnName(10), "props.value");
  EXPECT_EQ(schema.FindParentId(5), 3);
  EXPECT_EQ(schema.FindParentId(1), -1);
  ASSERT_NE(schema.FindFieldByName("location.long"), nullptr);
  EXPECT_EQ(schema.FindFieldByName("location.long")->id, 5);
  EXPECT_EQ(schema.FindFieldByName("LOCATION.Long"), nullptr);
  ASSERT_NE(schema.FindFieldByName("LOCATION.Long", /*case_sensitive=*/false), nullptr);
  EXPECT_EQ(schema.FindFieldByName("LOCATION.Long", false)->id, 5);
}

TEST(SchemaTest, SameSchemaIgnoresTheId) {
  Schema a(1, SampleFields(), {1});
  Schema b(2, SampleFields(), {1});
  Schema c(1, SampleFields());
  EXPECT_TRUE(a.SameSchema(b));
  EXPECT_FALSE(a.SameSchema(c));
  EXPECT_EQ(a.WithId(7)->schema_id(), 7);
  EXPECT_TRUE(a.WithId(7)->SameSchema(a));
}

TEST(SchemaTest, ValidAcceptsIdentifierFieldsInRequiredStructs) {
  EXPECT_THAT(Schema(0, SampleFields(), {1, 5}).Validate(2), IsOk());
}

TEST(SchemaTest, RejectsDuplicateIds) {
  auto fields = SampleFields();
  fields.push_back(Field(4, "again", Type::Int()));
  EXPECT_THAT(Schema(0, fields).Validate(2),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Multiple entries with same key: 4"));
}

TEST(SchemaTest, RejectsDuplicateNamesInOneStructOnly) {
  auto fields = SampleFields();
  fields.push_back(Field(20, "data", Type::Int()));
  EXPECT_THAT(Schema(0, fields).Validate(2),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "multiple fields for name data"));
  // The same name in another struct is fine.
  auto nested = SampleFields();
  nested.push_back(Field(20, "s", Type::Struct({Field(21, "data", Type::Int())})));
  EXPECT_THAT(Schema(0, nested).Validate(2), IsOk());
}

// Names are unique per struct, yet a full name can be two fields': Iceberg
// Java and PyIceberg refuse such a schema, so it is refused here too.
TEST(SchemaTest, RejectsTwoFieldsWithOneFullName) {
  Schema dotted(
      0, {Field(1, "a.b", Type::Int()), Field(2, "a", Type::Struct({Field(3, "b", Type::Int())}))});
  EXPECT_THAT(dotted.Validate(2), IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                                     "multiple fields for name a.b: 1 and 3"));
  Schema apart(
      0, {Field(1, "a.c", Type::Int()), Field(2, "a", Type::Struct({Field(3, "b", Type::Int())}))});
  EXPECT_THAT(apart.Validate(2), IsOk());
}

// A variant is not a primitive (Iceberg Java's VariantType is not).
TEST(SchemaTest, AVariantIsNoIdentifierField) {
  Schema variant(0, {Field(1, "v", Type::Variant(), true)}, {1});
  EXPECT_THAT(variant.Validate(3),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not a primitive type field"));
}

TEST(SchemaTest, IdentifierFieldRules) {
  auto invalid = [](int32_t id) { return Schema(0, SampleFields(), {id}).Validate(2); };
  EXPECT_THAT(invalid(99), IsErrorWithMessage(ErrorKind::kInvalidArgument, "does not exist"));
  EXPECT_THAT(invalid(2), IsErrorWithMessage(ErrorKind::kInvalidArgument, "not a required field"));
  EXPECT_THAT(invalid(4), IsErrorWithMessage(ErrorKind::kInvalidArgument, "float or double"));
  EXPECT_THAT(invalid(3), IsErrorWithMessage(ErrorKind::kInvalidArgument, "not a primitive"));
  EXPECT_THAT(invalid(7), IsErrorWithMessage(ErrorKind::kInvalidArgument, "nested in list"));
  EXPECT_THAT(invalid(9), IsErrorWithMessage(ErrorKind::kInvalidArgument, "nested in map"));
  EXPECT_THAT(invalid(12), IsErrorWithMessage(ErrorKind::kInvalidArgument, "optional field opt"));
}

TEST(SchemaTest, V3TypesAndDefaultsNeedFormatVersion3) {
  Schema nanos(0, {Field(1, "ts", Type::TimestampNs())});
  EXPECT_THAT(nanos.Validate(2), IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                                    "timestamp_ns is not supported until v3"));
  EXPECT_THAT(nanos.Validate(3), IsOk());

  Schema nested(0, {Field(1, "v", Type::List(Field(2, "", Type::Variant())))});
  EXPECT_THAT(nested.Validate(1),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not supported until v3"));
  EXPECT_THAT(nested.Validate(3), IsOk());

  Schema with_default(0, {NestedField{1, "n", Type::Int(), false, {}, std::string("34"), {}}});
  EXPECT_THAT(with_default.Validate(2),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not supported until v3"));
  EXPECT_THAT(with_default.Validate(3), IsOk());

  Schema required_unknown(0, {Field(1, "u", Type::Unknown(), true)});
  EXPECT_THAT(required_unknown.Validate(3),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "required field with unknown type"));
}

}  // namespace
}  // namespace skade::spec
