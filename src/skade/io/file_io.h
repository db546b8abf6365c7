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

  /// The whole contents of the regular file at `location`. Anything else (a
  /// directory, FIFO, device, socket) is kInvalidArgument and is never read,
  /// so a location named by a client cannot hang or exhaust the reader.
  virtual Result<std::string> ReadFile(std::string_view location) = 0;

  /// As ReadFile, but kInvalidArgument when the file is larger than
  /// `max_bytes` (checked before reading). For files whose location came
  /// from a client.
  virtual Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) {
    SKADE_ASSIGN_OR_RAISE(int64_t size, FileSize(location));
    if (size < 0 || static_cast<uint64_t>(size) > max_bytes) return TooLarge(location, max_bytes);
    SKADE_ASSIGN_OR_RAISE(std::string contents, ReadFile(location));
    if (contents.size() > max_bytes) return TooLarge(location, max_bytes);
    return contents;
  }

  /// Creates `location` with `contents`; never overwrites. Parent
  /// directories are created. With `durable`, the file, its directory entry
  /// and the entries of the directories above it are fsynced before
  /// returning (see SyncDirectory), so the file survives a power loss even
  /// when a crashed process created its directory and never synced it.
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

  /// Makes the contents of the file written at `location` durable (its data,
  /// not its directory entry: see SyncDirectory). For files written with
  /// `durable=false` whose durability is wanted later. kNotFound if the file
  /// is gone. The default is kUnsupported: a FileIO that cannot promise
  /// durability must say so rather than pretend.
  virtual Status SyncFile(std::string_view location) {
    return Unsupported("SyncFile is not supported for ", location);
  }

  /// Makes the entries of the directory at `location` durable (files created
  /// or removed in it), and the directory's own entry in its parent, and so
  /// on up to a directory already known durable (implementations may cache
  /// that knowledge per instance). kNotFound if the directory is gone. The
  /// default is kUnsupported, as for SyncFile.
  virtual Status SyncDirectory(std::string_view location) {
    return Unsupported("SyncDirectory is not supported for ", location);
  }

 protected:
  static tl::unexpected<Error> TooLarge(std::string_view location, uint64_t max_bytes) {
    return InvalidArgument("File ", location, " is larger than the ", max_bytes,
                           " bytes skade reads");
  }
};

/// The local file system.
std::shared_ptr<FileIO> NewLocalFileIO();

/// The file-system path of a local location (`file:/p`, `file:///p`, `/p`).
/// kInvalidArgument for another scheme or a relative path.
Result<std::string> LocalPath(std::string_view location);

/// The directory part of `location` (everything before the last '/'), or
/// empty when it has none.
std::string ParentLocation(std::string_view location);

}  // namespace skade::io
