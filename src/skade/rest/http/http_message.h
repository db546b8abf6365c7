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

/// One complete, validated HTTP/1.x request.
///
/// The transport owns it and reuses its storage for the connection's next
/// request: a handler may read it only during its call and must copy whatever
/// it keeps.
struct HttpRequest {
  /// One of GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS (the transport answers
  /// any other method with 501 itself).
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
};

}  // namespace skade::rest
