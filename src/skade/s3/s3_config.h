// S3Config: how skade reaches an S3-compatible object store, read from
// FileIO properties in Iceberg's own names (what Spark, PyIceberg and the
// REST `config` use), so one set of keys configures skade and its clients.
//
//   s3.endpoint            http(s)://host[:port] of an S3-compatible server;
//                          empty: AWS, from the region
//   s3.region              signing region (also `client.region`; then
//                          AWS_REGION / AWS_DEFAULT_REGION; else us-east-1)
//   s3.path-style-access   true: http://host/bucket/key (MinIO and most
//                          servers); default true with an endpoint, false on AWS
//   s3.access-key-id       static credentials; without them the AWS default
//   s3.secret-access-key   chain is used: AWS_ACCESS_KEY_ID /
//   s3.session-token       AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, then
//                          the profile AWS_PROFILE (default "default") of
//                          AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials),
//                          then instance metadata
//   s3.multipart.parts-in-flight   parts of one streamed upload in memory
//                          or on the wire at once (default 4; each part is
//                          Arrow's 10 MiB), the bound on a writer's memory
//   s3.retry.max-attempts  attempts for a request that failed with a
//                          throttling or 5xx answer or a connection error
//                          (default 8), with exponential back-off and jitter
//   s3.operation-timeout-ms  the bound on one of skade's own S3 requests, all
//                          attempts and pauses included (default 20000: below
//                          the REST server's 30 s request timeout); a store
//                          that does not answer within it is an I/O error
//   s3.conditional-writes  `If-None-Match: *` on the PUT of a new metadata
//                          file: auto (default: used, and dropped for the
//                          FileIO's life once the server says it does not
//                          implement it), true (required), false
//
// Secrets are never part of an error message or ToString().
// A plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <string>

#include "skade/io/file_io_registry.h"
#include "skade/s3/retry_policy.h"
#include "skade/s3/sigv4.h"
#include "skade/util/result.h"

namespace skade::s3 {

enum class ConditionalWrites { kAuto, kRequired, kOff };

struct S3Config {
  std::string endpoint_scheme = "https";  // "http" or "https"
  std::string endpoint_host;              // host[:port]; empty for AWS
  std::string region = "us-east-1";
  bool path_style = false;
  AwsCredentials credentials;  // empty: the AWS default chain
  int parts_in_flight = 4;
  int max_attempts = 8;
  int64_t operation_timeout_ms = RetryPolicy::kDefaultDeadlineMs;
  ConditionalWrites conditional_writes = ConditionalWrites::kAuto;

  /// Parses and checks `properties` (unknown keys are ignored: the same map
  /// carries other settings). kInvalidArgument naming the key for a bad value.
  static Result<S3Config> FromProperties(const io::FileIOProperties& properties);

  /// The host a request for `bucket` goes to, and the path prefix before the
  /// key ("/bucket" path-style, "" virtual-hosted).
  std::string HostFor(const std::string& bucket) const;
  std::string PathPrefixFor(const std::string& bucket) const;

  /// "scheme://host" of the endpoint (AWS's regional one when none is set).
  std::string EndpointUrl() const;

  /// Endpoint, region and path style (no secrets), for logs and errors.
  std::string ToString() const;
};

/// The property names above.
inline constexpr char kEndpointProperty[] = "s3.endpoint";
inline constexpr char kRegionProperty[] = "s3.region";
inline constexpr char kClientRegionProperty[] = "client.region";
inline constexpr char kPathStyleProperty[] = "s3.path-style-access";
inline constexpr char kAccessKeyIdProperty[] = "s3.access-key-id";
inline constexpr char kSecretAccessKeyProperty[] = "s3.secret-access-key";
inline constexpr char kSessionTokenProperty[] = "s3.session-token";
inline constexpr char kPartsInFlightProperty[] = "s3.multipart.parts-in-flight";
inline constexpr char kMaxAttemptsProperty[] = "s3.retry.max-attempts";
inline constexpr char kOperationTimeoutProperty[] = "s3.operation-timeout-ms";
inline constexpr char kConditionalWritesProperty[] = "s3.conditional-writes";

}  // namespace skade::s3
