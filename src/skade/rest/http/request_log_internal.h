// The lines an HttpServer logs, in the format HttpServerOptions::log_format
// picks: one per answered request, and the transport's own notices.
//
// What goes in is chosen here, at the one place every line is made: the
// request's method, path without the query, status, duration, ids, route and
// error cause. Never a header value, the query or a body — bearer tokens,
// signed-URL credentials and secrets travel in those. Client text that does go
// in (the path, an error message quoting a name) is escaped, so it can neither
// break a JSON line nor start a new line in either format. Stateless;
// thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "skade/rest/http/http_server.h"

namespace skade::rest::http_internal {

/// An error cause longer than this is cut (at a character boundary, marked
/// "…") in the log: a message may quote client input.
inline constexpr size_t kMaxLoggedErrorBytes = 512;

/// Replaces `*out` (reusing its capacity) with the log line for `record`,
/// without a trailing newline. `now_millis`: the Unix time of the line (JSON's
/// `ts`).
void FormatRequestLogLine(const RequestRecord& record, HttpLogFormat format, int64_t now_millis,
                          std::string* out);

/// The log line for a transport notice: `level` "INFO" or "ERROR", `message`
/// free text. Text: "<level> http <message>"; JSON:
/// {"ts":…,"level":"error","logger":"http","msg":…}.
std::string FormatLogLine(std::string_view level, std::string_view message, HttpLogFormat format,
                          int64_t now_millis);

}  // namespace skade::rest::http_internal
