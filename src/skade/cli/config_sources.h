// Option values from outside the command line: a TOML file (--config FILE,
// or $SKADE_CONFIG) and SKADE_* environment variables, so that a deployment
// is a file rather than a long command line.
//
// Every global option and every option of the subcommands named as config
// sections (serve) can be set both ways, derived from its long name; an
// option registered anywhere gets both with no code of its own:
//   --commit-log-retention of serve   file: [serve] commit-log-retention = "P30D"
//                                     env:  SKADE_COMMIT_LOG_RETENTION=P30D
//   --warehouse (global)              file: warehouse = "/data/wh" (before any [section])
//                                     env:  SKADE_WAREHOUSE=/data/wh
// A repeatable option takes a TOML array in the file, and in the environment
// one value or a TOML array (`SKADE_IO='["a=1", "b=2"]'`). An empty variable
// counts as unset.
//
// Precedence: command line > environment > file > the option's default.
// CLI11 reads a config file before the environment and lets each set only
// what is still unset, which would rank the file above the environment; so
// skade does not use CLI11's environment pass: its config reader returns the
// file's values overlaid with the environment's, and CLI11 applies them to the
// options the command line left unset. Without --config the reader is still
// run, on an empty file (kEmptyConfigFile), so the environment always applies
// the same way. (Options show their variable in --help through CLI11's
// envname, which never fires: by then every such option already has a value.)
//
// Errors: an unknown key, malformed TOML or an unreadable file fails the parse
// with a message naming the file and line; an error that mentions an option
// (CLI11's "Could not convert: --port = x", or a command's own "Invalid --port
// 70000") is followed by where that option's value came from (ConfigSourceNote).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::cli {

/// The environment variable that names the config file, where --config is not given.
inline constexpr char kConfigVariable[] = "SKADE_CONFIG";

/// What --config reads when it is not given: nothing, so only the environment applies.
inline constexpr char kEmptyConfigFile[] = "/dev/null";

/// "SKADE_" and the long name in upper case with '-' as '_': "commit-log-retention"
/// gives "SKADE_COMMIT_LOG_RETENTION".
std::string EnvironmentVariableFor(std::string_view long_name);

/// Adds --config to `app` and makes every option of `app` and of its
/// subcommands named in `sections` settable from the file and the
/// environment. Call once, after every command and option is registered, and
/// before parsing; `app` must outlive the parse. Installs `app`'s failure
/// message (which adds ConfigSourceNote). kInvalidArgument if two options
/// would share a key or an environment variable. Not thread-safe: the CLI's
/// main thread only.
Status InstallConfigSources(CLI::App& app, const std::vector<std::string>& sections = {"serve"});

/// For an error message: where the value of each option that `message`
/// names (as --name) came from, when that is the environment or the config
/// file, as "; --port is from environment variable SKADE_PORT"; empty when
/// every option named came from the command line or its default (or when
/// nothing is installed).
std::string ConfigSourceNote(std::string_view message);

}  // namespace skade::cli
