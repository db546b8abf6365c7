// Error responses the transport produces itself, in the Iceberg REST
// ErrorModel shape.
#pragma once

#include <string_view>

#include "skade/rest/http/http_message.h"

namespace skade::rest::http_internal {

/// `status` with body {"error":{"message":`message`,"type":`type`,"code":`status`}}.
HttpResponse MakeErrorResponse(int status, std::string_view type, std::string_view message);

}  // namespace skade::rest::http_internal
