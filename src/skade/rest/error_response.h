// Errors as Iceberg REST responses: the spec's ErrorModel
// `{"error": {"message", "type", "code"}}` with the HTTP status and `type`
// that Java, PyIceberg and iceberg-rust key their exceptions on. Every error
// the REST layer answers is an Error; its kind alone decides status and type.
// Stateless; thread-safe.
#pragma once

#include <string_view>

#include "skade/rest/http/http_message.h"
#include "skade/util/error.h"

namespace skade::rest {

/// How an error kind is answered over REST.
struct RestErrorType {
  int status;             // HTTP status, e.g. 404
  std::string_view type;  // ErrorModel `type`, e.g. "NoSuchTableException"
};

/// The one mapping from error kinds to REST statuses and types.
RestErrorType RestErrorTypeFor(ErrorKind kind);

/// An ErrorModel response for `error`.
HttpResponse ErrorResponse(const Error& error);

}  // namespace skade::rest
