// PreferJemallocArrowPool: Arrow's default pool is jemalloc unless the user
// named one. Each case runs in a freshly started copy of this binary (death
// test, "threadsafe" style): Arrow picks its default pool once per process.
#include "skade/data/arrow_memory_pool.h"

#include <arrow/memory_pool.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace skade::data {
namespace {

// Exits 0 when the default pool, after the call, is `expected`.
[[noreturn]] void ExitWithDefaultPoolIs(const char* user_choice, const std::string& expected) {
  if (user_choice == nullptr) {
    ::unsetenv("ARROW_DEFAULT_MEMORY_POOL");
  } else {
    ::setenv("ARROW_DEFAULT_MEMORY_POOL", user_choice, 1);
  }
  PreferJemallocArrowPool();
  std::exit(arrow::default_memory_pool()->backend_name() == expected ? 0 : 1);
}

TEST(ArrowMemoryPoolDeathTest, JemallocUnlessTheUserChoseAnother) {
  arrow::MemoryPool* jemalloc = nullptr;
  if (!arrow::jemalloc_memory_pool(&jemalloc).ok()) GTEST_SKIP() << "Arrow built without jemalloc";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ExitWithDefaultPoolIs(nullptr, "jemalloc"), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(ExitWithDefaultPoolIs("system", "system"), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(ExitWithDefaultPoolIs("mimalloc", "mimalloc"), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace skade::data
