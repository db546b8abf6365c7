// The request and response values exchanged between the HTTP transport and
// the handler that implements the REST semantics on top of it.
//
// Plain values, no Boost types: the REST layer includes this without pulling
// in Asio or Beast.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skade::rest {

/// The methods the transport passes to handlers, as an `Allow` header lists
/// them.
inline constexpr std::string_view kServedMethods = "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS";

/// One complete, validated HTTP/1.x request.
///
/// The transport owns it and reuses its storage for the connection's next
/// request: a handler may read it only during its call and must copy whatever
/// it keeps.
struct HttpRequest {
  /// One of kServedMethods (the transport answers any other method with 405
  /// itself).
  std::string method;
  /// The raw request-target in origin form: path, then "?" and the query if
  /// any, exactly as sent (not percent-decoded). An absolute-form target
  /// ("http://host/p?q") arrives here as "/p?q"; OPTIONS may carry "*".
  std::string target;
  /// Header fields in the order received, names in ASCII lower case, values
  /// without surrounding whitespace. Repeated fields stay separate entries.
  std::vector<std::pair<std::string, std::string>> headers;
  /// The payload with any chunked transfer coding removed.
  std::string body;
  /// This request's id, set by the transport before the handler runs: the
  /// client's `X-Request-ID` when it is a plausible id (1-128 characters of
  /// [A-Za-z0-9._:-]), else one the server made. Echoed in the response's
  /// `X-Request-ID`, logged with the request, and kept with the commits it
  /// makes (the change feed's `request-id`).
  std::string request_id;

  /// The value of the first header named `lowercase_name`; "" if absent.
  std::string_view Header(std::string_view lowercase_name) const;

  /// `target` up to, not including, the first "?".
  std::string_view Path() const;
};

/// Whether `method` is safe in the sense of RFC 9110 (GET, HEAD, OPTIONS of
/// the methods the transport accepts): a request with it asks to change
/// nothing on the server.
bool IsSafeMethod(std::string_view method);

/// What a handler answers.
///
/// The transport owns the framing: it writes the status line, `Server`,
/// `Date`, `Content-Length` and `Connection` itself and ignores those fields
/// (and `Transfer-Encoding`) in `headers`. When `body` is non-empty and no
/// `Content-Type` is given it sends `Content-Type: application/json`.
/// Responses with status 204 or 304 never carry a body (a non-empty `body` is
/// dropped); for HEAD requests a handler may fill `body` exactly as for GET:
/// its length is announced in `Content-Length` and its bytes are not sent.
/// A status outside 200..599, or a header name that is not an HTTP token or a
/// value containing CR, LF or NUL, is a handler bug the transport answers with
/// 500 instead (this keeps a handler from splitting responses).
struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// Not sent. The route that answered, as the route table writes its pattern
  /// ("v1/{prefix}/namespaces/{namespace}/tables/{table}"); empty when no
  /// route matched. Static storage: the request log and the metrics label
  /// requests by it, never by the raw path (unbounded, and the client's).
  std::string_view route;
  /// Not sent. Why an error answer (status >= 400) happened, for the request
  /// log: the error's message, which never holds a secret.
  std::string error;
};

}  // namespace skade::rest
