// Operator-facing log lines on stderr for events no caller can be told of
// (a purge that skipped a file, a background sync that failed).
// Thread-safe: one write per line, so lines from different threads do not mix.
#pragma once

#include <string_view>

namespace skade {

/// Writes "skade: warning: <message>" and a newline to stderr.
void LogWarning(std::string_view message);

}  // namespace skade
