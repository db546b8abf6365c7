// Unix-millisecond timestamps as ISO-8601 text, for people: what the CLI
// prints and accepts for points in a table's history. Stateless; thread-safe.
#pragma once

#include <cstdint>
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

}  // namespace skade
