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
// The files are made in one directory the server owns, the home (the
// catalog names its warehouse), never in a client's: a new file takes its
// group, default ACL and security label from the directory it is made in.
// So a spare is linked only into a directory that would give a file made
// there the same ones — on the home's file system, with the same set-group-ID
// bit and group, default ACL and label; elsewhere the file is created as
// before. (A directory of another project, or another mount of the file
// system, refuses the link with EXDEV: created as before too.)
//
// A spare has no name until it is linked and never holds data before. After
// a crash it is gone on a journaling file system; without a journal (ext4 in
// that mode keeps no orphan list) up to kSpareFiles, and one per write in
// flight, unreferenced inodes stay
// allocated until e2fsck reclaims them. Thread-safe.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skade::io {

/// How many spares are kept ready; with the home's descriptor, what they
/// take of the process's file descriptors.
inline constexpr size_t kSpareFiles = 8;

/// A spare file taken from SpareFiles: `fd` is -1 when there was none.
struct SpareFile {
  int fd = -1;
  uint64_t generation = 0;  // of the home it was made in
};

class SpareFiles {
 public:
  explicit SpareFiles(size_t count = kSpareFiles);
  ~SpareFiles();
  SpareFiles(const SpareFiles&) = delete;
  SpareFiles& operator=(const SpareFiles&) = delete;

  /// Makes spares in the directory `path` from now on (those made in an
  /// earlier home are dropped). False, and none are made, when it cannot be
  /// opened (a file system that cannot make unnamed files makes none too).
  bool SetHome(const std::string& path);

  /// An unnamed empty file open for writing (mode 0644 less the umask) like
  /// one created in the open directory `dir` would be, or none: none is
  /// ready (more are made meanwhile), or `dir` would make another kind (see
  /// above). The caller owns the descriptor: it links it (LinkSpareFile),
  /// gives it back unused, or closes it.
  SpareFile Take(int dir);

  /// Returns a spare taken and not linked, for a later Take.
  void GiveBack(SpareFile spare);

  /// Spares ready now (for tests).
  size_t Ready();

 private:
  // What a directory gives the files made in it, besides their name.
  struct Inheritance {
    dev_t device = 0;
    gid_t group = 0;  // when set-group-ID; otherwise 0
    bool set_group_id = false;
    std::string default_acl;
    std::string label;
    bool operator==(const Inheritance&) const = default;
  };
  static bool InheritanceOf(int dir, Inheritance* out);

  void Refill();
  void CloseReady();  // with mutex_ held

  const size_t count_;
  std::mutex mutex_;
  std::condition_variable wanted_;
  int home_ = -1;             // O_PATH; -1 without one
  Inheritance inheritance_;   // the home's
  uint64_t generation_ = 0;   // counts homes: a spare made in an earlier one is dropped
  bool home_failed_ = false;  // the last spare could not be made; the next Take retries
  std::vector<int> ready_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first SetHome
};

/// Gives the spare file `fd` the name `name` in the directory `dir`, as
/// openat(dir, name, O_CREAT | O_EXCL | O_NOFOLLOW) would create it: 0, or
/// the errno (EEXIST when `name` exists, even as a symbolic link).
int LinkSpareFile(int fd, int dir, const char* name);

}  // namespace skade::io
