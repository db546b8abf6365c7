// RetryPolicy: which failed S3 requests are tried again, after how long, and
// for how long in all. One policy for the requests skade signs itself
// (s3_client.h) and for Arrow's S3 file system (through its S3RetryStrategy
// hook), so both back off the same way: throttling (429, 503 SlowDown), other
// 5xx answers and connection errors are retried, up to `max_attempts` in all,
// after exponentially growing pauses with full jitter (base 50 ms, cap 5 s).
// An attempt whose transfer stalls (not a byte for kStallSeconds: a server
// that accepted and never answers) is given up, as a connection error.
//
// One operation — every attempt and every pause — ends within `deadline_ms`
// (s3.operation-timeout-ms) in skade's own requests: a stalled store then
// costs a REST request less than the server's request timeout (30 s by
// default), not max_attempts × kStallSeconds (four minutes), and the client
// learns why. Arrow's calls (listings, multipart streams) have no such hook;
// they are bounded by max_attempts × kStallSeconds.
//
// Immutable; thread-safe.
#pragma once

#include <cstdint>

namespace skade::s3 {

class RetryPolicy {
 public:
  /// Long enough for a busy server's slowest answer; short enough that a
  /// stalled one costs minutes at most, not max_attempts × 2 minutes.
  static constexpr int kStallSeconds = 30;
  /// The default bound on one operation, all attempts and pauses included:
  /// below the REST server's default request timeout (30 s), so a client
  /// gets an error rather than a closed connection.
  static constexpr int64_t kDefaultDeadlineMs = 20'000;

  explicit RetryPolicy(int max_attempts, int64_t deadline_ms = kDefaultDeadlineMs)
      : max_attempts_(max_attempts), deadline_ms_(deadline_ms) {}

  /// True if a request that got HTTP `status` (0: no answer, a connection
  /// error) on its `attempt`-th try (1-based) should be sent again.
  bool ShouldRetry(long status, int attempt) const;

  /// Milliseconds to wait before the try after `attempt`.
  int64_t DelayMs(int attempt) const;

  int max_attempts() const { return max_attempts_; }
  /// The bound on one operation, in milliseconds.
  int64_t deadline_ms() const { return deadline_ms_; }

  /// True for the answers worth retrying (0, 429, 5xx but 501).
  static bool IsTransient(long status);

 private:
  int max_attempts_;
  int64_t deadline_ms_;
};

}  // namespace skade::s3
