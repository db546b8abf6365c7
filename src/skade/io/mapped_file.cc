#include "skade/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "skade/io/file_io.h"

namespace skade::io {

Result<std::unique_ptr<MappedFile>> MappedFile::Open(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(std::string path, LocalPath(location));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return MakeError(ErrorKind::kNotFound, "File ", path, " does not exist");
    return MakeError(ErrorKind::kIo, "Cannot open ", path, ": ", std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return MakeError(ErrorKind::kIo, "Cannot stat ", path, ": ", std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return InvalidArgument(path, " is not a regular file");
  }
  size_t size = static_cast<size_t>(info.st_size);
  void* data = nullptr;
  if (size > 0) {
    data = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (data == MAP_FAILED) {
      int error = errno;
      ::close(fd);
      return MakeError(ErrorKind::kIo, "Cannot map ", path, ": ", std::strerror(error));
    }
  }
  // The mapping holds the file; the descriptor is not needed.
  ::close(fd);
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const std::byte*>(data), size));
}

MappedFile::~MappedFile() {
  if (size_ > 0) ::munmap(const_cast<std::byte*>(data_), size_);
}

void MappedFile::WillNeed(std::span<const std::byte> range) const {
  if (range.empty()) return;
  auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  auto begin = reinterpret_cast<uintptr_t>(range.data()) & ~(page - 1);
  auto end = reinterpret_cast<uintptr_t>(range.data() + range.size());
  (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_WILLNEED);
}

}  // namespace skade::io
