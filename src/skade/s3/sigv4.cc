#include "skade/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <ctime>

#include "skade/util/strings.h"

namespace skade::s3 {

namespace {

std::string Hex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &size);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

// "20261201T120000Z" and its first eight characters, the date.
std::string AmzDate(int64_t unix_seconds) {
  std::time_t time = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[17];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(digest, sizeof(digest));
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

void SignRequest(SignableRequest& request, const AwsCredentials& credentials,
                 std::string_view region, std::string_view service, int64_t unix_seconds) {
  std::string amz_date = AmzDate(unix_seconds);
  std::string date = amz_date.substr(0, 8);
  request.headers["x-amz-date"] = amz_date;
  request.headers["x-amz-content-sha256"] = request.payload_sha256_hex;
  if (!credentials.session_token.empty()) {
    request.headers["x-amz-security-token"] = credentials.session_token;
  }
  request.headers.erase("authorization");

  // The map keeps the lower-case names sorted, as the canonical form wants.
  std::string canonical_headers, signed_headers;
  for (const auto& [name, value] : request.headers) {
    StrAppend(&canonical_headers, name, ":", StripWhitespace(value), "\n");
    StrAppend(&signed_headers, signed_headers.empty() ? "" : ";", name);
  }
  std::string canonical_request =
      StrCat(request.method, "\n", request.canonical_uri, "\n", request.query, "\n",
             canonical_headers, "\n", signed_headers, "\n", request.payload_sha256_hex);
  std::string scope = StrCat(date, "/", region, "/", service, "/aws4_request");
  std::string string_to_sign =
      StrCat("AWS4-HMAC-SHA256\n", amz_date, "\n", scope, "\n", Sha256Hex(canonical_request));

  std::string key = HmacSha256(StrCat("AWS4", credentials.secret_access_key), date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  std::string signature = HmacSha256(key, string_to_sign);
  request.headers["authorization"] =
      StrCat("AWS4-HMAC-SHA256 Credential=", credentials.access_key_id, "/", scope,
             ", SignedHeaders=", signed_headers,
             ", Signature=", Hex(reinterpret_cast<const unsigned char*>(signature.data()),
                                 signature.size()));
}

}  // namespace skade::s3
