// Error responses in the Iceberg REST ErrorModel shape, used by the
// transport for its own rejections and by the REST layer for catalog errors.
#pragma once

#include <string_view>

#include "skade/rest/http/http_message.h"

namespace skade::rest {

/// `status` with Content-Type application/json and body
/// {"error":{"message":`message`,"type":`type`,"code":`status`}}. Invalid UTF-8
/// in `message` or `type` is replaced by U+FFFD, so the body is always valid JSON.
/// `message` is also the response's `error` (the cause the request log shows).
HttpResponse ErrorModelResponse(int status, std::string_view type, std::string_view message);

/// 503 ServiceUnavailableException with "Retry-After: 1" (seconds): the
/// transport's answer to a request it turns away for want of capacity (a
/// connection slot, a handler pool thread) before any of it was done, so a
/// retry is safe.
HttpResponse RetryLaterResponse(std::string_view message);

}  // namespace skade::rest
