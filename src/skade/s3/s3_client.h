// S3Client: the few S3 requests skade signs and sends itself, over libcurl,
// because Arrow's S3 file system has no way to ask for them: the conditional
// PUT of a new metadata file (`If-None-Match: *`, so a file is never
// overwritten), a plain DELETE (Arrow's DeleteFile also writes directory
// marker objects), and STS AssumeRole for vended credentials.
//
// Every request is retried by the RetryPolicy of the config (and a 400
// RequestTimeout, S3's answer to a body sent too slowly), all attempts within
// the config's operation_timeout_ms (s3.operation-timeout-ms): past it, the
// request fails kIo (retryable), "S3 did not answer within N s". An attempt
// that stalls (no byte for 30 s) is given up and retried. Answers map to
// errors by who can fix them. The client's choice: a 400 for a key S3
// cannot store or a session policy STS will not take (KeyTooLongError,
// XMinioInvalidObjectName, MalformedPolicyDocument, …) kInvalidArgument; a
// 401/403 AccessDenied (an access policy refusing this key) kForbidden.
// skade's own configuration, a 5xx for a REST client: every other 400 (a
// wrong region, a bad session token) and every 401/403 that refuses the
// keys themselves (SignatureDoesNotMatch, InvalidAccessKeyId, ExpiredToken,
// RequestTimeTooSkewed, …) or comes from STS, kIo, not retryable. 404
// kNotFound, 412 (the object exists) kAlreadyExists, 501 kUnsupported,
// others and exhausted retries kIo (retryable for transient ones). Messages
// name the bucket and key and the server's error code, never credentials.
//
// Thread-safe: each thread uses its own curl handle (kept, so connections
// are reused).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "skade/s3/retry_policy.h"
#include "skade/s3/s3_config.h"
#include "skade/s3/sigv4.h"
#include "skade/util/result.h"

namespace skade::s3 {

/// Where a request's credentials come from at the moment it is signed (the
/// AWS default chain may refresh them).
using CredentialsSource = std::function<Result<AwsCredentials>()>;

struct S3Response {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

class S3Client {
 public:
  S3Client(S3Config config, CredentialsSource credentials);

  /// One signed request to `bucket`, for the object `key` (empty: the bucket
  /// itself), with the canonical `query` (e.g. "uploads"); the answer when it
  /// is 2xx, else the errors above.
  Result<S3Response> Request(std::string_view method, const std::string& bucket,
                             const std::string& key, const std::string& query,
                             std::map<std::string, std::string> headers, std::string_view body);

  /// GET of an object: its first `max_bytes` + 1 bytes at most (a Range
  /// request), so that a caller learns it is larger without reading it all.
  /// kNotFound when no object has the key.
  Result<std::string> GetObject(const std::string& bucket, const std::string& key,
                                uint64_t max_bytes);

  /// PUT of a whole object. With `if_none_match`, only if no object has that
  /// key (kAlreadyExists when one does; kUnsupported when the server does not
  /// implement conditional writes). A retried conditional PUT that finds an
  /// object holding exactly `body` succeeds: an earlier attempt stored it
  /// and its answer was lost.
  Status PutObject(const std::string& bucket, const std::string& key, std::string_view body,
                   bool if_none_match);

  /// DELETE of one object. S3 answers a missing key with success, so a
  /// missing object is OK here; callers that must tell check first.
  Status DeleteObject(const std::string& bucket, const std::string& key);

  /// A signed request to the endpoint's STS (POST form, service "sts"), as
  /// MinIO and AWS implement AssumeRole; the raw answer (2xx only).
  Result<S3Response> PostSts(const std::string& form);

  const S3Config& config() const { return config_; }

 private:
  // Request, also setting `*attempts` (if not null) to the tries it took.
  Result<S3Response> ObjectRequest(std::string_view method, const std::string& bucket,
                                   const std::string& key, const std::string& query,
                                   std::map<std::string, std::string> headers,
                                   std::string_view body, int* attempts);

  // Sends one request (with retries); `what` names it in errors; `*attempts`
  // (if not null) is set to the tries made.
  Result<S3Response> Send(std::string_view method, const std::string& host,
                          const std::string& canonical_uri, const std::string& query,
                          std::map<std::string, std::string> headers, std::string_view body,
                          std::string_view service, std::string_view what, int* attempts);

  S3Config config_;
  CredentialsSource credentials_;
  RetryPolicy retry_;
};

}  // namespace skade::s3
