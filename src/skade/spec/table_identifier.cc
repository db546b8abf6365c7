#include "skade/spec/table_identifier.h"

#include <algorithm>

#include "skade/util/strings.h"

namespace skade::spec {

std::string NamespaceToString(const Namespace& ns) { return Join(ns, "."); }

std::string TableIdentifier::ToString() const {
  return ns.empty() ? name : StrCat(NamespaceToString(ns), ".", name);
}

namespace {

// Splits `text` on the dots outside backtick-quoted levels.
Result<std::vector<std::string>> SplitLevels(std::string_view text) {
  std::vector<std::string> levels;
  size_t i = 0;
  while (true) {
    std::string level;
    if (i < text.size() && text[i] == '`') {
      for (++i;; ++i) {
        if (i >= text.size()) {
          return InvalidArgument("Invalid identifier '", text, "': a '`' is not closed");
        }
        if (text[i] == '`') {
          if (i + 1 < text.size() && text[i + 1] == '`') {
            level += '`';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        level += text[i];
      }
      if (i < text.size() && text[i] != '.') {
        return InvalidArgument("Invalid identifier '", text,
                               "': a quoted level must end at a '.' or the end");
      }
    } else {
      size_t dot = std::min(text.find('.', i), text.size());
      level = std::string(text.substr(i, dot - i));
      i = dot;
    }
    levels.push_back(std::move(level));
    if (i >= text.size()) return levels;
    ++i;  // the '.'
  }
}

std::string QuotedLevel(const std::string& level) {
  if (level.find('.') == std::string::npos && !level.starts_with('`')) return level;
  std::string quoted = "`";
  for (char c : level) {
    if (c == '`') quoted += '`';
    quoted += c;
  }
  return quoted + "`";
}

}  // namespace

Result<Namespace> ParseNamespace(std::string_view text) {
  SKADE_ASSIGN_OR_RAISE(Namespace ns, SplitLevels(text));
  SKADE_RETURN_NOT_OK(ValidateNamespace(ns));
  return ns;
}

Result<TableIdentifier> ParseTableIdentifier(std::string_view text) {
  SKADE_ASSIGN_OR_RAISE(std::vector<std::string> levels, SplitLevels(text));
  if (levels.size() < 2) {
    return InvalidArgument("Invalid table identifier '", text, "': expected <namespace>.<table>");
  }
  TableIdentifier identifier;
  identifier.name = std::move(levels.back());
  levels.pop_back();
  identifier.ns = std::move(levels);
  SKADE_RETURN_NOT_OK(ValidateNamespace(identifier.ns));
  SKADE_RETURN_NOT_OK(ValidateName(identifier.name, "table name"));
  return identifier;
}

std::string QuotedNamespace(const Namespace& ns) {
  std::string text;
  for (const std::string& level : ns) {
    if (!text.empty()) text += '.';
    text += QuotedLevel(level);
  }
  return text;
}

std::string QuotedIdentifier(const TableIdentifier& identifier) {
  return StrCat(QuotedNamespace(identifier.ns), ".", QuotedLevel(identifier.name));
}

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 if it is invalid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t length = c < 0x80           ? 1
                  : (c >> 5) == 0x6  ? 2
                  : (c >> 4) == 0xE  ? 3
                  : (c >> 3) == 0x1E ? 4
                                     : 0;
  if (length == 0 || i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  }
  return length;
}

}  // namespace

Status ValidateName(std::string_view name, std::string_view what) {
  if (name.empty()) return InvalidArgument("Invalid ", what, ": must not be empty");
  if (name.size() > 255) {
    return InvalidArgument("Invalid ", what, " '", name.substr(0, 32), "…': longer than 255 bytes");
  }
  if (name == "." || name == "..") {
    return InvalidArgument("Invalid ", what, " '", name, "': reserved path name");
  }
  for (size_t i = 0; i < name.size();) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) {
      return InvalidArgument("Invalid ", what, ": contains a control character");
    }
    size_t length = Utf8SequenceLength(name, i);
    if (length == 0) return InvalidArgument("Invalid ", what, ": not valid UTF-8");
    i += length;
  }
  return OkStatus();
}

namespace {

// The bytes of `ns`'s levels joined by one separator each.
size_t JoinedSize(const Namespace& ns) {
  size_t size = ns.size() - 1;
  for (const auto& level : ns) size += level.size();
  return size;
}

tl::unexpected<Error> TooLong(std::string_view what, size_t size) {
  return InvalidArgument("Invalid ", what, ": ", size, " bytes with its levels joined,",
                         " more than ", kMaxIdentifierBytes);
}

}  // namespace

Status ValidateNamespace(const Namespace& ns) {
  if (ns.empty()) return InvalidArgument("Invalid namespace: must have at least one level");
  for (const auto& level : ns) SKADE_RETURN_NOT_OK(ValidateName(level, "namespace level"));
  if (size_t size = JoinedSize(ns); size > kMaxIdentifierBytes) return TooLong("namespace", size);
  return OkStatus();
}

Status ValidateTableIdentifier(const TableIdentifier& identifier) {
  SKADE_RETURN_NOT_OK(ValidateNamespace(identifier.ns));
  SKADE_RETURN_NOT_OK(ValidateName(identifier.name, "table name"));
  size_t size = JoinedSize(identifier.ns) + 1 + identifier.name.size();
  if (size > kMaxIdentifierBytes) return TooLong("table identifier", size);
  return OkStatus();
}

std::string EncodePathComponent(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (c == '/' || c == '\\' || c == '%' || c == '?' || c == '#' || c == '*' || c == '$') {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace skade::spec
