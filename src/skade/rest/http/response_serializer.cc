#include <boost/beast/http/status.hpp>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <ostream>  // before Beast's status.hpp, which uses it without including it
#include <string_view>

#include "skade/rest/http/response_serializer_internal.h"
#include "skade/util/strings.h"

namespace skade::rest::http_internal {

namespace {

namespace http = boost::beast::http;

// RFC 9110 tchar.
bool IsToken(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

// VCHAR, obs-text, SP and HTAB: in particular no CR or LF, which would let a
// value start a new header field or end the head early.
bool IsFieldValue(std::string_view value) {
  for (unsigned char c : value) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

// Fields the transport writes itself: from what it knows about the framing, and
// the request id.
bool IsTransportOwned(std::string_view name) {
  for (std::string_view owned :
       {"content-length", "transfer-encoding", "connection", "server", "date", "x-request-id"}) {
    if (EqualsIgnoreCase(name, owned)) return true;
  }
  return false;
}

// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), formatted once per second
// per thread.
void AppendDate(std::string* out) {
  thread_local std::time_t cached_second = -1;
  thread_local char cached[64];
  thread_local int cached_length = 0;
  const std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm tm;
    gmtime_r(&now, &tm);
    cached_length = std::snprintf(cached, sizeof(cached), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                                  kDays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon],
                                  tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    cached_second = now;
  }
  out->append(cached, cached_length);
}

}  // namespace

bool SerializeResponseHead(const HttpResponse& response, ConnectionMode connection,
                           std::string_view request_id, std::string* out) {
  const int status = response.status;
  if (status < 200 || status > 599) return false;
  const http::status known = http::int_to_status(static_cast<unsigned>(status));
  const boost::beast::string_view reason = http::obsolete_reason(known);
  out->clear();
  StrAppend(out, "HTTP/1.1 ", status, ' ',
            known == http::status::unknown ? std::string_view("Unknown")
                                           : std::string_view(reason.data(), reason.size()),
            "\r\nServer: skade\r\nDate: ");
  AppendDate(out);
  out->append("\r\n");
  if (!request_id.empty()) StrAppend(out, "X-Request-ID: ", request_id, "\r\n");
  bool has_content_type = false;
  for (const auto& [name, value] : response.headers) {
    if (!IsToken(name) || !IsFieldValue(value)) return false;
    if (IsTransportOwned(name)) continue;
    has_content_type = has_content_type || EqualsIgnoreCase(name, "content-type");
    StrAppend(out, name, ": ", value, "\r\n");
  }
  // RFC 9110 8.6: no Content-Length in a 204; a 304 has no body either.
  if (status != 204 && status != 304) {
    if (!has_content_type && !response.body.empty()) {
      out->append("Content-Type: application/json\r\n");
    }
    StrAppend(out, "Content-Length: ", response.body.size(), "\r\n");
  }
  switch (connection) {
    case ConnectionMode::kKeepAlive:
      break;
    case ConnectionMode::kExplicitKeepAlive:
      out->append("Connection: keep-alive\r\n");
      break;
    case ConnectionMode::kClose:
      out->append("Connection: close\r\n");
      break;
  }
  out->append("\r\n");
  return true;
}

bool ResponseCarriesBody(int status, bool head_request) {
  return !head_request && status != 204 && status != 304;
}

}  // namespace skade::rest::http_internal
