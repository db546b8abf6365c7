// The CatalogStore implementations that the interface's contract tests (and
// the tests of what is built on the interface, such as the pointer mirror)
// run against. A new kind of store adds its line here.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "skade/store/catalog_store.h"

namespace skade::testing {

struct CatalogStoreImplementation {
  std::string name;  // the test-name suffix
  /// A location for a new, empty store, given a scratch directory of the
  /// test's own. Opening it twice gives two instances of one store.
  std::function<std::string(const std::string& scratch)> location;
  store::CatalogStoreOptions options;
};

inline std::vector<CatalogStoreImplementation> CatalogStoreImplementations() {
  store::CatalogStoreOptions lmdb;
  lmdb.map_size = 1ull << 30;
  lmdb.durability = store::Durability::kNone;
  store::CatalogStoreOptions lmdb_ungrouped = lmdb;
  lmdb_ungrouped.group_commit = false;
  auto lmdb_location = [](const std::string& scratch) { return "lmdb:" + scratch + "/store"; };
  return {
      {"lmdb", lmdb_location, lmdb},
      {"lmdb_ungrouped", lmdb_location, lmdb_ungrouped},
  };
}

/// For INSTANTIATE_TEST_SUITE_P's name generator.
inline std::string CatalogStoreImplementationName(
    const ::testing::TestParamInfo<CatalogStoreImplementation>& info) {
  return info.param.name;
}

}  // namespace skade::testing
