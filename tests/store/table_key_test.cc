#include "skade/store/table_key.h"

#include <gtest/gtest.h>

namespace skade::store {
namespace {

TEST(TableKeyTest, TableKeysRoundTripAndGroupByNamespace) {
  spec::TableIdentifier identifier{{"sales", "eu"}, "orders"};
  std::string key = TableKey(identifier);
  EXPECT_TRUE(key.starts_with(TablePrefix({"sales", "eu"})));
  EXPECT_FALSE(key.starts_with(TablePrefix({"sales"})));
  EXPECT_EQ(TableIdentifierFromKey(key), identifier);
  EXPECT_EQ(NamespaceFromKey(NamespaceKey({"a", "b", "c"})), (spec::Namespace{"a", "b", "c"}));
}

}  // namespace
}  // namespace skade::store
