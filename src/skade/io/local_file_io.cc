// FileIO on the local POSIX file system.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "skade/io/file_io.h"
#include "skade/util/strings.h"

namespace skade::io {

namespace {

namespace fs = std::filesystem;

tl::unexpected<Error> ErrnoError(std::string_view what, const std::string& path, int err) {
  if (err == ENOENT) return MakeError(ErrorKind::kNotFound, "File does not exist: ", path);
  if (err == EEXIST) return MakeError(ErrorKind::kAlreadyExists, "File already exists: ", path);
  return IoError(what, " ", path, ": ", std::strerror(err));
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

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("Cannot write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

Status EnsureParent(const std::string& path, bool durable) {
  fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (fs::is_directory(parent, ec)) return OkStatus();
  // Create missing ancestors; when durable, fsync each new entry's parent so
  // the directory chain survives a power loss.
  std::vector<fs::path> created;
  for (fs::path p = parent; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(parent, ec);
  std::error_code exists_ec;  // (the throwing overloads would escape as exceptions)
  if (ec && !fs::is_directory(parent, exists_ec)) {
    if (ec == std::errc::filename_too_long) {
      return InvalidArgument("Cannot create directory ", parent.string(), ": ", ec.message());
    }
    return IoError("Cannot create directory ", parent.string(), ": ", ec.message());
  }
  if (durable) {
    for (auto it = created.rbegin(); it != created.rend(); ++it) {
      SKADE_RETURN_NOT_OK(FsyncPath(it->parent_path().string(), O_RDONLY | O_DIRECTORY));
    }
  }
  return OkStatus();
}

class LocalOutputFile : public OutputFile {
 public:
  LocalOutputFile(std::string path, int fd, bool durable)
      : path_(std::move(path)), fd_(fd), durable_(durable) {}
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
    if (durable_) {
      SKADE_RETURN_NOT_OK(
          FsyncPath(fs::path(path_).parent_path().string(), O_RDONLY | O_DIRECTORY));
    }
    return OkStatus();
  }

 private:
  std::string path_;
  int fd_;
  bool durable_;
  int64_t written_ = 0;
};

class LocalFileIO : public FileIO {
 public:
  Result<std::string> ReadFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoError("Cannot open", path, errno);
    std::string out;
    struct stat st;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
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
    }
    ::close(fd);
    return out;
  }

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    SKADE_ASSIGN_OR_RAISE(auto file, NewOutputFile(location, durable));
    SKADE_RETURN_NOT_OK(file->Write(contents));
    return file->Close();
  }

  Result<std::unique_ptr<OutputFile>> NewOutputFile(std::string_view location,
                                                    bool durable) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    SKADE_RETURN_NOT_OK(EnsureParent(path, durable));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoError("Cannot create", path, errno);
    return std::unique_ptr<OutputFile>(new LocalOutputFile(path, fd, durable));
  }

  Status DeleteFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
    if (::unlink(path.c_str()) != 0) return ErrnoError("Cannot delete", path, errno);
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
};

}  // namespace

std::shared_ptr<FileIO> NewLocalFileIO() { return std::make_shared<LocalFileIO>(); }

Result<std::string> LocalPath(std::string_view location) {
  std::string_view rest = location;
  if (ConsumePrefix(&rest, "file:")) {
    // file:///p and file:/p both name /p; file://host/p is not local.
    if (rest.starts_with("//")) {
      rest.remove_prefix(2);
      if (!rest.starts_with("/")) {
        return InvalidArgument("Not a local file location: ", location);
      }
    }
  } else if (location.find("://") != std::string_view::npos) {
    return InvalidArgument("Unsupported location scheme (only local files): ", location);
  }
  if (!rest.starts_with("/")) return InvalidArgument("Location is not absolute: ", location);
  return std::string(rest);
}

std::string JoinLocation(std::string_view location, std::string_view name) {
  while (location.ends_with('/') && location.size() > 1) location.remove_suffix(1);
  while (name.starts_with('/')) name.remove_prefix(1);
  return StrCat(location, "/", name);
}

}  // namespace skade::io
