#include "skade/spec/field_defaults.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsErrorWithMessage;
using testing::IsOk;

// A schema of one optional field of `type` whose initial-default is `json`.
Status WithDefault(TypePtr type, std::string json) {
  Schema schema(0, {NestedField{1, "f", std::move(type), false, {}, std::move(json), {}}});
  return CheckFieldDefaults(schema);
}

TEST(FieldDefaultsTest, ValuesJavaReadsAreTaken) {
  const std::vector<std::pair<TypePtr, std::string>> readable = {
      {Type::Boolean(), "true"},
      {Type::Int(), "34"},
      {Type::Int(), "-2147483648"},
      {Type::Long(), "9223372036854775807"},
      {Type::Float(), "1.5"},
      {Type::Double(), "-2e10"},
      {Type::Decimal(9, 2), "\"123.45\""},
      {Type::Decimal(9, 0), "\"-7\""},
      {Type::String(), "\"a\""},
      {Type::Uuid(), "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\""},
      {Type::Date(), "\"2017-11-16\""},
      {Type::Time(), "\"22:31:08.123456\""},
      {Type::Timestamp(), "\"2017-11-16T22:31:08.123456\""},
      {Type::TimestampTz(), "\"2017-11-16T22:31:08.123456+00:00\""},
      {Type::TimestampTzNs(), "\"2017-11-16T22:31:08.123456789Z\""},
      {Type::Fixed(2), "\"0aFF\""},
      {Type::Binary(), "\"\""},
      {Type::Struct({NestedField{2, "g", Type::Int(), false}}), "null"},
  };
  for (const auto& [type, json] : readable) {
    EXPECT_THAT(WithDefault(type, json), IsOk()) << type->ToString() << " " << json;
  }
}

TEST(FieldDefaultsTest, ValuesJavaCannotReadAreRefused) {
  const std::vector<std::pair<TypePtr, std::string>> unreadable = {
      {Type::Boolean(), "\"true\""},
      {Type::Int(), "\"34\""},
      {Type::Int(), "2147483648"},
      {Type::Int(), "1.0"},
      {Type::Long(), "9223372036854775808"},
      {Type::Float(), "1"},
      {Type::Double(), "\"NaN\""},
      {Type::Decimal(9, 2), "\"123.4\""},
      {Type::Decimal(9, 2), "12345"},
      {Type::String(), "5"},
      {Type::Uuid(), "\"f79c3e09677c4bbda4793f349cb785e7\""},
      {Type::Date(), "\"2017-13-01\""},
      {Type::Timestamp(), "\"2017-11-16\""},
      {Type::Timestamp(), "\"2017-11-16T22:31:08+00:00\""},
      {Type::TimestampTz(), "\"2017-11-16T22:31:08+01:00\""},
      {Type::TimestampTz(), "\"2017-11-16T22:31:08\""},
      {Type::Fixed(2), "\"0aF\""},
      {Type::Binary(), "\"0g\""},
      {Type::Struct({NestedField{2, "g", Type::Int(), false}}), "{}"},
      {Type::List(NestedField{2, "", Type::Int(), false}), "[1]"},
      {Type::Variant(), "\"x\""},
      {Type::Unknown(), "1"},
  };
  for (const auto& [type, json] : unreadable) {
    EXPECT_THAT(WithDefault(type, json), IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                                            "Invalid initial-default of field f"))
        << type->ToString() << " " << json;
  }
}

TEST(FieldDefaultsTest, NestedFieldsAndWriteDefaultsAreChecked) {
  Schema nested(
      0, {NestedField{1, "s",
                      Type::Struct({NestedField{
                          2, "inner", Type::Date(), false, {}, {}, std::string("\"yesterday\"")}}),
                      false}});
  EXPECT_THAT(CheckFieldDefaults(nested),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Invalid write-default of field inner (date): \"yesterday\""));
}

}  // namespace
}  // namespace skade::spec
