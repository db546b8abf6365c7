#include "skade/store/lmdb/lmdb_env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "skade/util/strings.h"

namespace skade::store::lmdb {

namespace {

MDB_val ToVal(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }

std::string_view FromVal(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

// One environment per directory per process (an LMDB rule); weak so the
// environment closes when the last catalog using it is gone.
std::mutex g_envs_mutex;
std::map<std::string, std::weak_ptr<LmdbEnv>>& OpenEnvs() {
  static auto* envs = new std::map<std::string, std::weak_ptr<LmdbEnv>>();
  return *envs;
}

}  // namespace

tl::unexpected<Error> LmdbError(std::string_view what, int rc) {
  if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID) {
    return Corruption(what, ": ", mdb_strerror(rc));
  }
  if (rc == MDB_MAP_FULL) {
    return IoError(what, ": the catalog store is full (raise the store map size)");
  }
  return IoError(what, ": ", mdb_strerror(rc));
}

// --- ReadTxn ---------------------------------------------------------------

ReadTxn& ReadTxn::operator=(ReadTxn&& other) noexcept {
  if (this != &other) {
    End();
    txn_ = std::exchange(other.txn_, nullptr);
    env_ = other.env_;
    gate_shard_ = other.gate_shard_;
  }
  return *this;
}

ReadTxn::~ReadTxn() { End(); }

void ReadTxn::End() {
  if (txn_ == nullptr) return;
  mdb_txn_abort(std::exchange(txn_, nullptr));
  env_->LeaveTxn(gate_shard_);
}

namespace {

Result<std::optional<std::string_view>> GetIn(MDB_txn* txn, MDB_dbi dbi, std::string_view key) {
  MDB_val k = ToVal(key);
  MDB_val v;
  int rc = mdb_get(txn, dbi, &k, &v);
  if (rc == MDB_NOTFOUND) return std::optional<std::string_view>();
  if (rc != 0) return LmdbError("store read failed", rc);
  return std::optional<std::string_view>(FromVal(v));
}

// A copy's data file shorter than its meta page says (a truncated backup)
// would fault (SIGBUS) on the first read of a page past its end: refuse it
// first. (Only a compacted copy holds every page up to its last.)
Status CheckDataFileLength(MDB_env* env, const std::string& path) {
  MDB_envinfo info;
  mdb_env_info(env, &info);
  MDB_stat stat;
  mdb_env_stat(env, &stat);
  mdb_filehandle_t fd = -1;
  struct stat file {};
  if (mdb_env_get_fd(env, &fd) != 0 || ::fstat(fd, &file) != 0) {
    return IoError("Cannot read the size of ", path, "/data.mdb: ", std::strerror(errno));
  }
  const uint64_t needed = (static_cast<uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize;
  if (static_cast<uint64_t>(file.st_size) < needed) {
    return Corruption("The catalog store ", path, " is truncated: data.mdb has ", file.st_size,
                      " bytes, its last page ends at byte ", needed);
  }
  return OkStatus();
}

}  // namespace

Result<std::optional<std::string_view>> ReadTxn::Get(MDB_dbi dbi, std::string_view key) const {
  return GetIn(txn_, dbi, key);
}

// --- WriteTxn --------------------------------------------------------------

WriteTxn::~WriteTxn() {
  Abort();
  if (writer_ != nullptr) writer_->UnlockWriter();
}

void WriteTxn::Abort() {
  if (txn_ == nullptr) return;
  mdb_txn_abort(std::exchange(txn_, nullptr));
  if (writer_ != nullptr) writer_->LeaveTxn(gate_shard_);
}

// On the environment rather than the transaction, so that the top-level
// transaction also sees what its nested ones hit.
void WriteTxn::NoteMapFull(MDB_env* env, int rc) {
  if (rc != MDB_MAP_FULL) return;
  auto* owner = static_cast<LmdbEnv*>(mdb_env_get_userctx(env));
  if (owner != nullptr) owner->write_map_full_ = true;
}

bool WriteTxn::map_full() const {
  if (writer_ != nullptr) return writer_->write_map_full_;
  if (txn_ == nullptr) return false;
  auto* env = static_cast<LmdbEnv*>(mdb_env_get_userctx(mdb_txn_env(txn_)));
  return env != nullptr && env->write_map_full_;
}

Result<WriteTxn> WriteTxn::BeginNested() {
  MDB_txn* child = nullptr;
  int rc = mdb_txn_begin(mdb_txn_env(txn_), txn_, 0, &child);
  NoteMapFull(mdb_txn_env(txn_), rc);
  if (rc != 0) return LmdbError("Cannot begin nested store transaction", rc);
  return WriteTxn(child, nullptr, 0);
}

Result<std::optional<std::string_view>> WriteTxn::Get(MDB_dbi dbi, std::string_view key) const {
  return GetIn(txn_, dbi, key);
}

Status WriteTxn::Put(MDB_dbi dbi, std::string_view key, std::string_view value) {
  MDB_val k = ToVal(key);
  MDB_val v = ToVal(value);
  int rc = mdb_put(txn_, dbi, &k, &v, 0);
  NoteMapFull(mdb_txn_env(txn_), rc);
  if (rc != 0) return LmdbError("store write failed", rc);
  return OkStatus();
}

Result<bool> WriteTxn::Delete(MDB_dbi dbi, std::string_view key) {
  MDB_val k = ToVal(key);
  int rc = mdb_del(txn_, dbi, &k, nullptr);
  NoteMapFull(mdb_txn_env(txn_), rc);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != 0) return LmdbError("store delete failed", rc);
  return true;
}

Status WriteTxn::Commit() {
  MDB_env* env = mdb_txn_env(txn_);
  int rc = mdb_txn_commit(std::exchange(txn_, nullptr));
  if (writer_ != nullptr) writer_->LeaveTxn(gate_shard_);
  NoteMapFull(env, rc);
  if (rc == 0) return OkStatus();
  // A full map is rejected before anything is written; any other failure
  // (an I/O error while writing or syncing) may or may not have reached disk.
  if (rc == MDB_MAP_FULL) return LmdbError("store commit failed", rc);
  return MakeError(ErrorKind::kCommitStateUnknown, "store commit failed: ", mdb_strerror(rc));
}

// --- Cursor ----------------------------------------------------------------

Result<Cursor> Cursor::Open(MDB_txn* txn, MDB_dbi dbi) {
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn, dbi, &cursor);
  if (rc != 0) return LmdbError("store cursor failed", rc);
  return Cursor(cursor);
}

Cursor::~Cursor() {
  if (cursor_ != nullptr) mdb_cursor_close(cursor_);
}

Result<bool> Cursor::Position(MDB_cursor_op op, std::string_view seek) {
  MDB_val k = ToVal(seek);
  MDB_val v;
  int rc = mdb_cursor_get(cursor_, &k, &v, op);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != 0) return LmdbError("store scan failed", rc);
  key_ = FromVal(k);
  value_ = FromVal(v);
  return true;
}

Result<bool> Cursor::Seek(std::string_view key) {
  if (key.empty()) return Position(MDB_FIRST);
  return Position(MDB_SET_RANGE, key);
}

Result<bool> Cursor::Last() { return Position(MDB_LAST); }

Result<bool> Cursor::Next() { return Position(MDB_NEXT); }

Result<bool> Cursor::Prev() { return Position(MDB_PREV); }

// --- LmdbEnv ---------------------------------------------------------------

Result<std::shared_ptr<LmdbEnv>> LmdbEnv::Open(const std::string& path,
                                               const LmdbOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return IoError("Cannot create store directory ", path, ": ", ec.message());
  std::string canonical = std::filesystem::canonical(path, ec).string();
  if (ec) return IoError("Cannot resolve store directory ", path, ": ", ec.message());

  std::lock_guard<std::mutex> lock(g_envs_mutex);
  auto& envs = OpenEnvs();
  if (auto it = envs.find(canonical); it != envs.end()) {
    if (auto existing = it->second.lock()) {
      SKADE_RETURN_NOT_OK(existing->Reopen(options));
      return existing;
    }
  }

  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return LmdbError("Cannot create store environment", rc);
  mdb_env_set_mapsize(env, options.map_size);
  mdb_env_set_maxreaders(env, options.max_readers);
  mdb_env_set_maxdbs(env, options.max_dbs);
  unsigned flags = MDB_NOTLS;
  if (options.durability != Durability::kImmediate) flags |= MDB_NOSYNC;
  rc = mdb_env_open(env, canonical.c_str(), flags, 0644);
  if (rc != 0) {
    mdb_env_close(env);
    return LmdbError(StrCat("Cannot open catalog store ", canonical), rc);
  }
  if (Status whole = options.whole_copy ? CheckDataFileLength(env, canonical) : OkStatus();
      !whole) {
    mdb_env_close(env);
    return tl::unexpected(whole.error());
  }
  int dead = 0;
  mdb_reader_check(env, &dead);
  std::string lock_path = canonical + "/skade-writer.lock";
  int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) {
    int error = errno;
    mdb_env_close(env);
    return IoError("Cannot open ", lock_path, ": ", std::strerror(error));
  }
  std::shared_ptr<LmdbEnv> result(new LmdbEnv(env, canonical, options, lock_fd));
  mdb_filehandle_t data_fd = -1;
  struct stat data {};
  if (mdb_env_get_fd(env, &data_fd) == 0 && ::fstat(data_fd, &data) == 0) {
    result->data_device_ = data.st_dev;
    result->data_inode_ = data.st_ino;
  }
  mdb_env_set_userctx(env, result.get());
  envs[canonical] = result;
  return result;
}

LmdbEnv::~LmdbEnv() {
  if (durability_ != Durability::kImmediate) mdb_env_sync(env_, 1);
  mdb_env_close(env_);
  ::close(writer_lock_fd_);
  std::lock_guard<std::mutex> lock(g_envs_mutex);
  auto& envs = OpenEnvs();
  if (auto it = envs.find(path_); it != envs.end() && it->second.expired()) envs.erase(it);
}

Status LmdbEnv::Reopen(const LmdbOptions& options) {
  if (options.durability != durability_) {
    return InvalidArgument(
        "Catalog store ", path_, " is already open in this process with durability ",
        DurabilityName(durability_), "; it cannot also be opened with durability ",
        DurabilityName(options.durability));
  }
  if (options.max_readers > max_readers_ || options.max_dbs > max_dbs_) {
    return InvalidArgument("Catalog store ", path_, " is already open in this process with ",
                           max_readers_, " readers and ", max_dbs_,
                           " databases; it cannot be reopened with more");
  }
  uint64_t max_map_size = max_map_size_.load();
  while (options.max_map_size > max_map_size &&
         !max_map_size_.compare_exchange_weak(max_map_size, options.max_map_size)) {
  }
  if (options.map_size > MapSize()) return Resize(options.map_size);
  return OkStatus();
}

Result<MDB_dbi> LmdbEnv::OpenDatabase(const std::string& name) {
  SKADE_ASSIGN_OR_RAISE(auto txn, BeginWrite());
  MDB_dbi dbi;
  int rc = mdb_dbi_open(txn.raw(), name.c_str(), MDB_CREATE, &dbi);
  if (rc != 0) return LmdbError(StrCat("Cannot open store database ", name), rc);
  SKADE_RETURN_NOT_OK(txn.Commit());
  return dbi;
}

Result<MDB_txn*> LmdbEnv::Begin(unsigned flags, uint32_t* gate_shard) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    MDB_txn* txn = nullptr;
    *gate_shard = EnterTxn();
    int rc = mdb_txn_begin(env_, nullptr, flags, &txn);
    if (rc == 0 && (flags & MDB_RDONLY) != 0 && MayHoldAnUnpublishedCommit(txn)) {
      mdb_txn_abort(txn);
      LeaveTxn(*gate_shard);
      --attempt;  // not a failure: begun again at the newer commit
      std::this_thread::yield();
      continue;
    }
    if (rc == 0) return txn;
    LeaveTxn(*gate_shard);
    if (rc == MDB_MAP_RESIZED) {
      // Another process grew the map: adopt its size.
      SKADE_RETURN_NOT_OK(Resize(0));
      continue;
    }
    if (rc == MDB_READERS_FULL) {
      int dead = 0;
      mdb_reader_check(env_, &dead);
      if (dead > 0) continue;
    }
    return LmdbError("Cannot begin store transaction", rc);
  }
  return IoError("Cannot begin store transaction: retries exhausted");
}

// LMDB 0.9 begins a read at the last published transaction T and copies its
// root from meta page T&1 without checking that the page is still T's (the
// race libmdbx closes, ITS#7970): a reader delayed there while two commits
// land copies T+2's root before T+2 is published, even before it is durable,
// and the next read goes back to T+1. Once the newest meta page is T+2's or
// later, the copy may be T+2's, so the read begins again. (Two commits
// landing between begin and this check make it begin again needlessly:
// rare. Not caught: a copy taken while T+2's meta page is being written,
// before its id, which LMDB writes last — a window of one small pwrite.)
bool LmdbEnv::MayHoldAnUnpublishedCommit(MDB_txn* txn) {
  return NewestMetaTxnId() >= mdb_txn_id(txn) + 2;
}

uint64_t LmdbEnv::NewestMetaTxnId() {
  MDB_envinfo info;
  mdb_env_info(env_, &info);
  return info.me_last_txnid;
}

Result<ReadTxn> LmdbEnv::BeginRead() {
  uint32_t shard = 0;
  SKADE_ASSIGN_OR_RAISE(MDB_txn * txn, Begin(MDB_RDONLY, &shard));
  return ReadTxn(txn, this, shard);
}

Result<WriteTxn> LmdbEnv::BeginWrite() {
  SKADE_RETURN_NOT_OK(LockWriter());
  write_map_full_ = false;
  uint32_t shard = 0;
  auto txn = Begin(0, &shard);
  if (!txn) {
    UnlockWriter();
    return tl::unexpected(txn.error());
  }
  return WriteTxn(*txn, this, shard);
}

Status LmdbEnv::GrowMap(WriteTxn& txn) {
  txn.Abort();
  write_map_full_ = false;
  uint64_t limit = max_map_size_.load();
  if (limit == 0) return LmdbError("store write failed", MDB_MAP_FULL);
  SKADE_RETURN_NOT_OK(Resize(0, limit));
  SKADE_ASSIGN_OR_RAISE(txn.txn_, Begin(0, &txn.gate_shard_));
  return OkStatus();
}

uint32_t LmdbEnv::EnterTxn() {
  const auto shard = static_cast<uint32_t>(ThreadShard());
  std::atomic<int64_t>& open = gate_shards_[shard].open;
  while (true) {
    // The common case is an add to this thread's own line and a load: no
    // lock that a preempted thread (a commit at nice 10, say) could hold
    // while readers wait.
    open.fetch_add(1);
    if (!resizing_.load()) return shard;
    // A resize is waiting for open transactions to end, or running: step
    // back out (which may be what it waits for) and wait for it.
    LeaveTxn(shard);
    std::unique_lock<std::mutex> lock(gate_mutex_);
    gate_cv_.wait(lock, [&] { return !resizing_.load(); });
  }
}

void LmdbEnv::LeaveTxn(uint32_t shard) {
  gate_shards_[shard].open.fetch_sub(1);
  // While a resize waits, every leaver wakes it to sum the shards again;
  // the mutex orders the notification after the resizer's check.
  if (resizing_.load()) {
    std::lock_guard<std::mutex> lock(gate_mutex_);
    gate_cv_.notify_all();
  }
}

int64_t LmdbEnv::OpenTxnsLocked() const {
  int64_t open = 0;
  for (const GateShard& shard : gate_shards_) open += shard.open.load();
  return open;
}

Status LmdbEnv::Resize(uint64_t map_size, uint64_t grow_up_to) {
  std::unique_lock<std::mutex> lock(gate_mutex_);
  // One resize at a time; whoever comes second resizes again, which is cheap
  // and leaves the larger size.
  gate_cv_.wait(lock, [&] { return !resizing_.load(); });
  resizing_.store(true);
  bool idle = gate_cv_.wait_for(lock, std::chrono::milliseconds(resize_wait_ms_),
                                [&] { return OpenTxnsLocked() == 0; });
  int rc = 0;
  bool full = false;
  if (idle) {
    uint64_t current = MapSizeLocked();
    if (grow_up_to != 0) {
      // Whole pages: LMDB maps the file in page units.
      uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
      map_size = std::min(grow_up_to, current * 2) / page * page;
      full = map_size <= current;
    } else if (map_size != 0) {
      map_size = std::max(map_size, current);
    }
    if (!full) rc = mdb_env_set_mapsize(env_, map_size);
  }
  resizing_.store(false);
  gate_cv_.notify_all();
  if (!idle) {
    return MakeRetryableError(ErrorKind::kIo, "Cannot resize the catalog store ", path_,
                              ": transactions of this process stayed open for ", resize_wait_ms_,
                              " ms");
  }
  if (full) return LmdbError("store write failed", MDB_MAP_FULL);
  if (rc != 0) return LmdbError("Cannot resize the catalog store", rc);
  return OkStatus();
}

uint64_t LmdbEnv::MapSize() {
  uint32_t shard = EnterTxn();
  uint64_t size = MapSizeLocked();
  LeaveTxn(shard);
  return size;
}

uint64_t LmdbEnv::MapSizeLocked() {
  MDB_envinfo info;
  mdb_env_info(env_, &info);
  return info.me_mapsize;
}

LmdbEnvInfo LmdbEnv::Info() {
  LmdbEnvInfo out;
  // The meta pages are in the map, which a resize replaces.
  uint32_t shard = EnterTxn();
  MDB_envinfo info;
  mdb_env_info(env_, &info);
  MDB_stat stat;
  mdb_env_stat(env_, &stat);
  LeaveTxn(shard);
  out.map_size = info.me_mapsize;
  out.used_bytes = (static_cast<uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize;
  mdb_filehandle_t fd = -1;
  struct stat file {};
  if (mdb_env_get_fd(env_, &fd) == 0 && ::fstat(fd, &file) == 0) {
    out.file_bytes = static_cast<uint64_t>(file.st_size);
  }
  return out;
}

Status LmdbEnv::CheckWritable() {
  const std::string data_path = path_ + "/data.mdb";
  struct stat file {};
  if (::stat(data_path.c_str(), &file) != 0) {
    int error = errno;
    return IoError("Catalog store file ", data_path, " is gone: ", std::strerror(error));
  }
  if (file.st_dev != data_device_ || file.st_ino != data_inode_) {
    return IoError("Catalog store file ", data_path, " was replaced since it was opened");
  }
  struct statvfs fs {};
  if (::statvfs(path_.c_str(), &fs) != 0) {
    int error = errno;
    return IoError("Cannot stat the file system of ", path_, ": ", std::strerror(error));
  }
  if (fs.f_flag & ST_RDONLY)
    return IoError("Catalog store ", path_, " is on a read-only file system");
  if (fs.f_bavail == 0) return IoError("No space left on the file system of catalog store ", path_);
  LmdbEnvInfo info = Info();
  // LMDB needs a few free pages for a commit's copy-on-write path; a map
  // within 1% of full that may not grow fails the next large commit.
  if (info.used_bytes + info.map_size / 100 >= info.map_size &&
      max_map_size_.load(std::memory_order_relaxed) <= info.map_size) {
    return IoError("Catalog store ", path_, " map is full (", info.used_bytes, " of ",
                   info.map_size, " bytes used); raise the store's map size");
  }
  return OkStatus();
}

Status LmdbEnv::LockWriter() {
  writer_mutex_.lock();
  while (::flock(writer_lock_fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int error = errno;
    writer_mutex_.unlock();
    return IoError("Cannot lock the catalog store for writing: ", std::strerror(error));
  }
  return OkStatus();
}

void LmdbEnv::UnlockWriter() {
  ::flock(writer_lock_fd_, LOCK_UN);
  writer_mutex_.unlock();
}

Status LmdbEnv::Sync() {
  int rc = mdb_env_sync(env_, 1);
  if (rc != 0) return LmdbError("store sync failed", rc);
  return OkStatus();
}

namespace {

// Makes `path` (a file or a directory) durable.
Status FsyncPath(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return IoError("Cannot open ", path, ": ", std::strerror(errno));
  int rc = ::fsync(fd);
  int error = errno;
  ::close(fd);
  if (rc != 0) return IoError("Cannot sync ", path, ": ", std::strerror(error));
  return OkStatus();
}

// Empties the databases `names` of the environment in `directory`, which
// nothing else uses (a copy just written): opened without a lock file, so
// none is left behind.
Status EmptyDatabases(const std::string& directory, uint64_t map_size, unsigned max_dbs,
                      const std::vector<std::string>& names) {
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return LmdbError("Cannot create store environment", rc);
  mdb_env_set_mapsize(env, map_size);
  mdb_env_set_maxdbs(env, max_dbs);
  rc = mdb_env_open(env, directory.c_str(), MDB_NOLOCK, 0644);
  MDB_txn* txn = nullptr;
  if (rc == 0) rc = mdb_txn_begin(env, nullptr, 0, &txn);
  for (size_t i = 0; rc == 0 && i < names.size(); ++i) {
    MDB_dbi dbi;
    rc = mdb_dbi_open(txn, names[i].c_str(), 0, &dbi);
    if (rc == MDB_NOTFOUND) {
      rc = 0;
      continue;
    }
    if (rc == 0) rc = mdb_drop(txn, dbi, 0);
  }
  if (txn != nullptr) {
    if (rc == 0) {
      rc = mdb_txn_commit(txn);  // synced: the environment has no MDB_NOSYNC
    } else {
      mdb_txn_abort(txn);
    }
  }
  mdb_env_close(env);
  if (rc != 0) return LmdbError(StrCat("Cannot prepare the store copy in ", directory), rc);
  return OkStatus();
}

}  // namespace

Status LmdbEnv::CopyTo(const std::string& directory, const std::vector<std::string>& emptied) {
  std::string data_path = directory + "/data.mdb";
  int fd = ::open(data_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("Cannot create ", data_path, ": ", std::strerror(errno));
  int rc = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    // The copy's read transaction maps pages: no resize may run under it.
    uint32_t shard = EnterTxn();
    rc = mdb_env_copyfd2(env_, fd, MDB_CP_COMPACT);
    LeaveTxn(shard);
    if (rc != MDB_MAP_RESIZED) break;
    // Another process grew the map: adopt its size and copy again.
    Status resized = Resize(0);
    if (!resized || ::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) break;
  }
  int synced = rc == 0 ? ::fsync(fd) : 0;
  int error = errno;
  ::close(fd);
  if (rc != 0) return LmdbError(StrCat("Cannot copy the catalog store ", path_), rc);
  if (synced != 0) return IoError("Cannot sync ", data_path, ": ", std::strerror(error));
  if (!emptied.empty()) {
    SKADE_RETURN_NOT_OK(EmptyDatabases(directory, MapSize(), max_dbs_, emptied));
  }
  return FsyncPath(directory, O_RDONLY | O_DIRECTORY);
}

Result<bool> LmdbEnv::InUse(const std::string& path) {
  std::error_code ec;
  std::string canonical = std::filesystem::canonical(path, ec).string();
  if (ec) return false;  // no such directory
  {
    std::lock_guard<std::mutex> lock(g_envs_mutex);
    auto& envs = OpenEnvs();
    if (auto it = envs.find(canonical); it != envs.end() && !it->second.expired()) return true;
  }
  // Only a test of the lock, never a lock taken: closing a descriptor of the
  // file would drop every POSIX lock this process holds on it.
  std::string lock_path = canonical + "/lock.mdb";
  int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return false;
    return IoError("Cannot open ", lock_path, ": ", std::strerror(errno));
  }
  struct flock probe = {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 1;
  int rc = ::fcntl(fd, F_GETLK, &probe);
  int error = errno;
  ::close(fd);
  if (rc != 0) return IoError("Cannot test the lock of ", lock_path, ": ", std::strerror(error));
  return probe.l_type != F_UNLCK;
}

uint64_t LmdbEnv::LastTxnId() {
  // The meta pages are in the map, which a resize replaces.
  uint32_t shard = EnterTxn();
  uint64_t last = NewestMetaTxnId();
  LeaveTxn(shard);
  return last;
}

}  // namespace skade::store::lmdb
