#include "skade/rest/http/error_model.h"

#include "skade/rest/http/utf8.h"
#include "skade/util/json_writer.h"

namespace skade::rest {

HttpResponse ErrorModelResponse(int status, std::string_view type, std::string_view message) {
  JsonWriter json;
  json.StartObject();
  json.Key("error");
  json.StartObject();
  // Every error body is written here, and messages quote client input (names,
  // paths, methods): invalid UTF-8 in it would make the body invalid JSON.
  json.Field("message", ToValidUtf8(message));
  json.Field("type", ToValidUtf8(type));
  json.Field("code", int32_t{status});
  json.EndObject();
  json.EndObject();
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = json.Take();
  response.error = message;
  return response;
}

HttpResponse RetryLaterResponse(std::string_view message) {
  HttpResponse response = ErrorModelResponse(503, "ServiceUnavailableException", message);
  // One second: long enough for a pool turn or a freed connection slot, and
  // what Iceberg Java waits before it retries (it honours the header).
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

}  // namespace skade::rest
