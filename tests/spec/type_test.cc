#include "skade/spec/type.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;

struct PrimitiveCase {
  const char* text;
  TypeId id;
  const char* canonical;
};

class ParsePrimitiveTest : public ::testing::TestWithParam<PrimitiveCase> {};

TEST_P(ParsePrimitiveTest, ParsesAndPrintsCanonicalName) {
  const auto& param = GetParam();
  auto type = Type::ParsePrimitive(param.text);
  ASSERT_TRUE(type) << type.error().ToString();
  EXPECT_EQ((*type)->id(), param.id);
  EXPECT_TRUE((*type)->is_primitive());
  EXPECT_EQ((*type)->ToString(), param.canonical);
  // The canonical name parses back to an equal type.
  auto again = Type::ParsePrimitive((*type)->ToString());
  ASSERT_TRUE(again);
  EXPECT_TRUE(TypeEquals(*type, *again));
}

INSTANTIATE_TEST_SUITE_P(
    AllPrimitives, ParsePrimitiveTest,
    ::testing::Values(
        PrimitiveCase{"boolean", TypeId::kBoolean, "boolean"},
        PrimitiveCase{"int", TypeId::kInt, "int"}, PrimitiveCase{"integer", TypeId::kInt, "int"},
        PrimitiveCase{"long", TypeId::kLong, "long"},
        PrimitiveCase{"float", TypeId::kFloat, "float"},
        PrimitiveCase{"double", TypeId::kDouble, "double"},
        PrimitiveCase{"date", TypeId::kDate, "date"}, PrimitiveCase{"time", TypeId::kTime, "time"},
        PrimitiveCase{"timestamp", TypeId::kTimestamp, "timestamp"},
        PrimitiveCase{"timestamptz", TypeId::kTimestampTz, "timestamptz"},
        PrimitiveCase{"timestamp_ns", TypeId::kTimestampNs, "timestamp_ns"},
        PrimitiveCase{"timestamptz_ns", TypeId::kTimestampTzNs, "timestamptz_ns"},
        PrimitiveCase{"string", TypeId::kString, "string"},
        PrimitiveCase{"uuid", TypeId::kUuid, "uuid"},
        PrimitiveCase{"binary", TypeId::kBinary, "binary"},
        PrimitiveCase{"unknown", TypeId::kUnknown, "unknown"},
        PrimitiveCase{"variant", TypeId::kVariant, "variant"},
        PrimitiveCase{"LONG", TypeId::kLong, "long"},
        PrimitiveCase{"decimal(9,2)", TypeId::kDecimal, "decimal(9, 2)"},
        PrimitiveCase{"decimal(9, 2)", TypeId::kDecimal, "decimal(9, 2)"},
        PrimitiveCase{" decimal( 38 , 0 ) ", TypeId::kDecimal, "decimal(38, 0)"},
        PrimitiveCase{"fixed[16]", TypeId::kFixed, "fixed[16]"},
        PrimitiveCase{"fixed[ 3 ]", TypeId::kFixed, "fixed[3]"},
        PrimitiveCase{"geometry", TypeId::kGeometry, "geometry"},
        PrimitiveCase{"geometry(srid:4326)", TypeId::kGeometry, "geometry(srid:4326)"},
        PrimitiveCase{"geography", TypeId::kGeography, "geography"},
        PrimitiveCase{"geography(srid:4326)", TypeId::kGeography, "geography(srid:4326)"},
        PrimitiveCase{"geography(srid:4326, spherical)", TypeId::kGeography,
                      "geography(srid:4326, spherical)"}));

TEST(TypeTest, DecimalAndFixedParameters) {
  auto decimal = Type::ParsePrimitive("decimal(10, 3)");
  ASSERT_TRUE(decimal);
  EXPECT_EQ((*decimal)->decimal_precision(), 10);
  EXPECT_EQ((*decimal)->decimal_scale(), 3);
  auto fixed = Type::ParsePrimitive("fixed[7]");
  ASSERT_TRUE(fixed);
  EXPECT_EQ((*fixed)->fixed_length(), 7);
  EXPECT_FALSE(TypeEquals(Type::Decimal(10, 3), Type::Decimal(10, 2)));
  EXPECT_FALSE(TypeEquals(Type::Fixed(7), Type::Fixed(8)));
  EXPECT_TRUE(TypeEquals(Type::Decimal(10, 3), *decimal));
}

TEST(TypeTest, GeoParametersKeepTheirCase) {
  auto geography = Type::ParsePrimitive("Geography(EPSG:4326, Karney)");
  ASSERT_TRUE(geography);
  EXPECT_EQ((*geography)->geo_crs(), "EPSG:4326");
  EXPECT_EQ((*geography)->geo_algorithm(), "Karney");
}

TEST(TypeTest, RejectsMalformedNames) {
  for (const char* text :
       {"", "varchar", "decimal(39, 0)", "decimal(9, 10)", "decimal(0, 0)", "decimal(9)",
        "decimal(a, b)", "decimal(9, 2", "fixed[0]", "fixed[-1]", "fixed[x]", "fixed[16", "fixed",
        "struct", "list", "map", "geography(a, b, c)",
        // Edge algorithms Iceberg Java cannot read, or one without a CRS.
        "geography(srid:4326, planar)", "geography(, spherical)", "geography(a, )"}) {
    EXPECT_THAT(Type::ParsePrimitive(text), IsError(ErrorKind::kInvalidArgument)) << text;
  }
}

TEST(TypeTest, RequiresV3ForNewTypesAndDefaults) {
  EXPECT_TRUE(Type::TimestampNs()->RequiresV3());
  EXPECT_TRUE(Type::TimestampTzNs()->RequiresV3());
  EXPECT_TRUE(Type::Unknown()->RequiresV3());
  EXPECT_TRUE(Type::Variant()->RequiresV3());
  EXPECT_TRUE(Type::Geometry("")->RequiresV3());
  EXPECT_TRUE(Type::Geography("", "")->RequiresV3());
  EXPECT_FALSE(Type::Timestamp()->RequiresV3());
  EXPECT_FALSE(Type::Decimal(9, 2)->RequiresV3());

  auto nested = Type::List(NestedField{5, "", Type::Variant(), false});
  EXPECT_TRUE(nested->RequiresV3());
  auto with_default =
      Type::Struct({NestedField{1, "a", Type::Int(), false, {}, std::string("1"), {}}});
  EXPECT_TRUE(with_default->RequiresV3());
  EXPECT_FALSE(Type::Struct({NestedField{1, "a", Type::Int(), false}})->RequiresV3());
}

TEST(TypeTest, NestedTypesNameTheirChildrenAndCompareDeeply) {
  auto list = Type::List(NestedField{3, "", Type::String(), true});
  EXPECT_EQ(list->ToString(), "list");
  EXPECT_EQ(list->list_element().name, "element");
  EXPECT_EQ(list->list_element().id, 3);

  auto map = Type::Map(NestedField{4, "", Type::String(), false},
                       NestedField{5, "", Type::Double(), false});
  EXPECT_EQ(map->map_key().name, "key");
  EXPECT_TRUE(map->map_key().required);  // map keys are always required
  EXPECT_EQ(map->map_value().name, "value");

  auto a = Type::Struct({NestedField{1, "x", list, false}});
  auto b = Type::Struct(
      {NestedField{1, "x", Type::List(NestedField{3, "", Type::String(), true}), false}});
  auto c = Type::Struct(
      {NestedField{1, "x", Type::List(NestedField{3, "", Type::String(), false}), false}});
  EXPECT_TRUE(TypeEquals(a, b));
  EXPECT_FALSE(TypeEquals(a, c));
}

}  // namespace
}  // namespace skade::spec
