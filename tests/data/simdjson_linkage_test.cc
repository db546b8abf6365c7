// Regression test for the simdjson symbol clash with pyarrow's libparquet
// (cmake/Dependencies.cmake): in a binary that links Parquet, skade's
// simdjson calls must reach the simdjson skade was compiled against. When
// they reached libparquet's copy instead, a dom::parser that had to grow for
// a larger document jumped into the wrong virtual function and crashed.
#include <gtest/gtest.h>
#include <parquet/api/reader.h>

#include <string>

#include "skade/util/json_reader.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade {
namespace {

TEST(SimdjsonLinkageTest, ParserGrowsForALargerDocumentInABinaryLinkingParquet) {
  // Keeps libparquet a real dependency of this binary (--as-needed).
  EXPECT_TRUE(parquet::default_reader_properties().is_buffered_stream_enabled() ||
              !parquet::default_reader_properties().is_buffered_stream_enabled());

  simdjson::dom::parser parser;
  ASSERT_THAT(json::Parse(parser, R"({"a":1})"), testing::IsOk());
  std::string large = "[";
  for (int i = 0; i < 20000; ++i) StrAppend(&large, i == 0 ? "" : ",", "{\"key\":", i, "}");
  large += "]";
  auto document = json::Parse(parser, large);
  ASSERT_THAT(document, testing::IsOk());
  EXPECT_EQ(document->get_array().size(), 20000u);
}

}  // namespace
}  // namespace skade
