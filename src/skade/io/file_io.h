// FileIO: whole-file access to table files by location.
//
// Locations are URIs as Iceberg writes them; the local implementation accepts
// `file:/p`, `file:///p` and plain absolute paths. Implementations are
// thread-safe. Errors: kNotFound for a missing file, kAlreadyExists when
// creating a file that exists, kIo for everything else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::io {

/// A file being written sequentially. Not thread-safe. Close() makes the
/// contents visible in full (and durable when requested); a file dropped
/// without Close() is removed.
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual Status Write(std::string_view data) = 0;
  virtual int64_t BytesWritten() const = 0;
  virtual Status Close() = 0;
};

class FileIO {
 public:
  virtual ~FileIO() = default;

  virtual Result<std::string> ReadFile(std::string_view location) = 0;

  /// Creates `location` with `contents`; never overwrites. Parent
  /// directories are created. With `durable`, the file and its directory
  /// entry are fsynced before returning.
  virtual Status WriteFile(std::string_view location, std::string_view contents, bool durable) = 0;

  /// Starts creating `location` for streamed writes (never overwrites).
  virtual Result<std::unique_ptr<OutputFile>> NewOutputFile(std::string_view location,
                                                            bool durable) = 0;

  /// Removes a file. A missing file is kNotFound.
  virtual Status DeleteFile(std::string_view location) = 0;

  virtual Result<bool> Exists(std::string_view location) = 0;
  virtual Result<int64_t> FileSize(std::string_view location) = 0;

  /// Names (not locations) of the entries in a directory; empty if missing.
  virtual Result<std::vector<std::string>> ListDirectory(std::string_view location) = 0;

  /// Removes a directory if it is empty; missing or non-empty is not an error.
  virtual Status RemoveEmptyDirectory(std::string_view location) = 0;
};

/// The local file system.
std::shared_ptr<FileIO> NewLocalFileIO();

/// The file-system path of a local location (`file:/p`, `file:///p`, `/p`).
/// kInvalidArgument for another scheme or a relative path.
Result<std::string> LocalPath(std::string_view location);

/// `location` with exactly one '/' between it and `name`.
std::string JoinLocation(std::string_view location, std::string_view name);

}  // namespace skade::io
