#include "skade/s3/s3_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "skade/util/strings.h"

namespace skade::s3 {

namespace {

constexpr long kConnectTimeoutMs = 10'000;
// A bound on one whole attempt; skade's own requests carry metadata-sized
// bodies. A stalled one ends sooner (RetryPolicy::kStallSeconds).
constexpr long kRequestTimeoutMs = 120'000;

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};

// One handle per thread, reused so that keep-alive connections are too.
CURL* ThreadCurl() {
  thread_local std::unique_ptr<CURL, CurlDeleter> handle;
  if (!handle) {
    InitCurlOnce();
    handle.reset(curl_easy_init());
  }
  curl_easy_reset(handle.get());
  return handle.get();
}

struct Upload {
  std::string_view data;
  size_t offset = 0;
};

size_t ReadBody(char* buffer, size_t size, size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  size_t n = std::min(size * count, upload->data.size() - upload->offset);
  std::memcpy(buffer, upload->data.data() + upload->offset, n);
  upload->offset += n;
  return n;
}

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t WriteHeader(char* data, size_t size, size_t count, void* user) {
  std::string_view line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    (*static_cast<std::map<std::string, std::string>*>(user))[AsciiLower(line.substr(0, colon))] =
        std::string(StripWhitespace(line.substr(colon + 1)));
  }
  return size * count;
}

// The <Code> of an S3 error body, or empty.
std::string ErrorCode(const std::string& body) {
  auto start = body.find("<Code>");
  auto end = body.find("</Code>");
  if (start == std::string::npos || end == std::string::npos || end < start) return {};
  return body.substr(start + 6, end - start - 6);
}

// S3's 400s for what a client chose (a key, a location's session policy);
// every other 400 is a request skade made from its own configuration.
bool IsClientsChoiceRefused(std::string_view code) {
  return code == "KeyTooLongError" || code == "XMinioInvalidObjectName" ||
         code == "InvalidObjectName" || code == "MalformedPolicyDocument" ||
         code == "PackedPolicyTooLarge";
}

// 401/403 codes that say the signing keys themselves are not accepted, for
// any request: never the client's doing.
bool IsCredentialFailure(std::string_view code) {
  return code.empty() || code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" ||
         code == "InvalidToken" || code == "ExpiredToken" || code == "TokenRefreshRequired" ||
         code == "RequestTimeTooSkewed" || code == "InvalidClientTokenId" ||
         code == "AccountProblem" || code == "NotSignedUp" || code == "InvalidSecurity" ||
         code == "XMinioInvalidTokenId";
}

// "20 s", "1.5 s".
std::string FormatSeconds(int64_t ms) {
  if (ms % 1000 == 0) return StrCat(ms / 1000, " s");
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f s", static_cast<double>(ms) / 1000);
  return buffer;
}

}  // namespace

S3Client::S3Client(S3Config config, CredentialsSource credentials)
    : config_(std::move(config)),
      credentials_(std::move(credentials)),
      retry_(config_.max_attempts, config_.operation_timeout_ms) {}

Result<S3Response> S3Client::Send(std::string_view method, const std::string& host,
                                  const std::string& canonical_uri, const std::string& query,
                                  std::map<std::string, std::string> headers, std::string_view body,
                                  std::string_view service, std::string_view what, int* attempts) {
  std::string url =
      StrCat(config_.endpoint_scheme, "://", host, canonical_uri, query.empty() ? "" : "?", query);
  std::string payload_hash = Sha256Hex(body);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(retry_.deadline_ms());
  const auto remaining_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  };
  // The operation's bound passed: the last attempt's failure says what it saw.
  const auto out_of_time = [&](int attempt, std::string_view last) {
    return MakeRetryableError(
        ErrorKind::kIo, "S3 did not answer within ", FormatSeconds(retry_.deadline_ms()), " (",
        kOperationTimeoutProperty, "): ", what, " after ", attempt,
        attempt == 1 ? " attempt" : " attempts", ", last: ", last, " (", url, ")");
  };
  for (int attempt = 1;; ++attempt) {
    if (attempts != nullptr) *attempts = attempt;
    SKADE_ASSIGN_OR_RAISE(AwsCredentials credentials, credentials_());
    SignableRequest request{std::string(method), canonical_uri, query, headers, payload_hash};
    request.headers["host"] = host;
    SignRequest(request, credentials, config_.region, service,
                std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count());

    CURL* curl = ThreadCurl();
    curl_slist* header_list = nullptr;
    for (const auto& [name, value] : request.headers) {
      if (name == "host") continue;  // curl sends it from the URL
      header_list = curl_slist_append(header_list, StrCat(name, ": ", value).c_str());
    }
    // No "Expect: 100-continue" round trip for small bodies.
    header_list = curl_slist_append(header_list, "Expect:");
    S3Response response;
    Upload upload{body};
    // Each attempt ends by the operation's deadline (at least 1 ms: 0 is
    // curl's "no timeout").
    const long attempt_timeout_ms = static_cast<long>(
        std::max<int64_t>(1, std::min<int64_t>(kRequestTimeoutMs, remaining_ms())));
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     std::min(kConnectTimeoutMs, attempt_timeout_ms));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, attempt_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, long{RetryPolicy::kStallSeconds});
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
    if (method == "PUT") {
      curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
      curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
      curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body.size()));
    } else if (method == "POST") {
      curl_easy_setopt(curl, CURLOPT_POST, 1L);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    } else {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
    }
    CURLcode code = curl_easy_perform(curl);
    curl_slist_free_all(header_list);
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);

    if (code == CURLE_OK && response.status >= 200 && response.status < 300) return response;
    // A range of an empty object cannot be satisfied: the object is "".
    if (code == CURLE_OK && response.status == 416 && headers.contains("range")) {
      response.body.clear();
      return response;
    }
    std::string detail = code == CURLE_OK ? ErrorCode(response.body) : std::string();
    // A conditional write that raced another one on the same key: retry
    // (AWS's advice); the retry then sees the winner and answers 412.
    bool conflict = response.status == 409 && detail == "ConditionalRequestConflict";
    // S3 answers a body sent too slowly with 400, not 5xx; it is transient.
    bool slow_body = response.status == 400 && detail == "RequestTimeout";
    if (((conflict || slow_body) && attempt < retry_.max_attempts()) ||
        retry_.ShouldRetry(code == CURLE_OK ? response.status : 0, attempt)) {
      const int64_t delay_ms = retry_.DelayMs(attempt);
      if (remaining_ms() > delay_ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        continue;
      }
      return out_of_time(attempt, code != CURLE_OK ? std::string(curl_easy_strerror(code))
                                                   : StrCat("HTTP ", response.status,
                                                            detail.empty() ? "" : " ", detail));
    }
    if (code != CURLE_OK) {
      if (remaining_ms() <= 0) return out_of_time(attempt, curl_easy_strerror(code));
      return MakeRetryableError(ErrorKind::kIo, "S3 ", what, " failed after ", attempt,
                                " attempts: ", curl_easy_strerror(code), " (", url, ")");
    }
    std::string message =
        StrCat("S3 ", what, " answered HTTP ", response.status, detail.empty() ? "" : " ", detail);
    switch (response.status) {
      case 400:
        // What the client chose and S3 cannot take: a key (too long, a
        // segment MinIO refuses), a session policy for its location. Any
        // other 400 is the server's own configuration (a wrong region, a
        // malformed or expired session token): not the client's to fix.
        if (IsClientsChoiceRefused(detail)) return MakeError(ErrorKind::kInvalidArgument, message);
        return IoError(message, ": check skade's S3 configuration");
      case 404:
        return MakeError(ErrorKind::kNotFound, message);
      case 412:
        return MakeError(ErrorKind::kAlreadyExists, message);
      case 401:
      case 403:
        // STS refusing skade's own keys, or keys S3 does not accept (a wrong
        // secret, an expired token, a skewed clock), fail whoever asks: the
        // server's configuration, a 5xx. Only an access policy's refusal of
        // a key (AccessDenied) is about what was asked for.
        if (service == "sts" || IsCredentialFailure(detail)) {
          return IoError(message, ": check skade's S3 credentials");
        }
        return MakeError(ErrorKind::kForbidden, message);
      case 501:
        return MakeError(ErrorKind::kUnsupported, message);
      default:
        if (RetryPolicy::IsTransient(response.status)) {
          if (remaining_ms() <= 0) return out_of_time(attempt, message);
          return MakeRetryableError(ErrorKind::kIo, message, " after ", attempt, " attempts");
        }
        return IoError(message);
    }
  }
}

Result<S3Response> S3Client::Request(std::string_view method, const std::string& bucket,
                                     const std::string& key, const std::string& query,
                                     std::map<std::string, std::string> headers,
                                     std::string_view body) {
  return ObjectRequest(method, bucket, key, query, std::move(headers), body, nullptr);
}

Result<S3Response> S3Client::ObjectRequest(std::string_view method, const std::string& bucket,
                                           const std::string& key, const std::string& query,
                                           std::map<std::string, std::string> headers,
                                           std::string_view body, int* attempts) {
  std::string path = config_.PathPrefixFor(bucket);
  if (!key.empty() || path.empty()) StrAppend(&path, "/", UriEncode(key, true));
  return Send(method, config_.HostFor(bucket), path, query, std::move(headers), body, "s3",
              StrCat(method, " s3://", bucket, "/", key), attempts);
}

Result<std::string> S3Client::GetObject(const std::string& bucket, const std::string& key,
                                        uint64_t max_bytes) {
  std::map<std::string, std::string> headers;
  if (max_bytes < std::numeric_limits<uint64_t>::max()) {
    headers["range"] = StrCat("bytes=0-", max_bytes);  // one byte more tells "too large"
  }
  SKADE_ASSIGN_OR_RAISE(auto response, Request("GET", bucket, key, "", headers, ""));
  return std::move(response.body);
}

Status S3Client::PutObject(const std::string& bucket, const std::string& key, std::string_view body,
                           bool if_none_match) {
  std::map<std::string, std::string> headers{{"content-type", "application/octet-stream"}};
  if (if_none_match) headers["if-none-match"] = "*";
  int attempts = 0;
  auto response = ObjectRequest("PUT", bucket, key, "", headers, body, &attempts);
  if (response) return OkStatus();
  // A retried conditional PUT may find the object an earlier attempt stored
  // (the server kept it, then its answer was a 5xx or was lost): the object
  // is ours exactly when it holds our bytes.
  if (if_none_match && attempts > 1 && response.error().kind == ErrorKind::kAlreadyExists) {
    auto stored = GetObject(bucket, key, body.size());
    if (stored && *stored == body) return OkStatus();
  }
  return tl::unexpected(response.error());
}

Status S3Client::DeleteObject(const std::string& bucket, const std::string& key) {
  SKADE_ASSIGN_OR_RAISE(auto response, Request("DELETE", bucket, key, "", {}, ""));
  (void)response;
  return OkStatus();
}

Result<S3Response> S3Client::PostSts(const std::string& form) {
  std::string host =
      config_.endpoint_host.empty() ? std::string("sts.amazonaws.com") : config_.endpoint_host;
  return Send("POST", host, "/", "",
              {{"content-type", "application/x-www-form-urlencoded; charset=utf-8"}}, form, "sts",
              "STS AssumeRole", nullptr);
}

}  // namespace skade::s3
