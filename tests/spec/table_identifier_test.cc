#include "skade/spec/table_identifier.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;

TEST(TableIdentifierTest, PlainTextSplitsOnEveryDot) {
  auto parsed = ParseTableIdentifier("a.b.t");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, (TableIdentifier{{"a", "b"}, "t"}));
  EXPECT_EQ(QuotedIdentifier(*parsed), "a.b.t");
  EXPECT_EQ(*ParseNamespace("a.b"), (Namespace{"a", "b"}));
}

// Regression: table "x.y" in namespace q and table y in namespace q.x both
// printed as q.x.y, and the CLI could only ever reach the second.
TEST(TableIdentifierTest, QuotedLevelsHoldDotsAndRoundTrip) {
  const TableIdentifier dotted{{"q"}, "x.y"};
  const TableIdentifier nested{{"q", "x"}, "y"};
  EXPECT_EQ(QuotedIdentifier(dotted), "q.`x.y`");
  EXPECT_EQ(QuotedIdentifier(nested), "q.x.y");
  EXPECT_EQ(*ParseTableIdentifier("q.`x.y`"), dotted);
  EXPECT_EQ(*ParseTableIdentifier("q.x.y"), nested);
  EXPECT_EQ(*ParseTableIdentifier("`q`.`y`"), (TableIdentifier{{"q"}, "y"}));

  for (const TableIdentifier& identifier :
       {TableIdentifier{{"p.c"}, "t"}, TableIdentifier{{"a"}, "`tick"},
        TableIdentifier{{"a`b", "c.`d`"}, "e``f"}, TableIdentifier{{"a"}, "with space"}}) {
    auto back = ParseTableIdentifier(QuotedIdentifier(identifier));
    ASSERT_TRUE(back) << QuotedIdentifier(identifier) << ": " << back.error().ToString();
    EXPECT_EQ(*back, identifier) << QuotedIdentifier(identifier);
  }
  EXPECT_EQ(QuotedNamespace({"p.c"}), "`p.c`");
  EXPECT_EQ(*ParseNamespace("`p.c`"), (Namespace{"p.c"}));
  EXPECT_EQ(*ParseNamespace("p.c"), (Namespace{"p", "c"}));
}

TEST(TableIdentifierTest, MalformedQuotingIsRefused) {
  for (const char* text : {"a.`b", "`a`b.t", "a.`b`c", "a.``", "t", "a..t", "a.", ".t"}) {
    EXPECT_THAT(ParseTableIdentifier(text), IsError(ErrorKind::kInvalidArgument)) << text;
  }
  EXPECT_THAT(ParseNamespace("`a"), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::spec
