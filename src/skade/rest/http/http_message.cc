#include "skade/rest/http/http_message.h"

namespace skade::rest {

std::string_view HttpRequest::Header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return value;
  }
  return {};
}

std::string_view HttpRequest::Path() const {
  std::string_view path = target;
  return path.substr(0, path.find('?'));
}

bool IsSafeMethod(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS";
}

}  // namespace skade::rest
