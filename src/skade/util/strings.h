// Small string helpers. (Debian's Abseil is built with its own string_view,
// so absl::StrCat does not take std::string_view; these do.)
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace skade {

namespace strings_internal {

inline void Append(std::string* out, std::string_view piece) { out->append(piece); }
inline void Append(std::string* out, const char* piece) { out->append(piece); }
inline void Append(std::string* out, const std::string& piece) { out->append(piece); }
inline void Append(std::string* out, char c) { out->push_back(c); }
inline void Append(std::string* out, bool b) { out->append(b ? "true" : "false"); }
template <typename T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool> &&
         !std::is_same_v<T, char>) void Append(std::string* out, T value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, end);
}
template <typename T>
requires std::is_floating_point_v<T>
void Append(std::string* out, T value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, end);
}

}  // namespace strings_internal

/// Concatenates strings, string views, characters, booleans and numbers.
template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::string out;
  (strings_internal::Append(&out, parts), ...);
  return out;
}

template <typename... Parts>
void StrAppend(std::string* out, const Parts&... parts) {
  (strings_internal::Append(out, parts), ...);
}

/// `text` in ASCII lower case.
std::string AsciiLower(std::string_view text);

/// `text` without leading and trailing ASCII whitespace.
std::string_view StripWhitespace(std::string_view text);

/// Splits on every occurrence of `separator` (empty pieces kept).
std::vector<std::string> Split(std::string_view text, char separator);

/// Joins `pieces` with `separator`.
std::string Join(const std::vector<std::string>& pieces, std::string_view separator);

/// `location` (a file URI or path) with exactly one '/' between it and `name`.
std::string JoinLocation(std::string_view location, std::string_view name);

/// Parses the whole of `text` as a base-10 integer; nullopt if it is not one
/// or does not fit.
std::optional<int64_t> ParseInt64(std::string_view text);
std::optional<int32_t> ParseInt32(std::string_view text);

/// Removes `prefix` / `suffix` from `text` if present; returns whether it was.
bool ConsumePrefix(std::string_view* text, std::string_view prefix);
bool ConsumeSuffix(std::string_view* text, std::string_view suffix);
/// ConsumePrefix, with `prefix` matched as case-insensitive ASCII.
bool ConsumePrefixIgnoringCase(std::string_view* text, std::string_view prefix);

/// Case-insensitive ASCII equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace skade
