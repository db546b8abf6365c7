// Unnamed files made ahead of need, so that creating a file on the commit
// path allocates no inode: LocalFileIO's confined writes link one into place.
//
// Why: allocating the inode is the part of creating a file whose cost
// varies. ext4 without a journal will not reuse an inode freed in the last
// one to five minutes and steps over each one it finds, so while files are
// being deleted (delete-after-commit, expired snapshots, dropped tables) a
// create costs hundreds of µs instead of twenty — on the commit path, where
// a commit waits on it. A thread makes O_TMPFILE files ahead instead; linking
// one into a directory (linkat) allocates nothing.
//
// A spare has no name until it is linked and never holds data before: a
// crash leaves nothing behind. Spares are kept per file system, made in a
// directory a Take named there — the first, until it can make no more (the
// file gets its name where it is linked; its group is that directory's,
// which differs only under a set-group-ID directory). linkat links only within one mount: one
// file system mounted twice (a bind mount) and written through both falls
// back to plain creates. Thread-safe.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace skade::io {

/// A spare file taken from SpareFiles: `fd` is -1 when none was ready.
struct SpareFile {
  int fd = -1;
  dev_t device = 0;
  uint64_t generation = 0;  // of its file system's home when taken
};

class SpareFiles {
 public:
  /// Keeps up to `per_device` spares ready on each of at most `max_devices`
  /// file systems.
  explicit SpareFiles(size_t per_device = 16, size_t max_devices = 8);
  ~SpareFiles();
  SpareFiles(const SpareFiles&) = delete;
  SpareFiles& operator=(const SpareFiles&) = delete;

  /// An unnamed empty file open for writing (mode 0644 less the umask) on
  /// the file system of the open directory `dir`, or none when none is
  /// ready: the caller then creates its file as before, and more are made
  /// meanwhile. The caller owns the descriptor: it links it (LinkSpareFile),
  /// gives it back unused, or closes it.
  SpareFile Take(int dir);

  /// Returns a spare taken and not linked, for a later Take.
  void GiveBack(SpareFile spare);

  /// `spare` could not be linked into `dir` (EXDEV: another mount of its
  /// file system): closes it and makes the spares of that file system in
  /// `dir` from now on.
  void MoveHome(SpareFile spare, int dir);

  /// Spares ready now on the file system of `dir` (for tests).
  size_t ReadyFor(int dir);

 private:
  struct Device {
    int home = -1;  // a directory there (O_PATH); -1 until a Take names one
    std::vector<int> ready;
    uint64_t generation = 0;   // counts homes: a spare made by an earlier one may be elsewhere
    bool unsupported = false;  // the file system cannot make unnamed files
  };

  void Refill();
  void SetHome(Device& device, int dir);

  const size_t per_device_;
  const size_t max_devices_;
  std::mutex mutex_;
  std::condition_variable wanted_;
  std::map<dev_t, Device> devices_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first Take
};

/// Gives the spare file `fd` the name `name` in the directory `dir`, as
/// openat(dir, name, O_CREAT | O_EXCL | O_NOFOLLOW) would create it: 0, or
/// the errno (EEXIST when `name` exists, even as a symbolic link).
int LinkSpareFile(int fd, int dir, const char* name);

}  // namespace skade::io
