#include "skade/io/spare_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace skade::io {

SpareFiles::SpareFiles(size_t per_device, size_t max_devices)
    : per_device_(per_device), max_devices_(max_devices) {}

SpareFiles::~SpareFiles() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wanted_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& [id, device] : devices_) {
    for (int fd : device.ready) ::close(fd);
    if (device.home >= 0) ::close(device.home);
  }
}

SpareFile SpareFiles::Take(int dir) {
  struct stat st;
  if (per_device_ == 0 || ::fstat(dir, &st) != 0) return {};
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = devices_.find(st.st_dev);
  if (it == devices_.end()) {
    if (devices_.size() >= max_devices_) return {};
    it = devices_.emplace(st.st_dev, Device{}).first;
  }
  Device& device = it->second;
  if (device.unsupported) return {};
  if (device.home < 0) SetHome(device, dir);
  SpareFile spare;
  if (!device.ready.empty()) {
    spare = {device.ready.back(), st.st_dev, device.generation};
    device.ready.pop_back();
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { Refill(); });
  wanted_.notify_one();
  return spare;
}

void SpareFiles::GiveBack(SpareFile spare) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = devices_.find(spare.device);
  if (it == devices_.end() || it->second.generation != spare.generation ||
      it->second.ready.size() >= per_device_) {
    ::close(spare.fd);
    return;
  }
  it->second.ready.push_back(spare.fd);
}

void SpareFiles::MoveHome(SpareFile spare, int dir) {
  ::close(spare.fd);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = devices_.find(spare.device);
  if (it == devices_.end()) return;
  for (int fd : it->second.ready) ::close(fd);
  it->second.ready.clear();
  SetHome(it->second, dir);
  wanted_.notify_one();
}

size_t SpareFiles::ReadyFor(int dir) {
  struct stat st;
  if (::fstat(dir, &st) != 0) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = devices_.find(st.st_dev);
  return it == devices_.end() ? 0 : it->second.ready.size();
}

void SpareFiles::SetHome(Device& device, int dir) {
  int home = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
  if (home < 0) return;
  if (device.home >= 0) ::close(device.home);
  device.home = home;
  ++device.generation;
}

void SpareFiles::Refill() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    auto it = devices_.begin();
    while (it != devices_.end() &&
           (it->second.home < 0 || it->second.ready.size() >= per_device_)) {
      ++it;
    }
    if (it == devices_.end()) {
      wanted_.wait(lock);
      continue;
    }
    // Made unlocked (an inode allocation is what this thread takes off the
    // callers' path), from a copy of the home that stays open meanwhile.
    const dev_t id = it->first;
    const uint64_t generation = it->second.generation;
    int home = ::fcntl(it->second.home, F_DUPFD_CLOEXEC, 0);
    lock.unlock();
    int fd = home < 0 ? -1 : ::openat(home, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    const int err = home < 0 ? EMFILE : errno;
    if (home >= 0) ::close(home);
    lock.lock();
    Device& device = devices_.at(id);
    if (device.generation != generation) {  // another home meanwhile: made by the old one
      if (fd >= 0) ::close(fd);
      continue;
    }
    if (fd < 0) {
      // The home is gone, full or closed to this process: the next Take
      // names another. A file system without O_TMPFILE (EISDIR from kernels
      // that predate it) never gets spares.
      if (device.home >= 0) ::close(device.home);
      device.home = -1;
      device.unsupported = err == EOPNOTSUPP || err == EISDIR;
      continue;
    }
    if (stopping_ || device.ready.size() >= per_device_) {
      ::close(fd);
      continue;
    }
    device.ready.push_back(fd);
  }
}

int LinkSpareFile(int fd, int dir, const char* name) {
  // Through its /proc name: linking an open file by descriptor
  // (AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH, this does not.
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  if (::linkat(AT_FDCWD, proc.c_str(), dir, name, AT_SYMLINK_FOLLOW) == 0) return 0;
  return errno;
}

}  // namespace skade::io
