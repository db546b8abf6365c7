// AWS Signature Version 4 for the S3 requests skade sends itself (the
// conditional PUT of a metadata file, deletes, STS): the canonical request,
// the string to sign and the signing-key chain of the AWS documentation,
// "Create a signed AWS API request". Arrow's S3 file system signs its own.
//
// Plain functions on values; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace skade::s3 {

/// The keys a request is signed with. A session token is sent as
/// x-amz-security-token when present (temporary credentials from STS).
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;

  bool empty() const { return access_key_id.empty(); }
};

/// One HTTP request as SigV4 sees it. `canonical_uri` is the path already
/// URI-encoded as it goes on the wire (UriEncodePath), `query` the canonical
/// query string (sorted, encoded), `headers` lower-case names; `host` must be
/// among them.
struct SignableRequest {
  std::string method;
  std::string canonical_uri;
  std::string query;
  std::map<std::string, std::string> headers;
  std::string payload_sha256_hex;
};

/// Adds x-amz-date, x-amz-content-sha256, x-amz-security-token (if any) and
/// Authorization to `request.headers`, signed for `region` and `service`
/// ("s3", "sts") at `unix_seconds` (UTC).
void SignRequest(SignableRequest& request, const AwsCredentials& credentials,
                 std::string_view region, std::string_view service, int64_t unix_seconds);

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters
/// (A-Z a-z 0-9 - _ . ~) stay, everything else is %XX; with `keep_slash`,
/// '/' stays too (object keys in a path).
std::string UriEncode(std::string_view text, bool keep_slash);

}  // namespace skade::s3
