// Calendar arithmetic for the time transforms and partition paths: days,
// months and years from 1970-01-01 in the proleptic Gregorian calendar,
// correct for dates before the epoch (floor division throughout).
#pragma once

#include <cstdint>

namespace skade::spec {

inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerHour = 3600 * kMicrosPerSecond;
inline constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

/// a / b rounded towards negative infinity. `b` > 0.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// a mod b in [0, b). `b` > 0.
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

struct CivilDate {
  int64_t year;
  int32_t month;  // 1..12
  int32_t day;    // 1..31
};

/// The calendar date `days` after 1970-01-01 (H. Hinnant's civil_from_days).
inline CivilDate CivilFromDays(int64_t days) {
  int64_t z = days + 719468;
  int64_t era = FloorDiv(z, 146097);
  int64_t doe = z - era * 146097;                                       // [0, 146096]
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  auto day = static_cast<int32_t>(doy - (153 * mp + 2) / 5 + 1);
  auto month = static_cast<int32_t>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

inline int32_t YearsFromEpoch(int64_t days) {
  return static_cast<int32_t>(CivilFromDays(days).year - 1970);
}

inline int32_t MonthsFromEpoch(int64_t days) {
  CivilDate date = CivilFromDays(days);
  return static_cast<int32_t>((date.year - 1970) * 12 + (date.month - 1));
}

}  // namespace skade::spec
