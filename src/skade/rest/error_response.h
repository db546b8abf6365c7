// Errors as Iceberg REST responses: the spec's ErrorModel
// `{"error": {"message", "type", "code"}}` with the HTTP status and `type`
// that Java, PyIceberg and iceberg-rust key their exceptions on
// (REST-CHECKLIST §3).
#pragma once

#include <string_view>

#include "skade/rest/http/http_message.h"
#include "skade/util/error.h"

namespace skade::rest {

/// The HTTP status for an error kind.
int HttpStatusFor(ErrorKind kind);
/// The ErrorModel `type` for an error kind, e.g. "NoSuchTableException".
std::string_view ErrorTypeFor(ErrorKind kind);

/// An ErrorModel response for `error`.
HttpResponse ErrorResponse(const Error& error);
/// An ErrorModel response with an explicit status and type.
HttpResponse ErrorResponse(int status, std::string_view type, std::string_view message);

}  // namespace skade::rest
