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
constexpr int64_t kMillisPerDay = 86'400'000;

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

// "HH:MM[:SS[.fraction]]" into nanoseconds of the day.
bool ConsumeTime(std::string_view* text, int64_t* nanos) {
  int hour = 0, minute = 0, second = 0;
  int64_t fraction_nanos = 0;
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
      for (size_t i = 0; i < 9; ++i) {
        fraction_nanos = fraction_nanos * 10 + (i < digits ? (*text)[i] - '0' : 0);
      }
      text->remove_prefix(digits);
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  *nanos = ((hour * 60 + minute) * 60 + second) * int64_t{1'000'000'000} + fraction_nanos;
  return true;
}

// "Z", "+HH:MM", "+HHMM" or "+HH" (or '-') into minutes east of UTC.
bool ConsumeOffset(std::string_view* text, int32_t* minutes) {
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

}  // namespace

std::optional<IsoDateTime> ParseIsoDateTime(std::string_view text) {
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
  IsoDateTime out;
  out.days = sys_days{date}.time_since_epoch().count();
  if (text.empty()) return out;
  if (!ConsumePrefix(&text, "T") && !ConsumePrefix(&text, " ")) return std::nullopt;
  if (!ConsumeTime(&text, &out.nanos_of_day)) return std::nullopt;
  out.has_time = true;
  if (text.empty()) return out;
  int32_t offset_minutes = 0;
  if (!ConsumeOffset(&text, &offset_minutes) || !text.empty()) return std::nullopt;
  out.offset_minutes = offset_minutes;
  return out;
}

std::optional<int64_t> ParseIsoTimeOfDay(std::string_view text) {
  int64_t nanos = 0;
  if (!ConsumeTime(&text, &nanos) || !text.empty()) return std::nullopt;
  return nanos;
}

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
  } else if (auto parts = ParseIsoDateTime(text)) {
    return parts->days * kMillisPerDay + parts->nanos_of_day / 1'000'000 -
           int64_t{parts->offset_minutes.value_or(0)} * kMillisPerMinute;
  }
  return InvalidArgument("Invalid timestamp '", text,
                         "': expected Unix milliseconds or ISO-8601 such as 2026-11-01, "
                         "2026-11-01T12:00:00Z or 2026-11-01 12:00:00+02:00");
}

}  // namespace skade
