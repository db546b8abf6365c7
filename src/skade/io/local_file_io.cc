// FileIO on the local POSIX file system.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "skade/io/buffer_input_file.h"
#include "skade/io/file_io.h"
#include "skade/io/spare_files.h"
#include "skade/util/strings.h"

namespace skade::io {

namespace {

namespace fs = std::filesystem;

// OK for a location on this machine: the file scheme and no host.
Status CheckLocal(const Location& location, std::string_view as_written) {
  if (location.scheme != "file") {
    return InvalidArgument("Unsupported location scheme (only local files): ", as_written);
  }
  // file://host/p names a file on another machine.
  if (!location.authority.empty()) {
    return InvalidArgument("Not a local file location: ", as_written);
  }
  return OkStatus();
}

tl::unexpected<Error> ErrnoError(std::string_view what, const std::string& path, int err) {
  if (err == ENOENT) return MakeError(ErrorKind::kNotFound, "File does not exist: ", path);
  if (err == EEXIST) return MakeError(ErrorKind::kAlreadyExists, "File already exists: ", path);
  // The path itself is wrong (every path comes from a location a client may
  // have named): a name too long, a file where a directory must be, or a
  // loop of symbolic links. Retryable: the file system may be put right
  // (a file in place of a directory the server made), so an answer kept
  // for an Idempotency-Key must not keep this one.
  if (err == ENAMETOOLONG || err == ENOTDIR || err == EISDIR || err == ELOOP) {
    return MakeRetryableError(ErrorKind::kInvalidArgument, what, " ", path, ": ",
                              std::strerror(err));
  }
  // A socket where a file must be.
  if (err == ENXIO) {
    return MakeRetryableError(ErrorKind::kInvalidArgument, what, " ", path, ": not a regular file");
  }
  // No permission where whoever can write in a table's directories can take
  // it away: a refusal, not a failure of the server.
  if (err == EACCES || err == EPERM) {
    return MakeError(ErrorKind::kForbidden, what, " ", path, ": ", std::strerror(err));
  }
  return IoError(what, " ", path, ": ", std::strerror(err));
}

tl::unexpected<Error> Vanished(std::string_view what, const std::string& path) {
  return MakeRetryableError(ErrorKind::kInvalidArgument, what, " ", path,
                            ": a directory on its way was removed meanwhile");
}

Status FsyncPath(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return ErrnoError("Cannot open", path, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoError("Cannot fsync", path, err);
  return OkStatus();
}

// SyncFiles of fewer files than this syncs them one by one.
constexpr size_t kSyncfsFromFiles = 4;

// File systems whose syncfs(2) is known to write and wait on every dirty
// inode, data and directory entries alike, and (Linux 5.8 and later) to
// report writeback errors. Elsewhere (network and FUSE file systems, whose
// syncfs may do less) files are synced one by one.
bool TrustsSyncfs(int fd) {
  struct statfs st;
  if (::fstatfs(fd, &st) != 0) return false;
  switch (static_cast<unsigned long>(st.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC:
      return true;
    default:
      return false;
  }
}

// The most one write(2) is handed. Measured on ext4 (Linux 6.18, a VM with
// free page reporting): one 3 MB write into a new file took 6-20x as long
// as the same bytes in 64-256 KiB pieces, likely because the page cache
// then allocates large folios, whose pages the host must fault back in. A
// metadata file of a long history is such a write on every commit.
constexpr size_t kMaxWriteBytes = 256 * 1024;

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), std::min(data.size(), kMaxWriteBytes));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("Cannot write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

// Creates `directory` and the missing ones above it. Their entries are not
// synced here: a durable file's Close syncs the whole chain (see
// SyncedDirectories), which also covers directories that already existed
// but were created by a process that crashed before syncing them.
Status EnsureDirectory(const fs::path& directory) {
  std::error_code ec;
  if (fs::is_directory(directory, ec)) return OkStatus();
  fs::create_directories(directory, ec);
  std::error_code exists_ec;  // (the throwing overloads would escape as exceptions)
  if (ec && !fs::is_directory(directory, exists_ec)) {
    if (ec == std::errc::filename_too_long || ec == std::errc::not_a_directory ||
        ec == std::errc::file_exists ||  // a file where a directory must be
        ec == std::errc::too_many_symbolic_link_levels) {
      return InvalidArgument("Cannot create directory ", directory.string(), ": ", ec.message());
    }
    return IoError("Cannot create directory ", directory.string(), ": ", ec.message());
  }
  return OkStatus();
}

// The directories whose entry in their parent, and every ancestor's, this
// process has fsynced: a durable write then pays for the chain up to the
// root once per directory per process, and one fsync of its own directory
// after that. Keyed by path and remembered with the inode, so a directory
// removed and re-created (by any process) is synced again. Thread-safe.
class SyncedDirectories {
 public:
  // Makes the entries of `dir` durable, and `dir` reachable from the root.
  Status Sync(const fs::path& dir) {
    SKADE_RETURN_NOT_OK(FsyncPath(dir.string(), O_RDONLY | O_DIRECTORY));
    // The chain of directories whose own entry is not known durable yet.
    std::vector<std::pair<fs::path, ino_t>> chain;
    for (fs::path d = dir; d != d.parent_path(); d = d.parent_path()) {
      struct stat st;
      if (::stat(d.c_str(), &st) != 0) return ErrnoError("Cannot stat", d.string(), errno);
      if (Known(d, st.st_ino)) break;
      chain.emplace_back(d, st.st_ino);
    }
    for (const auto& [d, inode] : chain) {
      SKADE_RETURN_NOT_OK(FsyncPath(d.parent_path().string(), O_RDONLY | O_DIRECTORY));
    }
    // Remembered only once the whole chain is durable.
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [d, inode] : chain) synced_[d.string()] = inode;
    return OkStatus();
  }

 private:
  bool Known(const fs::path& dir, ino_t inode) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = synced_.find(dir.string());
    return it != synced_.end() && it->second == inode;
  }

  std::mutex mutex_;
  std::unordered_map<std::string, ino_t> synced_;
};

class LocalOutputFile : public OutputFile {
 public:
  LocalOutputFile(std::string path, int fd, bool durable,
                  std::shared_ptr<SyncedDirectories> directories)
      : path_(std::move(path)), fd_(fd), durable_(durable), directories_(std::move(directories)) {}
  ~LocalOutputFile() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(path_.c_str());
    }
  }

  Status Write(std::string_view data) override {
    if (fd_ < 0) return IoError("Write after close: ", path_);
    SKADE_RETURN_NOT_OK(WriteAll(fd_, data, path_));
    written_ += static_cast<int64_t>(data.size());
    return OkStatus();
  }

  int64_t BytesWritten() const override { return written_; }

  Status Close() override {
    if (fd_ < 0) return OkStatus();
    if (durable_ && ::fdatasync(fd_) != 0) return ErrnoError("Cannot fsync", path_, errno);
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return ErrnoError("Cannot close", path_, errno);
    if (durable_) SKADE_RETURN_NOT_OK(directories_->Sync(fs::path(path_).parent_path()));
    return OkStatus();
  }

 private:
  std::string path_;
  int fd_;
  bool durable_;
  std::shared_ptr<SyncedDirectories> directories_;
  int64_t written_ = 0;
};

// `fd`, opened for reading from `path`, if it is a regular file (`st` its
// fstat); closed otherwise.
Result<int> KeepIfRegular(int fd, const std::string& path, struct stat* st) {
  if (::fstat(fd, st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoError("Cannot stat", path, err);
  }
  if (!S_ISREG(st->st_mode)) {
    ::close(fd);
    return InvalidArgument("Not a regular file: ", path);
  }
  return fd;
}

// Opens the regular file at `path` for reading and fills `st`. O_NONBLOCK so
// opening a FIFO does not wait for a writer; the fstat on the open
// descriptor then decides, with no window for the path to change.
Result<int> OpenRegularFile(const std::string& path, struct stat* st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return ErrnoError("Cannot open", path, errno);
  return KeepIfRegular(fd, path, st);
}

// Opens `name` in the directory `dir` with O_NOFOLLOW (and `flags`); a
// link there is kForbidden, for `path` (the whole path, for the message).
Result<int> OpenWithoutLink(int dir, const std::string& name, int flags, const std::string& path) {
  int next = ::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
  if (next >= 0) return next;
  int err = errno;
  struct stat link;
  if ((err == ELOOP || err == ENOTDIR) &&
      ::fstatat(dir, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode)) {
    return MakeError(ErrorKind::kForbidden, "File ", path,
                     " leads through a symbolic link made after it was checked");
  }
  return ErrnoError("Cannot open", path, err);
}

// The directory of an absolute `path` with no symbolic link on its way,
// opened (O_PATH) from "/" one directory at a time with O_NOFOLLOW, so a
// link that appears anywhere along it is refused (kForbidden) rather than
// followed, whenever it appears; and the file's name in it.
Result<std::pair<int, std::string>> OpenDirectoryWithoutLinks(const std::string& path) {
  if (!path.starts_with('/')) return InvalidArgument("Not an absolute path: ", path);
  std::vector<std::string> names;
  for (size_t start = 0; start < path.size();) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string name = path.substr(start, end - start);
    if (name == "." || name == "..") return InvalidArgument("Not a resolved path: ", path);
    if (!name.empty()) names.push_back(std::move(name));
    start = end + 1;
  }
  if (names.empty()) return InvalidArgument("Not a regular file: ", path);
  int dir = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return ErrnoError("Cannot open", "/", errno);
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    auto next = OpenWithoutLink(dir, names[i], O_PATH | O_DIRECTORY, path);
    ::close(dir);
    if (!next) return tl::unexpected(next.error());
    dir = *next;
  }
  return std::pair<int, std::string>(dir, std::move(names.back()));
}

// As OpenRegularFile, for an absolute `path` with no symbolic link on its
// way (FileIO::ReadCheckedFileUpTo), itself included.
Result<int> OpenRegularFileWithoutLinks(const std::string& path, struct stat* st) {
  SKADE_ASSIGN_OR_RAISE(auto directory, OpenDirectoryWithoutLinks(path));
  auto fd =
      OpenWithoutLink(directory.first, directory.second, O_RDONLY | O_NONBLOCK | O_NOCTTY, path);
  ::close(directory.first);
  if (!fd) return tl::unexpected(fd.error());
  return KeepIfRegular(*fd, path, st);
}

// The path of the file or directory open as `fd` (opened as `path`), links
// resolved: the kernel's name for it. kForbidden when the kernel cannot say
// (no /proc, or a real path of PATH_MAX bytes or more, which a link can make
// of a short one): a confined operation then cannot tell where it is, and
// resolving `path` by name again would answer for another moment.
Result<std::string> OpenedPath(int fd, const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(StrCat("/proc/self/fd/", fd).c_str(), buf, sizeof(buf));
  if (n > 0 && n < static_cast<ssize_t>(sizeof(buf)) && buf[0] == '/') {
    return std::string(buf, static_cast<size_t>(n));
  }
  return MakeError(ErrorKind::kForbidden, "Cannot tell where ", path,
                   " lies (its real path is too long, or /proc is not mounted)");
}

// As ErrnoError, for making a confined file or directory
// (FileIO::WriteConfinedFile, CreateConfinedDirectories): a missing entry is
// a directory on the way removed while it ran (not a missing file, which a
// client reads as a missing table).
tl::unexpected<Error> ConfinedError(std::string_view what, const std::string& path, int err) {
  if (err == ENOENT) return Vanished(what, path);
  return ErrnoError(what, path, err);
}

// Opens `directory` (O_PATH), making the missing ones. The deepest that
// exists is opened (following links, as any path's existing prefix), and
// `allowed` is asked where `below` it (a name in `directory`, or empty for
// `directory` itself) would lie, from the open directory's real path, before
// anything is made or created; each missing directory is then made and
// opened from its parent without following links, so one swapped for a link
// meanwhile is refused. What the caller creates in the directory returned
// is where `allowed` was asked about.
Result<int> OpenConfinedDirectory(fs::path directory, const std::string& below,
                                  const std::function<Status(const Location&)>& allowed) {
  if (!directory.has_filename()) directory = directory.parent_path();  // a trailing slash
  std::vector<std::string> missing;                                    // deepest first
  fs::path existing = directory;
  // Mostly the directory exists (a table's metadata directory after its
  // first commit): opened at once, without looking for missing ones first.
  int dir = ::open(existing.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    const int err = errno;
    if (err != ENOENT) return ConfinedError("Cannot open", existing.string(), err);
  }
  for (struct stat st; dir < 0 && ::stat(existing.c_str(), &st) != 0;
       existing = existing.parent_path()) {
    const int err = errno;  // before anything that allocates
    if (err != ENOENT || existing == existing.parent_path()) {
      return ConfinedError("Cannot open", existing.string(), err);
    }
    std::string name = existing.filename().string();
    if (name.empty() || name == "." || name == "..") {
      return InvalidArgument("Not a resolved path: ", directory.string());
    }
    missing.push_back(std::move(name));
  }
  if (dir < 0) {
    dir = ::open(existing.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
      const int err = errno;
      return ConfinedError("Cannot open", existing.string(), err);
    }
  }
  Status inside = [&]() -> Status {
    SKADE_ASSIGN_OR_RAISE(std::string real, OpenedPath(dir, existing.string()));
    fs::path would_be(real);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) would_be /= *it;
    if (!below.empty()) would_be /= below;
    SKADE_ASSIGN_OR_RAISE(Location where, Location::Parse(would_be.string()));
    return allowed(where);
  }();
  if (!inside) {
    ::close(dir);
    return tl::unexpected(inside.error());
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdirat(dir, it->c_str(), 0777) != 0 && errno != EEXIST) {
      int err = errno;
      ::close(dir);
      return ConfinedError("Cannot create directory", directory.string(), err);
    }
    auto next = OpenWithoutLink(dir, *it, O_PATH | O_DIRECTORY, directory.string());
    ::close(dir);
    if (!next && next.error().kind == ErrorKind::kNotFound) {
      return ConfinedError("Cannot open directory", directory.string(), ENOENT);
    }
    if (!next) return tl::unexpected(next.error());
    dir = *next;
  }
  return dir;
}

// pread(2) on one descriptor: no shared file offset, so concurrent ReadAt
// calls need no lock.
class LocalInputFile : public InputFile {
 public:
  LocalInputFile(std::string path, int fd, int64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~LocalInputFile() override { ::close(fd_); }

  int64_t Size() const override { return size_; }

  Result<int64_t> ReadAt(int64_t offset, int64_t length, char* out) override {
    SKADE_RETURN_NOT_OK(CheckReadRange(offset, length));
    int64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, out + done, static_cast<size_t>(length - done), offset + done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("Cannot read", path_, errno);
      }
      if (n == 0) break;
      done += n;
    }
    return done;
  }

 private:
  const std::string path_;
  const int fd_;
  const int64_t size_;
};

class LocalFileIO : public FileIO {
 public:
  Result<std::string> ReadFile(std::string_view location) override {
    return Read(location, UINT64_MAX);
  }

  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    return Read(location, max_bytes);
  }

  Result<std::unique_ptr<InputFile>> NewInputFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    struct stat st;
    SKADE_ASSIGN_OR_RAISE(int fd, OpenRegularFile(path, &st));
    return std::unique_ptr<InputFile>(new LocalInputFile(std::move(path), fd, st.st_size));
  }

  Result<std::string> ReadCheckedFileUpTo(std::string_view location, const Location& resolved,
                                          uint64_t max_bytes) override {
    SKADE_RETURN_NOT_OK(CheckLocal(resolved, location));
    struct stat st;
    SKADE_ASSIGN_OR_RAISE(int fd, OpenRegularFileWithoutLinks(resolved.path, &st));
    return ReadOpened(fd, st, location, resolved.path, max_bytes);
  }

  Result<std::string> ReadConfinedFileUpTo(
      std::string_view location, uint64_t max_bytes,
      const std::function<Status(const Location&)>& allowed) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) {
      int err = errno;
      struct stat link;
      if (err == ELOOP && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        return MakeError(ErrorKind::kForbidden, "File ", path, " is a symbolic link");
      }
      return ErrnoError("Cannot open", path, err);
    }
    struct stat st;
    SKADE_ASSIGN_OR_RAISE(fd, KeepIfRegular(fd, path, &st));
    // Where the open file is: whatever links led to its directory.
    Status confined = [&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(std::string real, OpenedPath(fd, path));
      SKADE_ASSIGN_OR_RAISE(Location where, Location::Parse(real));
      return allowed(where);
    }();
    if (!confined) {
      ::close(fd);
      return tl::unexpected(confined.error());
    }
    return ReadOpened(fd, st, location, path, max_bytes);
  }

  Result<std::string> Read(std::string_view location, uint64_t max_bytes) {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    struct stat st;
    SKADE_ASSIGN_OR_RAISE(int fd, OpenRegularFile(path, &st));
    return ReadOpened(fd, st, location, path, max_bytes);
  }

  // Reads all of the open regular file `fd` (`st` its fstat) and closes it.
  static Result<std::string> ReadOpened(int fd, const struct stat& st, std::string_view location,
                                        const std::string& path, uint64_t max_bytes) {
    std::string out;
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
      ::close(fd);
      return TooLarge(location, max_bytes);
    }
    if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return ErrnoError("Cannot read", path, err);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
      if (out.size() > max_bytes) {  // grew while we read
        ::close(fd);
        return TooLarge(location, max_bytes);
      }
    }
    ::close(fd);
    return out;
  }

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    SKADE_ASSIGN_OR_RAISE(auto file, NewOutputFile(location, durable));
    SKADE_RETURN_NOT_OK(file->Write(contents));
    return file->Close();
  }

  // Every directory is made and opened relative to its parent's descriptor
  // and the file is created in the last one without following a link (no
  // path is looked up twice), so swapping a directory for a link while this
  // runs cannot lead a directory or the file out of where `allowed` was
  // asked about.
  Status WriteConfinedFile(std::string_view location, std::string_view contents, bool durable,
                           const std::function<Status(const Location&)>& allowed) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    const fs::path file(path);
    const std::string name = file.filename().string();
    if (name.empty() || name == "." || name == "..") {
      return InvalidArgument("Not a file location: ", location);
    }
    SKADE_ASSIGN_OR_RAISE(int dir, OpenConfinedDirectory(file.parent_path(), name, allowed));
    int fd = CreateIn(dir, name, durable);
    int err = errno;
    ::close(dir);
    if (fd < 0) return ConfinedError("Cannot create", path, err);
    LocalOutputFile out(path, fd, durable, directories_);
    SKADE_RETURN_NOT_OK(out.Write(contents));
    Status closed = out.Close();  // a durable one syncs its directory by name
    if (!closed && closed.error().kind == ErrorKind::kNotFound)
      return Vanished("Cannot sync", path);
    return closed;
  }

  // Creates `name` in the directory `dir` as
  // openat(O_CREAT | O_EXCL | O_NOFOLLOW) does (-1 and errno when it
  // cannot), linking a spare file into place when one is ready
  // (spare_files.h). Not for a durable write: it waits on two syncs, not on
  // the allocation.
  int CreateIn(int dir, const std::string& name, bool durable) {
    SpareFile spare = durable ? SpareFile{} : spares_.Take(dir);
    if (spare.fd >= 0) {
      int err = LinkSpareFile(spare.fd, dir, name.c_str());
      if (err == 0) return spare.fd;
      spares_.GiveBack(spare);  // still unnamed: good for another directory
      if (err == EEXIST) {
        errno = EEXIST;
        return -1;
      }
      // Anything else (EXDEV: another project or mount): the plain create
      // below, which also says what is wrong.
    }
    return ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  }

  void MakeSpareFilesIn(std::string_view directory) override {
    auto path = LocalPath(directory);
    if (path) spares_.SetHome(*path);
  }

  Status CreateConfinedDirectories(std::string_view location,
                                   const std::function<Status(const Location&)>& allowed) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    SKADE_ASSIGN_OR_RAISE(int dir, OpenConfinedDirectory(fs::path(path), "", allowed));
    ::close(dir);
    return OkStatus();
  }

  Result<std::unique_ptr<OutputFile>> NewOutputFile(std::string_view location,
                                                    bool durable) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    SKADE_RETURN_NOT_OK(EnsureDirectory(fs::path(path).parent_path()));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoError("Cannot create", path, errno);
    return std::unique_ptr<OutputFile>(new LocalOutputFile(path, fd, durable, directories_));
  }

  Status DeleteFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    if (::unlink(path.c_str()) != 0) return ErrnoError("Cannot delete", path, errno);
    return OkStatus();
  }

  Status DeleteCheckedFile(std::string_view location, const Location& resolved) override {
    SKADE_RETURN_NOT_OK(CheckLocal(resolved, location));
    SKADE_ASSIGN_OR_RAISE(auto directory, OpenDirectoryWithoutLinks(resolved.path));
    int rc = ::unlinkat(directory.first, directory.second.c_str(), 0);
    int err = errno;
    ::close(directory.first);
    if (rc != 0) return ErrnoError("Cannot delete", resolved.path, err);
    return OkStatus();
  }

  Result<bool> Exists(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoError("Cannot stat", path, errno);
  }

  Result<int64_t> FileSize(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ErrnoError("Cannot stat", path, errno);
    return static_cast<int64_t>(st.st_size);
  }

  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(path, ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) return names;
      return IoError("Cannot list ", path, ": ", ec.message());
    }
    for (const auto& entry : it) names.push_back(entry.path().filename().string());
    return names;
  }

  Status RemoveEmptyDirectory(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    if (::rmdir(path.c_str()) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST) {
      return ErrnoError("Cannot remove directory", path, errno);
    }
    return OkStatus();
  }

  Status CreateDirectories(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    return EnsureDirectory(fs::path(path));
  }

  // fdatasync: the size is part of what it flushes; the timestamps are not
  // needed to read the file back.
  Status SyncFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return ErrnoError("Cannot open", path, errno);
    int rc = ::fdatasync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return ErrnoError("Cannot fsync", path, err);
    return OkStatus();
  }

  Status SyncDirectory(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    return directories_->Sync(fs::path(path));
  }

  // One syncfs(2) per file system the files are on: a single journal commit
  // and cache flush for all of them and their directories (and for whatever
  // else is dirty there), where a sync per file costs one each. Files on a
  // file system that syncfs is not trusted on are synced one by one.
  Status SyncFiles(const std::vector<std::string>& locations) override {
    // A few files cost less one by one than a sync of everything else that
    // is dirty on their file system.
    if (locations.size() < kSyncfsFromFiles) return FileIO::SyncFiles(locations);
    std::map<dev_t, std::string> file_systems;  // a directory on each
    std::vector<std::string> one_by_one;
    std::map<std::string, bool> directories;  // directory -> on a trusted file system
    for (const auto& location : locations) {
      SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
      std::string directory = fs::path(path).parent_path().string();
      auto [it, inserted] = directories.emplace(directory, false);
      if (inserted) {
        int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
          if (errno == ENOENT) continue;  // gone, and the files in it
          return ErrnoError("Cannot open", directory, errno);
        }
        struct stat st;
        bool trusted = ::fstat(fd, &st) == 0 && TrustsSyncfs(fd);
        ::close(fd);
        if (trusted) file_systems.emplace(st.st_dev, directory);
        it->second = trusted;
      }
      if (!it->second) one_by_one.push_back(location);
    }
    for (const auto& [device, directory] : file_systems) {
      int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) {
        if (errno == ENOENT) continue;
        return ErrnoError("Cannot open", directory, errno);
      }
      int rc = ::syncfs(fd);
      int err = errno;
      ::close(fd);
      if (rc != 0) return ErrnoError("Cannot syncfs", directory, err);
    }
    return FileIO::SyncFiles(one_by_one);
  }

  Status CheckLocation(const Location& location) const override {
    return CheckLocal(location, location.ToString());
  }

  // weakly_canonical: the links of the existing prefix are followed, the
  // missing rest is kept as it is (it cannot contain links yet).
  Result<Location> ResolveLocation(const Location& location) const override {
    SKADE_RETURN_NOT_OK(CheckLocation(location));
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(location.path, ec);
    // A path whose directories change while it is resolved (moved, removed
    // or swapped for links by whoever can write there) is a wrong path.
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory ||
        ec == std::errc::too_many_symbolic_link_levels || ec == std::errc::filename_too_long) {
      return InvalidArgument("Cannot resolve ", location.ToString(), ": ", ec.message());
    }
    if (ec) return IoError("Cannot resolve ", location.ToString(), ": ", ec.message());
    return Location::Parse(resolved.string());
  }

 private:
  // Shared with open output files, which may outlive this FileIO.
  std::shared_ptr<SyncedDirectories> directories_ = std::make_shared<SyncedDirectories>();
  SpareFiles spares_;
};

}  // namespace

std::shared_ptr<FileIO> NewLocalFileIO() { return std::make_shared<LocalFileIO>(); }

Result<std::string> LocalPath(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(Location parsed, Location::ParseVerbatim(location));
  SKADE_RETURN_NOT_OK(CheckLocal(parsed, location));
  return std::move(parsed.path);
}

Status FileIO::WriteConfinedFile(std::string_view location, std::string_view contents, bool durable,
                                 const std::function<Status(const Location&)>& allowed) {
  SKADE_ASSIGN_OR_RAISE(Location parsed, Location::Parse(location));
  SKADE_RETURN_NOT_OK(allowed(parsed));
  return WriteFile(location, contents, durable);
}

Status FileIO::CreateConfinedDirectories(std::string_view location,
                                         const std::function<Status(const Location&)>& allowed) {
  SKADE_ASSIGN_OR_RAISE(Location parsed, Location::Parse(location));
  SKADE_RETURN_NOT_OK(allowed(parsed));
  return CreateDirectories(location);
}

Result<std::string> FileIO::ReadConfinedFileUpTo(
    std::string_view location, uint64_t max_bytes,
    const std::function<Status(const Location&)>& allowed) {
  SKADE_ASSIGN_OR_RAISE(Location parsed, Location::Parse(location));
  SKADE_RETURN_NOT_OK(allowed(parsed));
  return ReadFileUpTo(location, max_bytes);
}

Status FileIO::WriteFiles(const std::vector<NewFile>& files) {
  for (const NewFile& file : files) {
    SKADE_RETURN_NOT_OK(WriteFile(file.location, file.contents, file.durable));
  }
  return OkStatus();
}

Status FileIO::SyncFiles(const std::vector<std::string>& locations) {
  std::vector<std::string> directories;
  for (const auto& location : locations) {
    Status synced = SyncFile(location);
    if (!synced && synced.error().kind == ErrorKind::kNotFound) continue;
    SKADE_RETURN_NOT_OK(synced);
    directories.push_back(ParentLocation(location));
  }
  std::sort(directories.begin(), directories.end());
  directories.erase(std::unique(directories.begin(), directories.end()), directories.end());
  for (const auto& directory : directories) {
    Status synced = SyncDirectory(directory);
    if (!synced && synced.error().kind == ErrorKind::kNotFound) continue;
    SKADE_RETURN_NOT_OK(synced);
  }
  return OkStatus();
}

std::string ParentLocation(std::string_view location) {
  while (location.ends_with('/') && location.size() > 1) location.remove_suffix(1);
  size_t slash = location.rfind('/');
  if (slash == std::string_view::npos) return "";
  // The root keeps its slash ("file:///a" -> "file:///", "/a" -> "/").
  size_t end = slash;
  while (end > 0 && location[end - 1] == '/') --end;
  if (end == 0 || location[end - 1] == ':') return std::string(location.substr(0, slash + 1));
  return std::string(location.substr(0, end));
}

}  // namespace skade::io
