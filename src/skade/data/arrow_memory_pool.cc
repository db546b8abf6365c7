#include "skade/data/arrow_memory_pool.h"

#include <arrow/memory_pool.h>

#include <cstdlib>

namespace skade::data {

void PreferJemallocArrowPool() {
  constexpr char kVariable[] = "ARROW_DEFAULT_MEMORY_POOL";
  if (std::getenv(kVariable) != nullptr) return;
  arrow::MemoryPool* jemalloc = nullptr;
  if (!arrow::jemalloc_memory_pool(&jemalloc).ok()) return;
  ::setenv(kVariable, "jemalloc", /*overwrite=*/0);
}

}  // namespace skade::data
