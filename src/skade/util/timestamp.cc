#include "skade/util/timestamp.h"

#include <chrono>
#include <cstdio>
#include <optional>

#include "skade/util/strings.h"

namespace skade {

namespace {

using std::chrono::days;
using std::chrono::milliseconds;
using std::chrono::sys_days;

constexpr int64_t kMillisPerMinute = 60'000;

// Reads exactly `count` digits from the front of `text`.
bool ConsumeDigits(std::string_view* text, size_t count, int* value) {
  if (text->size() < count) return false;
  int out = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = (*text)[i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  text->remove_prefix(count);
  *value = out;
  return true;
}

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "HH:MM[:SS[.fraction]]" into milliseconds of the day.
bool ConsumeTime(std::string_view* text, int64_t* millis) {
  int hour = 0, minute = 0, second = 0, fraction_millis = 0;
  if (!ConsumeDigits(text, 2, &hour) || !ConsumePrefix(text, ":") ||
      !ConsumeDigits(text, 2, &minute)) {
    return false;
  }
  if (ConsumePrefix(text, ":")) {
    if (!ConsumeDigits(text, 2, &second)) return false;
    if (ConsumePrefix(text, ".")) {
      size_t digits = 0;
      while (digits < text->size() && (*text)[digits] >= '0' && (*text)[digits] <= '9') ++digits;
      if (digits == 0 || digits > 9) return false;
      for (size_t i = 0; i < 3; ++i) {
        fraction_millis = fraction_millis * 10 + (i < digits ? (*text)[i] - '0' : 0);
      }
      text->remove_prefix(digits);
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  *millis = ((hour * 60 + minute) * 60 + second) * int64_t{1000} + fraction_millis;
  return true;
}

// "Z", "+HH:MM", "+HHMM" or "+HH" (or '-') into minutes east of UTC.
bool ConsumeOffset(std::string_view* text, int64_t* minutes) {
  if (ConsumePrefix(text, "Z")) {
    *minutes = 0;
    return true;
  }
  if (text->empty() || (text->front() != '+' && text->front() != '-')) return false;
  const int sign = text->front() == '-' ? -1 : 1;
  text->remove_prefix(1);
  int hours = 0, mins = 0;
  if (!ConsumeDigits(text, 2, &hours)) return false;
  if (!text->empty()) {
    ConsumePrefix(text, ":");
    if (!ConsumeDigits(text, 2, &mins)) return false;
  }
  if (hours > 23 || mins > 59) return false;
  *minutes = sign * (hours * 60 + mins);
  return true;
}

std::optional<int64_t> ParseIso(std::string_view text) {
  int year = 0, month = 0, day = 0;
  if (!ConsumeDigits(&text, 4, &year) || !ConsumePrefix(&text, "-") ||
      !ConsumeDigits(&text, 2, &month) || !ConsumePrefix(&text, "-") ||
      !ConsumeDigits(&text, 2, &day)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year{year},
                                         std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return std::nullopt;
  int64_t millis =
      std::chrono::duration_cast<milliseconds>(sys_days{date}.time_since_epoch()).count();
  if (text.empty()) return millis;
  if (!ConsumePrefix(&text, "T") && !ConsumePrefix(&text, " ")) return std::nullopt;
  int64_t time_of_day = 0;
  if (!ConsumeTime(&text, &time_of_day)) return std::nullopt;
  millis += time_of_day;
  if (text.empty()) return millis;
  int64_t offset_minutes = 0;
  if (!ConsumeOffset(&text, &offset_minutes) || !text.empty()) return std::nullopt;
  return millis - offset_minutes * kMillisPerMinute;
}

}  // namespace

std::string FormatTimestampMillis(int64_t millis) {
  const std::chrono::sys_time<milliseconds> time{milliseconds{millis}};
  const auto day = std::chrono::floor<days>(time);
  const std::chrono::year_month_day date{day};
  const std::chrono::hh_mm_ss clock{time - day};
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", int{date.year()},
                unsigned{date.month()}, unsigned{date.day()},
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()),
                static_cast<int>(clock.subseconds().count()));
  return buf;
}

Result<int64_t> ParseTimestampMillis(std::string_view text) {
  if (AllDigits(text)) {
    if (auto millis = ParseInt64(text)) return *millis;
  } else if (auto millis = ParseIso(text)) {
    return *millis;
  }
  return InvalidArgument("Invalid timestamp '", text,
                         "': expected Unix milliseconds or ISO-8601 such as 2026-11-01, "
                         "2026-11-01T12:00:00Z or 2026-11-01 12:00:00+02:00");
}

}  // namespace skade
