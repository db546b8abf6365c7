#include "skade/rest/http/error_model.h"
#include "skade/util/json_writer.h"

namespace skade::rest {

HttpResponse ErrorModelResponse(int status, std::string_view type, std::string_view message) {
  JsonWriter json;
  json.StartObject();
  json.Key("error");
  json.StartObject();
  json.Field("message", message);
  json.Field("type", type);
  json.Field("code", int32_t{status});
  json.EndObject();
  json.EndObject();
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = json.Take();
  return response;
}

}  // namespace skade::rest
