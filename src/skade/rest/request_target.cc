#include "skade/rest/request_target.h"

#include <algorithm>

#include "skade/util/strings.h"

namespace skade::rest {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::string> PercentDecode(std::string_view text, bool plus_as_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return InvalidArgument("Malformed percent-encoding in '", text, "'");
      }
      int hi = HexValue(text[i + 1]);
      int lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return InvalidArgument("Malformed percent-encoding in '", text, "'");
      out.push_back(static_cast<char>((hi << 4) | lo));
      i += 2;
    } else if (c == '+' && plus_as_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::optional<std::string_view> RequestTarget::Query(const std::string& name) const {
  auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return std::string_view(it->second);
}

Result<RequestTarget> ParseRequestTarget(std::string_view target) {
  RequestTarget out;
  size_t question = target.find('?');
  std::string_view path = target.substr(0, question);
  if (!path.starts_with('/')) return InvalidArgument("Invalid request target: ", target);
  path.remove_prefix(1);
  while (path.ends_with('/')) path.remove_suffix(1);
  if (!path.empty()) out.segments = Split(path, '/');
  if (question != std::string_view::npos) {
    for (const auto& pair : Split(target.substr(question + 1), '&')) {
      if (pair.empty()) continue;
      size_t eq = pair.find('=');
      SKADE_ASSIGN_OR_RAISE(std::string key, PercentDecode(pair.substr(0, eq), true));
      std::string value;
      if (eq != std::string::npos) {
        SKADE_ASSIGN_OR_RAISE(value, PercentDecode(std::string_view(pair).substr(eq + 1), true));
      }
      out.query[key] = std::move(value);
    }
  }
  return out;
}

Result<spec::Namespace> DecodeNamespaceSegment(std::string_view raw_segment) {
  spec::Namespace ns;
  size_t start = 0;
  for (size_t i = 0; i <= raw_segment.size(); ++i) {
    bool at_end = i == raw_segment.size();
    bool escaped_separator = !at_end && raw_segment[i] == '%' && i + 2 < raw_segment.size() &&
                             EqualsIgnoreCase(raw_segment.substr(i + 1, 2), "1f");
    bool raw_separator = !at_end && raw_segment[i] == '\x1f';
    if (at_end || escaped_separator || raw_separator) {
      SKADE_ASSIGN_OR_RAISE(std::string level,
                            PercentDecode(raw_segment.substr(start, i - start), true));
      ns.push_back(std::move(level));
      if (escaped_separator) i += 2;
      start = i + 1;
    }
  }
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  return ns;
}

Result<spec::Namespace> DecodeNamespaceParameter(std::string_view value) {
  spec::Namespace ns = Split(value, '\x1f');
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  return ns;
}

Result<bool> ParseBooleanParameter(std::string_view name, std::string_view value) {
  if (EqualsIgnoreCase(value, "true")) return true;
  if (EqualsIgnoreCase(value, "false") || value.empty()) return false;
  return InvalidArgument("Invalid boolean value for ", name, ": ", value);
}

namespace {

bool DecimalDigits(std::string_view value) {
  return !value.empty() &&
         std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Result<int64_t> ParseNonNegativeLongParameter(std::string_view name, std::string_view value) {
  std::optional<int64_t> parsed = DecimalDigits(value) ? ParseInt64(value) : std::nullopt;
  if (!parsed) {
    return InvalidArgument("Invalid ", name, ": '", value,
                           "' (expected a non-negative 64-bit decimal integer)");
  }
  return *parsed;
}

Result<int64_t> ParseLongParameter(std::string_view name, std::string_view value) {
  std::string_view digits = value.starts_with('-') ? value.substr(1) : value;
  std::optional<int64_t> parsed = DecimalDigits(digits) ? ParseInt64(value) : std::nullopt;
  if (!parsed) {
    return InvalidArgument("Invalid ", name, ": '", value, "' (expected a 64-bit decimal integer)");
  }
  return *parsed;
}

}  // namespace skade::rest
