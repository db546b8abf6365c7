// FileIO: whole-file access to table files by location, the one way skade
// reaches table and metadata files.
//
// Locations are URIs as Iceberg writes them (see location.h); which FileIO
// serves a scheme is decided in one place, FileIORegistry. The local
// implementation accepts `file:/p`, `file:///p` and plain absolute paths.
// Implementations are thread-safe. Errors: kNotFound for a missing file,
// kAlreadyExists when creating a file that exists, kInvalidArgument for a
// location the FileIO cannot address, kIo for everything else.
//
// A new FileIO (an object store, say) implements the pure virtual calls and
// keeps these promises, which the catalog's durability levels rest on
// (store/durability.h):
// - Files are immutable once complete: WriteFile and NewOutputFile never
//   overwrite (kAlreadyExists). skade names a file in metadata only after
//   it is complete, so a FileIO may show a file while it is written (the
//   local one does) or only from Close on (an object store's PUT); an
//   OutputFile dropped without Close leaves nothing.
// - `durable=true` means that when the call returns the file survives a
//   crash or power loss of this machine *and can be found at its location*
//   (for POSIX: data, its directory entry and every directory above). An
//   object store whose completed PUT is durable meets it with no extra work.
//   A store that cannot promise it must fail the write, never pretend.
// - SyncFile / SyncDirectory make earlier `durable=false` writes durable as
//   above. A storage with no separate sync (object stores: a completed PUT is
//   already durable) overrides them to return OK; the default kUnsupported
//   is for a FileIO that cannot promise durability at all, so that below the
//   immediate level the catalog's flusher reports the failure instead of
//   counting the files durable.
// - DeleteFile and RemoveEmptyDirectory promise nothing about durability:
//   a file that reappears after a crash is unreferenced and harmless.
//   Directories are a file-system notion: a storage without them may make
//   RemoveEmptyDirectory a no-op and ListDirectory a listing by prefix.
// - CheckLocation and ResolveLocation are what the location policy needs
//   (catalog/location_policy.h): which locations this FileIO can address,
//   and where a location really leads (symbolic links, for the local file
//   system). Their defaults suit a storage without links that accepts any
//   location.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/io/location.h"
#include "skade/util/result.h"

namespace skade::io {

/// A file for WriteFiles to create.
struct NewFile {
  std::string location;
  std::string contents;
  bool durable = false;
};

/// A file open for random-access reads (data files, delete files). Its size
/// is fixed when it is opened: skade's files are immutable once complete.
/// Thread-safe: ReadAt may be called from several threads at once.
class InputFile {
 public:
  virtual ~InputFile() = default;
  virtual int64_t Size() const = 0;
  /// Reads up to `length` bytes at `offset` into `out` and returns how many
  /// were read: fewer than `length` only at the end of the file (0 at or
  /// past it). kInvalidArgument for a negative offset or length; kIo when
  /// the storage fails.
  virtual Result<int64_t> ReadAt(int64_t offset, int64_t length, char* out) = 0;
};

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

  /// Opens the regular file at `location` for random-access reads. Errors as
  /// ReadFile. The default reads the whole file with ReadFile, so every
  /// FileIO can serve it; a storage that can read ranges overrides it.
  virtual Result<std::unique_ptr<InputFile>> NewInputFile(std::string_view location);

  /// Creates `location` with `contents`; never overwrites. Parent
  /// directories are created. With `durable`, the file, its directory entry
  /// and the entries of the directories above it are fsynced before
  /// returning (see SyncDirectory), so the file survives a power loss even
  /// when a crashed process created its directory and never synced it.
  virtual Status WriteFile(std::string_view location, std::string_view contents, bool durable) = 0;

  /// As WriteFile, for a file that must end up where `allowed` agrees (the
  /// caller's location policy): storage with links (the local FileIO) asks
  /// it with where the file was created — every link on the way resolved,
  /// read back from the open file, so a link swapped in at any time cannot
  /// lead the write elsewhere — before writing a byte, and removes the empty
  /// file when it refuses; its refusal is returned. The default, for
  /// storage without links, asks with `location` itself, then calls
  /// WriteFile.
  virtual Status WriteConfinedFile(std::string_view location, std::string_view contents,
                                   bool durable,
                                   const std::function<Status(const Location&)>& allowed);

  /// Asks the FileIO to create the files of WriteConfinedFile calls that
  /// need not be durable ahead of need, in `directory` — one the caller owns,
  /// whose group, default ACL and security label such files may take. The
  /// local FileIO keeps a few unnamed files made there (io/spare_files.h);
  /// the default does nothing.
  virtual void MakeSpareFilesIn(std::string_view /*directory*/) {}

  /// As CreateDirectories, for directories that must end up where
  /// `allowed` agrees (the caller's location policy): storage with links
  /// (the local FileIO) asks it with where the directory would be, from the
  /// real path of the deepest one that exists, before making any, and makes
  /// each from its parent without following links (a link swapped in is
  /// kForbidden). The default asks with `location` itself, then calls
  /// CreateDirectories.
  virtual Status CreateConfinedDirectories(std::string_view location,
                                           const std::function<Status(const Location&)>& allowed);

  /// As ReadFileUpTo, for a file that must be where `allowed` agrees (the
  /// caller's location policy): storage with links (the local FileIO) opens
  /// it without following a link in its own place (kForbidden), asks
  /// `allowed` with where the open file is — the links of its directories
  /// resolved, read back from the open file, so no link swapped in at any
  /// time leads the read elsewhere — and returns its refusal instead of
  /// reading. The default, for storage without links, asks with `location`
  /// itself, then calls ReadFileUpTo.
  virtual Result<std::string> ReadConfinedFileUpTo(
      std::string_view location, uint64_t max_bytes,
      const std::function<Status(const Location&)>& allowed);

  /// Creates every file of `files` as WriteFile(location, contents, durable)
  /// would and returns the first error. The default writes them one after
  /// another and stops at the first error; a storage whose every request
  /// waits on the network (S3) writes them at once. On an error any of them
  /// may exist: the caller deletes what it no longer wants, as after a failed
  /// WriteFile.
  virtual Status WriteFiles(const std::vector<NewFile>& files);

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

  /// Creates the directory at `location` and the missing ones above it; one
  /// that exists is not an error. For clients that write a table's files
  /// into directories they expect to exist (DuckDB does not create a new
  /// table's metadata directory). Like RemoveEmptyDirectory it promises no
  /// durability: a durable write into the directory syncs its entry. The
  /// default, for a storage without directories, does nothing.
  virtual Status CreateDirectories(std::string_view /*location*/) { return OkStatus(); }

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

  /// Makes every file of `locations` that still exists durable with its
  /// directory entry, as SyncFile of each and SyncDirectory of each of their
  /// directories would; files and directories that are gone are skipped. One
  /// call for many files, so that a storage can do it in one operation (the
  /// local FileIO: one syncfs(2) per file system). On an error, count none of
  /// them durable. The default makes those single calls, so a wrapper that
  /// changes SyncFile or SyncDirectory changes this too.
  virtual Status SyncFiles(const std::vector<std::string>& locations);

  /// OK if this FileIO can read and write `location` (its scheme, its
  /// authority); kInvalidArgument naming the location if not. Lexical: no
  /// storage is touched. The default accepts every location.
  virtual Status CheckLocation(const Location& /*location*/) const { return OkStatus(); }

  /// Where the normalised `location` really leads: the local FileIO resolves
  /// the symbolic links of its longest existing prefix (the last segment
  /// too, if it exists and is a link; the rest stays lexical). The result is
  /// normalised. Errors as CheckLocation, or kIo when resolving fails. The
  /// default, for storage without links, returns `location` unchanged.
  virtual Result<Location> ResolveLocation(const Location& location) const {
    SKADE_RETURN_NOT_OK(CheckLocation(location));
    return location;
  }

  /// As ReadFileUpTo(location), for a location a client named whose
  /// resolved form (ResolveLocation) the caller has checked: storage with
  /// links (the local FileIO) reads `resolved` and refuses (kForbidden) a
  /// symbolic link anywhere on its way — one made since it was resolved —
  /// so what was checked is what is read. The default, for storage without
  /// links, reads `location`.
  virtual Result<std::string> ReadCheckedFileUpTo(std::string_view location,
                                                  const Location& /*resolved*/,
                                                  uint64_t max_bytes) {
    return ReadFileUpTo(location, max_bytes);
  }

  /// As DeleteFile(location), for a location a client named whose form with
  /// its directory resolved the caller has checked: storage with links (the
  /// local FileIO) removes `resolved` and refuses (kForbidden) a symbolic
  /// link on the way to its directory — one made since it was resolved — so
  /// what was checked is what is deleted (a link that is the file itself is
  /// removed, not followed). The default, for storage without links,
  /// deletes `location`.
  virtual Status DeleteCheckedFile(std::string_view location, const Location& /*resolved*/) {
    return DeleteFile(location);
  }

 protected:
  static tl::unexpected<Error> TooLarge(std::string_view location, uint64_t max_bytes) {
    return InvalidArgument("File ", location, " is larger than the ", max_bytes,
                           " bytes skade reads");
  }
};

/// The local file system. Its SyncDirectory remembers, per instance, which
/// directories are known durable: share one instance rather than making one
/// per call.
std::shared_ptr<FileIO> NewLocalFileIO();

/// The file-system path of a local location (`file:/p`, `file:///p`, `/p`).
/// kInvalidArgument for another scheme or a relative path.
Result<std::string> LocalPath(std::string_view location);

/// The directory part of `location` (everything before the last '/'), or
/// empty when it has none.
std::string ParentLocation(std::string_view location);

}  // namespace skade::io
