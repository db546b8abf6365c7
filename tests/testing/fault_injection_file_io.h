// FaultInjectionFileIO: a local FileIO that remembers what was never made
// durable and loses it at a simulated power loss (after LevelDB's
// fault_injection_test.cc).
//
// What it models. A file created through it survives SimulatePowerLoss()
// only if its data was synced (SyncFile, or a `durable` write) and its
// directory entry was too: the entry is durable once its directory was
// synced (SyncDirectory) after the file was created, and a directory this
// FileIO created is itself an entry of its parent, durable by the same rule
// all the way up. Directories and files that existed before this FileIO was
// made count as durable. A lost file is deleted; a lost directory goes with
// everything in it. Nothing else is changed: synced files are not truncated,
// deleted files do not come back, and the model does not tear writes.
//
// A `durable` write is performed as a plain write followed by SyncFile and
// SyncDirectory of its parent, which is what the FileIO contract promises,
// so the model sees exactly the syncs a durable write implies. Only the
// minimum SyncDirectory guarantees counts (the directory's entries, and one
// entry per ancestor link), not whatever else a real fsync happens to flush.
//
// After SimulatePowerLoss() the FileIO is dead: every call fails, as on a
// machine that lost power, so a catalog destroyed afterwards cannot write
// or sync anything more. Use a fresh instance for the next "boot".
//
// Thread-safe.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "skade/io/forwarding_file_io.h"

namespace skade::testing {

class FaultInjectionFileIO : public io::ForwardingFileIO {
 public:
  FaultInjectionFileIO() : ForwardingFileIO(io::NewLocalFileIO()) {}

  /// While set, SyncFile and SyncDirectory fail with kIo and sync nothing
  /// (a disk reporting write errors).
  void FailSyncs(bool fail) {
    std::lock_guard<std::mutex> lock(mutex_);
    fail_syncs_ = fail;
  }

  /// Runs `hook` once, at the start of the next SyncFile (outside any lock,
  /// so it may use this FileIO): to act in the middle of a flush round.
  void RunAtNextSync(std::function<void()> hook) {
    std::lock_guard<std::mutex> lock(mutex_);
    sync_hook_ = std::move(hook);
  }

  /// Deletes every file and directory created through this FileIO whose
  /// data or entry was not made durable; returns their paths. Then the
  /// FileIO is dead.
  std::vector<std::string> SimulatePowerLoss() {
    std::lock_guard<std::mutex> lock(mutex_);
    dead_ = true;
    std::vector<std::string> lost;
    for (const auto& [path, synced] : files_) {
      if (!synced || !EntryDurable(path)) lost.push_back(path);
    }
    for (const auto& dir : created_dirs_) {
      if (!EntryDurable(dir)) lost.push_back(dir);
    }
    for (const auto& path : lost) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
    return lost;
  }

  Result<std::string> ReadFile(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().ReadFile(location);
  }
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().ReadFileUpTo(location, max_bytes);
  }

  Result<std::unique_ptr<io::InputFile>> NewInputFile(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().NewInputFile(location);
  }

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    SKADE_ASSIGN_OR_RAISE(auto file, NewOutputFile(location, durable));
    SKADE_RETURN_NOT_OK(file->Write(contents));
    return file->Close();
  }

  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location,
                                                        bool durable) override {
    SKADE_RETURN_NOT_OK(Alive());
    SKADE_ASSIGN_OR_RAISE(std::string path, io::LocalPath(location));
    std::vector<std::string> new_dirs;
    std::error_code ec;
    for (auto dir = std::filesystem::path(path).parent_path();
         dir != dir.parent_path() && !std::filesystem::exists(dir, ec); dir = dir.parent_path()) {
      new_dirs.push_back(dir.string());
    }
    SKADE_ASSIGN_OR_RAISE(auto file, inner().NewOutputFile(location, /*durable=*/false));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& dir : new_dirs) {
        created_dirs_.insert(dir);
        unsynced_entries_[Parent(dir)].insert(dir);
      }
      files_[path] = false;
      unsynced_entries_[Parent(path)].insert(path);
    }
    return std::unique_ptr<io::OutputFile>(
        new FaultOutputFile(this, std::string(location), durable, std::move(file)));
  }

  Status DeleteFile(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    SKADE_RETURN_NOT_OK(inner().DeleteFile(location));
    SKADE_ASSIGN_OR_RAISE(std::string path, io::LocalPath(location));
    std::lock_guard<std::mutex> lock(mutex_);
    files_.erase(path);
    unsynced_entries_[Parent(path)].erase(path);
    return OkStatus();
  }

  Result<bool> Exists(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().Exists(location);
  }
  Result<int64_t> FileSize(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().FileSize(location);
  }
  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().ListDirectory(location);
  }
  Status RemoveEmptyDirectory(std::string_view location) override {
    SKADE_RETURN_NOT_OK(Alive());
    return inner().RemoveEmptyDirectory(location);
  }

  Status SyncFile(std::string_view location) override {
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      hook = std::exchange(sync_hook_, nullptr);
    }
    if (hook) hook();
    // One step with the power: a sync happens wholly before a power loss
    // or not at all (a file the loss deleted must not look deleted on purpose).
    std::lock_guard<std::mutex> lock(mutex_);
    SKADE_RETURN_NOT_OK(SyncAllowed(location));
    SKADE_RETURN_NOT_OK(inner().SyncFile(location));
    SKADE_ASSIGN_OR_RAISE(std::string path, io::LocalPath(location));
    if (auto it = files_.find(path); it != files_.end()) it->second = true;
    return OkStatus();
  }

  Status SyncDirectory(std::string_view location) override {
    std::lock_guard<std::mutex> lock(mutex_);
    SKADE_RETURN_NOT_OK(SyncAllowed(location));
    SKADE_RETURN_NOT_OK(inner().SyncDirectory(location));
    SKADE_ASSIGN_OR_RAISE(std::string path, io::LocalPath(location));
    std::string dir = std::filesystem::path(path).lexically_normal().string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    unsynced_entries_.erase(dir);
    for (std::string d = dir; d != Parent(d); d = Parent(d)) {
      if (auto it = unsynced_entries_.find(Parent(d)); it != unsynced_entries_.end()) {
        it->second.erase(d);
      }
    }
    return OkStatus();
  }

 private:
  // A durable output file syncs its data and its directory on Close().
  class FaultOutputFile : public io::OutputFile {
   public:
    FaultOutputFile(FaultInjectionFileIO* owner, std::string location, bool durable,
                    std::unique_ptr<io::OutputFile> base)
        : owner_(owner),
          location_(std::move(location)),
          durable_(durable),
          base_(std::move(base)) {}
    Status Write(std::string_view data) override {
      SKADE_RETURN_NOT_OK(owner_->Alive());
      return base_->Write(data);
    }
    int64_t BytesWritten() const override { return base_->BytesWritten(); }
    Status Close() override {
      SKADE_RETURN_NOT_OK(owner_->Alive());
      SKADE_RETURN_NOT_OK(base_->Close());
      if (!durable_) return OkStatus();
      SKADE_RETURN_NOT_OK(owner_->SyncFile(location_));
      return owner_->SyncDirectory(io::ParentLocation(location_));
    }

   private:
    FaultInjectionFileIO* owner_;
    std::string location_;
    bool durable_;
    std::unique_ptr<io::OutputFile> base_;
  };

  static std::string Parent(const std::string& path) {
    return std::filesystem::path(path).parent_path().string();
  }

  Status Alive() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (dead_) return IoError("Simulated power loss");
    return OkStatus();
  }

  // With mutex_ held.
  Status SyncAllowed(std::string_view location) const {
    if (dead_) return IoError("Simulated power loss");
    if (fail_syncs_) return IoError("Injected sync failure: ", location);
    return OkStatus();
  }

  // With mutex_ held: whether `path`'s entry, and its directory's and so on
  // up, were synced.
  bool EntryDurable(const std::string& path) const {
    for (std::string p = path; p != Parent(p); p = Parent(p)) {
      auto it = unsynced_entries_.find(Parent(p));
      if (it != unsynced_entries_.end() && it->second.count(p) > 0) return false;
    }
    return true;
  }

  std::mutex mutex_;
  bool dead_ = false;
  bool fail_syncs_ = false;
  std::function<void()> sync_hook_;
  std::map<std::string, bool> files_;  // path -> data synced since creation
  std::set<std::string> created_dirs_;
  // Directory -> paths of its entries created since it was last synced.
  std::map<std::string, std::set<std::string>> unsynced_entries_;
};

}  // namespace skade::testing
