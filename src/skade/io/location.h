// Location: a file location (a URI as Iceberg writes it) split into scheme,
// authority and path, so that locations can be compared without knowing
// which storage they name.
//
// Accepted forms: `scheme://authority/path`, `scheme:/path`, and a plain
// absolute path, which is a local file (`/p` = `file:/p` = `file:///p`).
// The scheme is case-insensitive and kept in lower case; the authority (a
// host or bucket) and the path are kept as written, without percent-decoding,
// because that is how FileIOs hand them to the storage. There is no query or
// fragment: `?` and `#` are part of the path.
//
// Parse() normalises the path lexically, by the scheme's rules:
// - `file`: POSIX rules, so duplicate and trailing slashes are dropped
//   (`/a//b/` is `/a/b`).
// - any other scheme (object stores): keys are literal, so `a//b` and `a/b`
//   are different objects; only a trailing slash is dropped.
// In every scheme a "." or ".." segment is kInvalidArgument: storage may
// resolve it (POSIX does), a lexical comparison cannot, so a location with one
// could pass a prefix check and land outside it.
//
// A plain value; thread-compatible.
#pragma once

#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade::io {

struct Location {
  std::string scheme;     // lower case; "file" for a plain path
  std::string authority;  // empty for `file:/p`, `file:///p` and `/p`
  std::string path;       // absolute: "/" or "/a/b"

  /// `location` split and normalised (see above). kInvalidArgument for a
  /// relative path (including `scheme:relative`), a "." / ".." segment, or
  /// an ASCII control character (NUL included) anywhere.
  static Result<Location> Parse(std::string_view location);

  /// `location` split but with the path exactly as written (only checked to
  /// be absolute and free of control characters): what a FileIO hands to
  /// its storage.
  static Result<Location> ParseVerbatim(std::string_view location);

  /// As Parse, but a relative path (no scheme, no leading '/') is a local
  /// path taken from the working directory, its "." and ".." resolved
  /// lexically: how a command line or a configuration names a directory.
  static Result<Location> ParseUserInput(std::string_view location);

  /// True if this location is `root` or lies under it: same scheme, same
  /// authority, and `root.path` is this path or a whole-segment prefix of it
  /// (`/a/bc` is not under `/a/b`). Both must be normalised (Parse).
  bool IsUnder(const Location& root) const;

  /// The parent directory; the root is its own parent.
  Location Parent() const;

  /// The last path segment; empty for the root.
  std::string_view Name() const;

  /// The location of `name` (one segment) in this directory.
  Location Child(std::string_view name) const;

  /// `scheme://authority/path`, e.g. `file:///a/b`, `s3://bucket/a/b`.
  std::string ToString() const;

  bool operator==(const Location&) const = default;
};

}  // namespace skade::io
