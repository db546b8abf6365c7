// Request ids: which one a request gets, so that a client's log, the server's
// request log and the change feed can name the same request.
#pragma once

#include <string>
#include <string_view>

#include "skade/rest/http/http_message.h"

namespace skade::rest::http_internal {

/// The longest client-chosen id kept.
inline constexpr size_t kMaxRequestIdBytes = 128;

/// Whether `id` is kept as a client's X-Request-ID: 1 to kMaxRequestIdBytes
/// characters of [A-Za-z0-9._:-]. Nothing else is, so an id can be written
/// into a response header and a log line as it is (no CR/LF, quotes, spaces
/// or bytes outside ASCII).
bool IsPlausibleRequestId(std::string_view id);

/// A new id for a request that brought no plausible one: a random UUID.
/// Thread-safe.
std::string NewRequestId();

/// Sets `request->request_id` from its first `x-request-id` header if that is
/// plausible, else to NewRequestId(). Works on a request whose header is only
/// partly read (a rejected one): the fields read so far count.
void AssignRequestId(HttpRequest* request);

}  // namespace skade::rest::http_internal
