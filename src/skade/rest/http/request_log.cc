#include "skade/rest/http/request_log_internal.h"
#include "skade/rest/http/utf8.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::rest::http_internal {

namespace {

// 5xx is the server's failure, worth an operator's attention; a 4xx is the
// client's and is logged as any other answer.
std::string_view LevelFor(int status) { return status >= 500 ? "ERROR" : "INFO"; }

std::string_view JsonLevel(std::string_view level) {
  if (level == "ERROR") return "error";
  if (level == "WARNING") return "warning";
  return "info";
}

// `error` as valid UTF-8, at most kMaxLoggedErrorBytes of it.
std::string LoggedError(std::string_view error) {
  if (error.size() <= kMaxLoggedErrorBytes) return ToValidUtf8(error);
  size_t cut = kMaxLoggedErrorBytes;
  // Not inside a multi-byte character: back off its continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(error[cut]) & 0xC0) == 0x80) --cut;
  return ToValidUtf8(error.substr(0, cut)) + "\u2026";
}

}  // namespace

void FormatRequestLogLine(const RequestRecord& record, HttpLogFormat format, int64_t now_millis,
                          std::string* out) {
  out->clear();
  const std::string_view level = LevelFor(record.status);
  const bool has_error = record.status >= 400 && !record.error.empty();
  if (format == HttpLogFormat::kText) {
    // The path needs no escaping here: the parser admits no space or control
    // character in a request-target.
    StrAppend(out, level, " http ", record.method, ' ', record.path, ' ', record.status, ' ',
              record.duration_us, "us request_id=",
              record.request_id.empty() ? std::string_view("-") : record.request_id);
    if (!record.route.empty()) StrAppend(out, " route=", record.route);
    if (has_error) {
      out->append(" error=");
      JsonWriter::AppendQuoted(out, LoggedError(record.error));
    }
    return;
  }
  JsonWriter json;
  json.Reserve(256);
  json.StartObject();
  json.Field("ts", FormatTimestampMillis(now_millis));
  json.Field("level", JsonLevel(level));
  json.Field("logger", "http");
  json.Field("msg", "request");
  json.Field("method", ToValidUtf8(record.method));
  // Bytes >= 0x80 are allowed in a target, so a path may be invalid UTF-8.
  json.Field("path", ToValidUtf8(record.path));
  if (!record.route.empty()) json.Field("route", record.route);
  json.Field("status", int32_t{record.status});
  json.Key("duration_ms");
  json.Double(static_cast<double>(record.duration_us) / 1000.0);
  json.Field("request_id", record.request_id);
  json.Field("request_bytes", static_cast<int64_t>(record.request_body_bytes));
  json.Field("response_bytes", static_cast<int64_t>(record.response_body_bytes));
  if (has_error) json.Field("error", LoggedError(record.error));
  json.EndObject();
  *out = json.Take();
}

std::string FormatLogLine(std::string_view level, std::string_view message, HttpLogFormat format,
                          int64_t now_millis) {
  if (format == HttpLogFormat::kText) return StrCat(level, " http ", message);
  JsonWriter json;
  json.StartObject();
  json.Field("ts", FormatTimestampMillis(now_millis));
  json.Field("level", JsonLevel(level));
  json.Field("logger", "http");
  // Messages quote client input (a path, a handler's exception text).
  json.Field("msg", ToValidUtf8(message));
  json.EndObject();
  return json.Take();
}

}  // namespace skade::rest::http_internal
