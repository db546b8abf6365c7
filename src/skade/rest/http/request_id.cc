#include "skade/rest/http/request_id_internal.h"
#include "skade/util/uuid.h"

namespace skade::rest::http_internal {

bool IsPlausibleRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdBytes) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string NewRequestId() { return NewUuid(); }

void AssignRequestId(HttpRequest* request) {
  const std::string_view given = request->Header("x-request-id");
  if (IsPlausibleRequestId(given)) {
    request->request_id.assign(given);
  } else {
    request->request_id = NewRequestId();
  }
}

}  // namespace skade::rest::http_internal
