#include "skade/cli/config_file.h"

#include <cstdint>
#include <map>
#include <set>

#include "skade/util/strings.h"
#include "skade/util/utf8.h"

namespace skade::cli {

std::string ConfigEntry::key() const { return Join(path, "."); }

namespace {

bool IsBareKeyChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// A cursor over the text that knows its line; every error names it. No
// error quotes a value: a config file holds secrets (`oauth-client`), and
// errors go to logs. They name the key, the line and the column instead.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<std::vector<ConfigEntry>> Document() {
    std::vector<ConfigEntry> entries;
    std::vector<std::string> table;
    std::map<std::string, int> keys;  // full key -> line, for duplicates
    std::set<std::string> tables;
    while (true) {
      SkipBlankLinesAndComments();
      if (AtEnd()) break;
      if (Peek() == '[') {
        if (Peek(1) == '[') return Fail("arrays of tables ([[...]]) are not supported");
        ++pos_;
        SkipSpaces();
        SKADE_ASSIGN_OR_RAISE(table, Key());
        SkipSpaces();
        if (Peek() != ']') return Fail("expected ']' after the table name");
        ++pos_;
        std::string name = Join(table, ".");
        if (keys.count(name) > 0) return Fail("table [", name, "] is also a key");
        if (!tables.insert(name).second) return Fail("table [", name, "] appears twice");
        SKADE_RETURN_NOT_OK(EndOfLine("the table name"));
        continue;
      }
      ConfigEntry entry;
      entry.line = line_;
      SKADE_ASSIGN_OR_RAISE(auto key, Key());
      entry.path = table;
      entry.path.insert(entry.path.end(), key.begin(), key.end());
      SkipSpaces();
      if (Peek() != '=') return Fail("expected '=' after the key '", Join(key, "."), "'");
      ++pos_;
      SkipSpaces();
      std::string full = entry.key();
      value_of_ = StrCat("the value of '", full, "'");
      SKADE_RETURN_NOT_OK(Value(&entry));
      SKADE_RETURN_NOT_OK(EndOfLine(value_of_));
      if (auto [it, inserted] = keys.emplace(full, entry.line); !inserted) {
        return MakeError(ErrorKind::kInvalidArgument, "line ", entry.line, ": duplicate key '",
                         full, "' (first at line ", it->second, ")");
      }
      if (tables.count(full) > 0) {
        return MakeError(ErrorKind::kInvalidArgument, "line ", entry.line, ": key '", full,
                         "' is also a table");
      }
      entries.push_back(std::move(entry));
    }
    return entries;
  }

  Result<ConfigEntry> SingleValue() {
    ConfigEntry entry;
    entry.line = 1;
    SkipSpaces();
    SKADE_RETURN_NOT_OK(Value(&entry));
    SkipSpaces();
    if (!AtEnd()) return Fail("unexpected text after the value");
    return entry;
  }

 private:
  template <typename... Parts>
  tl::unexpected<Error> Fail(const Parts&... parts) const {
    return InvalidArgument("line ", line_, ": ", parts...);
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  void SkipSpaces() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) ++pos_;
  }
  void SkipComment() {
    if (Peek() != '#') return;
    while (!AtEnd() && Peek() != '\n') ++pos_;
  }
  bool ConsumeNewline() {
    if (Peek() == '\r' && Peek(1) == '\n') ++pos_;
    if (Peek() != '\n') return false;
    ++pos_;
    ++line_;
    line_start_ = pos_;
    return true;
  }
  void SkipBlankLinesAndComments() {
    while (true) {
      SkipSpaces();
      SkipComment();
      if (!ConsumeNewline()) return;
    }
  }
  // Within an array: spaces, comments and newlines.
  void SkipWhitespaceAndNewlines() { SkipBlankLinesAndComments(); }

  // `after` names what the line held: "the table name", "the value of 'k'".
  Status EndOfLine(std::string_view after) {
    SkipSpaces();
    SkipComment();
    if (AtEnd() || ConsumeNewline()) return OkStatus();
    return Fail("unexpected text at column ", Column(), " after ", after,
                " (one key = value per line)");
  }

  size_t Column() const { return pos_ - line_start_ + 1; }

  Result<std::vector<std::string>> Key() {
    std::vector<std::string> parts;
    while (true) {
      SkipSpaces();
      std::string part;
      if (Peek() == '"') {
        SKADE_ASSIGN_OR_RAISE(part, BasicString());
      } else if (Peek() == '\'') {
        SKADE_ASSIGN_OR_RAISE(part, LiteralString());
      } else {
        while (!AtEnd() && IsBareKeyChar(Peek())) part.push_back(text_[pos_++]);
        if (part.empty()) {
          return Fail("expected a key at column ", Column());
        }
      }
      parts.push_back(std::move(part));
      SkipSpaces();
      if (Peek() != '.') return parts;
      ++pos_;
    }
  }

  Status Value(ConfigEntry* entry) {
    if (Peek() == '[') {
      entry->is_array = true;
      ++pos_;
      while (true) {
        SkipWhitespaceAndNewlines();
        if (Peek() == ']') break;
        if (Peek() == '[') return Fail("nested arrays are not supported");
        SKADE_ASSIGN_OR_RAISE(auto value, Scalar());
        entry->values.push_back(std::move(value));
        SkipWhitespaceAndNewlines();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (Peek() != ']') {
          return AtEnd() ? Fail("unterminated array") : Fail("expected ',' or ']' in the array");
        }
        break;
      }
      ++pos_;
      return OkStatus();
    }
    SKADE_ASSIGN_OR_RAISE(auto value, Scalar());
    entry->values.push_back(std::move(value));
    return OkStatus();
  }

  Result<std::string> Scalar() {
    char c = Peek();
    if (c == '"') {
      if (Peek(1) == '"' && Peek(2) == '"') return Fail("multi-line strings are not supported");
      return BasicString();
    }
    if (c == '\'') {
      if (Peek(1) == '\'' && Peek(2) == '\'') return Fail("multi-line strings are not supported");
      return LiteralString();
    }
    if (c == '{') return Fail("inline tables are not supported");
    std::string word;
    while (!AtEnd() && (IsBareKeyChar(Peek()) || Peek() == '.' || Peek() == '+' || Peek() == ':')) {
      word.push_back(text_[pos_++]);
    }
    if (word == "true" || word == "false") return word;
    if (word.empty()) return Fail("expected ", value_of_, " at column ", Column());
    return Number(word);
  }

  // Decimal integers and floats as TOML writes them (an optional sign, `_`
  // between digits, a fraction and an exponent); the text without the `_`.
  Result<std::string> Number(const std::string& word) {
    std::string digits;
    bool any_digit = false;
    bool previous_digit = false;
    for (size_t i = 0; i < word.size(); ++i) {
      char c = word[i];
      if (c >= '0' && c <= '9') {
        digits.push_back(c);
        any_digit = previous_digit = true;
      } else if (c == '_' && previous_digit && i + 1 < word.size() && word[i + 1] >= '0' &&
                 word[i + 1] <= '9') {
        previous_digit = false;
      } else if (((c == '+' || c == '-') && (i == 0 || word[i - 1] == 'e' || word[i - 1] == 'E')) ||
                 c == '.' || c == 'e' || c == 'E') {
        digits.push_back(c);
        previous_digit = false;
      } else {
        return NotAValue();
      }
    }
    if (!any_digit) return NotAValue();
    return digits;
  }

  tl::unexpected<Error> NotAValue() const {
    return Fail(value_of_, " is not a TOML value (quote strings: \"...\")");
  }

  Result<std::string> BasicString() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (AtEnd() || Peek() == '\n') return Fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
        return Fail("control character in a string");
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      char e = Peek();
      ++pos_;
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u':
        case 'U': {
          size_t width = e == 'u' ? 4 : 8;
          uint32_t code = 0;
          for (size_t i = 0; i < width; ++i) {
            char h = Peek();
            int digit = (h >= '0' && h <= '9')   ? h - '0'
                        : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                        : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                 : -1;
            if (digit < 0) return Fail("bad \\", e, " escape in a string");
            code = code * 16 + static_cast<uint32_t>(digit);
            ++pos_;
          }
          if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            return Fail("\\", e, " escape is not a Unicode scalar value");
          }
          AppendUtf8(code, &out);
          break;
        }
        default:
          return Fail("unknown escape at column ", Column() - 2,
                      " in a string (write \\\\ for a backslash)");
      }
    }
  }

  Result<std::string> LiteralString() {
    ++pos_;
    std::string out;
    while (true) {
      if (AtEnd() || Peek() == '\n') return Fail("unterminated string");
      char c = text_[pos_++];
      if (c == '\'') return out;
      out.push_back(c);
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;  // where line_ starts in text_
  // The value being parsed, as errors name it.
  std::string value_of_ = "the value";
};

}  // namespace

Result<std::vector<ConfigEntry>> ParseConfigFile(std::string_view text) {
  return Parser(text).Document();
}

Result<ConfigEntry> ParseConfigValue(std::string_view text) { return Parser(text).SingleValue(); }

}  // namespace skade::cli
