#include "skade/s3/retry_policy.h"

#include <algorithm>

#include "skade/util/random.h"

namespace skade::s3 {

namespace {
constexpr int64_t kBaseDelayMs = 50;
constexpr int64_t kMaxDelayMs = 5000;
}  // namespace

bool RetryPolicy::IsTransient(long status) {
  return status == 0 || status == 429 || (status >= 500 && status != 501);
}

bool RetryPolicy::ShouldRetry(long status, int attempt) const {
  return attempt < max_attempts_ && IsTransient(status);
}

int64_t RetryPolicy::DelayMs(int attempt) const {
  int64_t ceiling = std::min(kMaxDelayMs, kBaseDelayMs << std::min(attempt - 1, 10));
  return static_cast<int64_t>(RandomU64() % static_cast<uint64_t>(ceiling + 1));
}

}  // namespace skade::s3
