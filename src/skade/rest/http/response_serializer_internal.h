// Writes the head (status line and header fields) of an HttpResponse.
#pragma once

#include <string>
#include <string_view>

#include "skade/rest/http/http_message.h"

namespace skade::rest::http_internal {

/// What the response's Connection field says.
enum class ConnectionMode {
  kKeepAlive,          // HTTP/1.1 default: no Connection field
  kExplicitKeepAlive,  // "Connection: keep-alive", for HTTP/1.0 clients that asked
  kClose,              // "Connection: close"
};

/// Replaces `*out` (reusing its capacity) with the status line and header
/// section of `response`, ending with the empty line. Adds Server, Date,
/// X-Request-ID (`request_id`, unless empty; it must be IsPlausibleRequestId),
/// Content-Length (except for 204 and 304) and a default Content-Type as
/// documented on HttpResponse. For a HEAD request Content-Length still counts
/// `response.body`. Returns false, leaving `*out` unspecified, if the
/// response is not valid to send (see HttpResponse).
bool SerializeResponseHead(const HttpResponse& response, ConnectionMode connection,
                           std::string_view request_id, std::string* out);

/// Whether the body bytes follow the head on the wire: not for HEAD requests
/// and not for 204 or 304.
bool ResponseCarriesBody(int status, bool head_request);

}  // namespace skade::rest::http_internal
