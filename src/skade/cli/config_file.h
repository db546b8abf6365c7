// The TOML that `skade --config FILE` reads: a strict subset of TOML 1.0,
// enough for a file of option values, with errors that name the line.
//
// Accepted: comments, `[table]` headers, `key = value` with bare, quoted or
// dotted keys, basic ("…", with escapes) and literal ('…') strings, integers,
// floats, booleans, and arrays of those (over several lines, trailing comma
// allowed). Rejected with an error, never misread: multi-line strings, inline
// tables, arrays of tables, nested arrays, dates, duplicate keys or tables,
// and anything else that is not TOML.
//
// CLI11's own reader (ConfigTOML) is not used for the file because it accepts
// malformed lines as flags, cuts a value at a '#' inside quotes (a secret
// with a '#' would be silently truncated), and reports no line numbers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::cli {

/// One `key = value` of a config file.
struct ConfigEntry {
  /// The enclosing tables and the dotted key's parts, then the key itself:
  /// `[serve]` + `port = 1` is {"serve", "port"}.
  std::vector<std::string> path;
  /// The value as text: a string's contents, a number as written (without
  /// `_`), `true` / `false`; an array's elements in order.
  std::vector<std::string> values;
  bool is_array = false;
  /// 1-based line of the key.
  int line = 0;

  /// The path joined with '.': "serve.port".
  std::string key() const;
};

/// Parses `text`. On malformed input, kInvalidArgument with a message
/// "line N: …" (the caller adds the file name).
Result<std::vector<ConfigEntry>> ParseConfigFile(std::string_view text);

/// Parses one TOML value (`"a"`, `8181`, `["x", "y"]`): the form a list option
/// takes in an environment variable. kInvalidArgument if it is not exactly one
/// value.
Result<ConfigEntry> ParseConfigValue(std::string_view text);

}  // namespace skade::cli
