#include "skade/io/spare_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace skade::io {

namespace {

std::string ProcPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// The extended attribute `name` of the file open as `fd` (empty when it has
// none); false when it cannot be read.
bool ReadAttribute(int fd, const char* name, std::string* out) {
  char value[4096];
  ssize_t n = ::getxattr(ProcPath(fd).c_str(), name, value, sizeof(value));
  if (n >= 0) {
    out->assign(value, static_cast<size_t>(n));
    return true;
  }
  out->clear();
  return errno == ENODATA || errno == ENOTSUP;
}

}  // namespace

SpareFiles::SpareFiles(size_t count) : count_(count) {}

SpareFiles::~SpareFiles() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wanted_.notify_all();
  if (thread_.joinable()) thread_.join();
  CloseReady();
  if (home_ >= 0) ::close(home_);
}

bool SpareFiles::InheritanceOf(int dir, Inheritance* out) {
  struct stat st;
  if (::fstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  out->device = st.st_dev;
  out->set_group_id = (st.st_mode & S_ISGID) != 0;
  out->group = out->set_group_id ? st.st_gid : 0;
  return ReadAttribute(dir, "system.posix_acl_default", &out->default_acl) &&
         ReadAttribute(dir, "security.selinux", &out->label);
}

bool SpareFiles::SetHome(const std::string& path) {
  if (count_ == 0) return false;
  int home = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (home < 0) return false;
  Inheritance inheritance;
  if (!InheritanceOf(home, &inheritance)) {
    ::close(home);
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  CloseReady();
  if (home_ >= 0) ::close(home_);
  home_ = home;
  inheritance_ = std::move(inheritance);
  ++generation_;
  home_failed_ = false;
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { Refill(); });
    } catch (const std::system_error&) {  // no thread to spare: files are created as before
      ::close(home_);
      home_ = -1;
      return false;
    }
  }
  wanted_.notify_one();
  return true;
}

SpareFile SpareFiles::Take(int dir) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (home_ < 0) return {};
  }
  Inheritance where;
  if (!InheritanceOf(dir, &where)) return {};
  std::lock_guard<std::mutex> lock(mutex_);
  if (home_ < 0 || where != inheritance_) return {};
  SpareFile spare;
  if (!ready_.empty()) {
    spare = {ready_.back(), generation_};
    ready_.pop_back();
  }
  home_failed_ = false;
  wanted_.notify_one();
  return spare;
}

void SpareFiles::GiveBack(SpareFile spare) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare.generation != generation_ || ready_.size() >= count_) {
    ::close(spare.fd);
    return;
  }
  ready_.push_back(spare.fd);
}

size_t SpareFiles::Ready() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ready_.size();
}

void SpareFiles::CloseReady() {
  for (int fd : ready_) ::close(fd);
  ready_.clear();
}

void SpareFiles::Refill() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (home_ < 0 || home_failed_ || ready_.size() >= count_) {
      wanted_.wait(lock);
      continue;
    }
    // Made unlocked (an inode allocation is what this thread takes off the
    // callers' path), from a copy of the home that stays open meanwhile.
    const uint64_t generation = generation_;
    int home = ::fcntl(home_, F_DUPFD_CLOEXEC, 0);
    lock.unlock();
    int fd = home < 0 ? -1 : ::openat(home, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    const int err = errno;
    if (home >= 0) ::close(home);
    lock.lock();
    if (fd >= 0 && !stopping_ && generation == generation_ && ready_.size() < count_) {
      ready_.push_back(fd);
      continue;
    }
    if (fd >= 0) {
      ::close(fd);
    } else if (generation == generation_) {
      // Gone, full or closed to this process: tried again on the next Take.
      // A file system without O_TMPFILE (EISDIR from kernels before it)
      // never has spares.
      home_failed_ = true;
      if (err == EOPNOTSUPP || err == EISDIR) {
        ::close(home_);
        home_ = -1;
      }
    }
  }
}

int LinkSpareFile(int fd, int dir, const char* name) {
  // Through its /proc name: linking an open file by descriptor
  // (AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH, this does not.
  if (::linkat(AT_FDCWD, ProcPath(fd).c_str(), dir, name, AT_SYMLINK_FOLLOW) == 0) return 0;
  return errno;
}

}  // namespace skade::io
