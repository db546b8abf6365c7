#include "skade/util/log.h"

#include <cstdio>

namespace skade {

void LogWarning(std::string_view message) {
  // stderr is unbuffered and glibc formats the whole call before one write(2).
  std::fprintf(stderr, "skade: warning: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace skade
