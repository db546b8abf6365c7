// Must not compile: a Status is dropped (see tests/util/CMakeLists.txt).
#include "skade/util/result.h"

skade::Status Fallible() { return skade::OkStatus(); }

int main() {
#ifdef SKADE_DROP_RESULT
  Fallible();
#else
  (void)Fallible();
  skade::Result<int> value =
      skade::Result<int>(2).and_then([](int v) -> skade::Result<int> { return v + 1; });
  return *value == 3 ? 0 : 1;
#endif
}
