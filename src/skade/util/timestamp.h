// Unix-millisecond timestamps as ISO-8601 text, for people: what the CLI
// prints and accepts for points in a table's history. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade {

/// `millis` (since the Unix epoch) in UTC as "2026-11-01T12:00:00.000Z".
std::string FormatTimestampMillis(int64_t millis);

/// Parses Unix milliseconds (digits only) or an ISO-8601 date or date-time:
/// "2026-11-01", "2026-11-01T12:00", "2026-11-01 12:00:00.5", each optionally
/// followed by "Z" or an offset ("+02:00", "+0200", "-05"); UTC unless an
/// offset is given. Fractions finer than a millisecond are truncated.
/// kInvalidArgument, naming the accepted forms, for anything else
/// (including impossible dates such as 2026-02-30).
Result<int64_t> ParseTimestampMillis(std::string_view text);

/// An ISO-8601 date or date-time as written, at nanosecond precision, for the
/// callers that need more than milliseconds or must know whether a zone was
/// given (Iceberg's timestamp vs timestamptz literals).
struct IsoDateTime {
  int64_t days = 0;          // since 1970-01-01, of the local date as written
  int64_t nanos_of_day = 0;  // 0 for a bare date
  bool has_time = false;
  std::optional<int32_t> offset_minutes;  // east of UTC, when "Z" or an offset is given
};

/// The forms ParseTimestampMillis accepts (except bare Unix milliseconds),
/// with up to nine fraction digits kept; nullopt for anything else.
std::optional<IsoDateTime> ParseIsoDateTime(std::string_view text);

/// "HH:MM[:SS[.fraction]]" (up to nine fraction digits) as nanoseconds of
/// the day; nullopt for anything else.
std::optional<int64_t> ParseIsoTimeOfDay(std::string_view text);

}  // namespace skade
