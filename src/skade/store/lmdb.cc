#include "skade/store/lmdb.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "skade/util/strings.h"

namespace skade::store {

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
    if (txn_ != nullptr) mdb_txn_abort(txn_);
    txn_ = std::exchange(other.txn_, nullptr);
  }
  return *this;
}

ReadTxn::~ReadTxn() {
  if (txn_ != nullptr) mdb_txn_abort(txn_);
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

}  // namespace

Result<std::optional<std::string_view>> ReadTxn::Get(MDB_dbi dbi, std::string_view key) const {
  return GetIn(txn_, dbi, key);
}

// --- WriteTxn --------------------------------------------------------------

WriteTxn::~WriteTxn() {
  if (txn_ != nullptr) mdb_txn_abort(txn_);
  if (writer_ != nullptr) writer_->UnlockWriter();
}

Result<WriteTxn> WriteTxn::BeginNested() {
  MDB_txn* child = nullptr;
  int rc = mdb_txn_begin(mdb_txn_env(txn_), txn_, 0, &child);
  if (rc != 0) return LmdbError("Cannot begin nested store transaction", rc);
  return WriteTxn(child, nullptr);
}

Result<std::optional<std::string_view>> WriteTxn::Get(MDB_dbi dbi, std::string_view key) const {
  return GetIn(txn_, dbi, key);
}

Status WriteTxn::Put(MDB_dbi dbi, std::string_view key, std::string_view value) {
  MDB_val k = ToVal(key);
  MDB_val v = ToVal(value);
  int rc = mdb_put(txn_, dbi, &k, &v, 0);
  if (rc != 0) return LmdbError("store write failed", rc);
  return OkStatus();
}

Result<bool> WriteTxn::Delete(MDB_dbi dbi, std::string_view key) {
  MDB_val k = ToVal(key);
  int rc = mdb_del(txn_, dbi, &k, nullptr);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != 0) return LmdbError("store delete failed", rc);
  return true;
}

Status WriteTxn::Commit() {
  int rc = mdb_txn_commit(std::exchange(txn_, nullptr));
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
    if (auto existing = it->second.lock()) return existing;
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
  int dead = 0;
  mdb_reader_check(env, &dead);
  std::string lock_path = canonical + "/skade-writer.lock";
  int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) {
    int error = errno;
    mdb_env_close(env);
    return IoError("Cannot open ", lock_path, ": ", std::strerror(error));
  }
  std::shared_ptr<LmdbEnv> result(new LmdbEnv(env, canonical, options.durability, lock_fd));
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

Result<MDB_dbi> LmdbEnv::OpenDatabase(const std::string& name) {
  SKADE_ASSIGN_OR_RAISE(auto txn, BeginWrite());
  MDB_dbi dbi;
  int rc = mdb_dbi_open(txn.raw(), name.c_str(), MDB_CREATE, &dbi);
  if (rc != 0) return LmdbError(StrCat("Cannot open store database ", name), rc);
  SKADE_RETURN_NOT_OK(txn.Commit());
  return dbi;
}

Result<MDB_txn*> LmdbEnv::Begin(unsigned flags) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, flags, &txn);
    if (rc == 0) return txn;
    if (rc == MDB_MAP_RESIZED) {
      // Another process grew the map: adopt its size.
      mdb_env_set_mapsize(env_, 0);
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

Result<ReadTxn> LmdbEnv::BeginRead() {
  SKADE_ASSIGN_OR_RAISE(MDB_txn * txn, Begin(MDB_RDONLY));
  return ReadTxn(txn);
}

Result<WriteTxn> LmdbEnv::BeginWrite() {
  SKADE_RETURN_NOT_OK(LockWriter());
  auto txn = Begin(0);
  if (!txn) {
    UnlockWriter();
    return tl::unexpected(txn.error());
  }
  return WriteTxn(*txn, this);
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

uint64_t LmdbEnv::LastTxnId() {
  MDB_envinfo info;
  mdb_env_info(env_, &info);
  return info.me_last_txnid;
}

}  // namespace skade::store
