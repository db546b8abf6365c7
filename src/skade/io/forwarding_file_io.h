// ForwardingFileIO: a FileIO that passes every call to an inner FileIO, the
// base of wrappers (tracking, counting, fault or latency injection) so that
// each overrides only the calls it changes and inherits the rest, including
// calls added to FileIO later (SyncFiles, WriteFiles and the confined
// calls excepted, see below).
//
// Owns a share of the inner FileIO. Thread-safe when the inner FileIO is.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/io/file_io.h"

namespace skade::io {

class ForwardingFileIO : public FileIO {
 public:
  explicit ForwardingFileIO(std::shared_ptr<FileIO> inner) : inner_(std::move(inner)) {}

  Result<std::string> ReadFile(std::string_view location) override {
    return inner_->ReadFile(location);
  }
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    return inner_->ReadFileUpTo(location, max_bytes);
  }
  Result<std::unique_ptr<InputFile>> NewInputFile(std::string_view location) override {
    return inner_->NewInputFile(location);
  }
  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    return inner_->WriteFile(location, contents, durable);
  }
  Result<std::unique_ptr<OutputFile>> NewOutputFile(std::string_view location,
                                                    bool durable) override {
    return inner_->NewOutputFile(location, durable);
  }
  Status DeleteFile(std::string_view location) override { return inner_->DeleteFile(location); }
  Result<bool> Exists(std::string_view location) override { return inner_->Exists(location); }
  Result<int64_t> FileSize(std::string_view location) override {
    return inner_->FileSize(location);
  }
  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    return inner_->ListDirectory(location);
  }
  Status RemoveEmptyDirectory(std::string_view location) override {
    return inner_->RemoveEmptyDirectory(location);
  }
  Status CreateDirectories(std::string_view location) override {
    return inner_->CreateDirectories(location);
  }
  Status SyncFile(std::string_view location) override { return inner_->SyncFile(location); }
  Status SyncDirectory(std::string_view location) override {
    return inner_->SyncDirectory(location);
  }
  // SyncFiles, WriteFiles, WriteConfinedFile, CreateConfinedDirectories and
  // ReadConfinedFileUpTo are not forwarded: FileIO's defaults call this
  // wrapper's SyncFile and SyncDirectory, WriteFile, CreateDirectories or
  // ReadFileUpTo, so a wrapper that changes those (fault injection,
  // counting) sees every sync, write and read. A
  // wrapper that changes them only to observe may forward the call
  // (TrackingFileIO) to keep the inner FileIO's batching, or its check of
  // where a file is created or read.
  void MakeSpareFilesIn(std::string_view directory) override {
    inner_->MakeSpareFilesIn(directory);
  }
  Status CheckLocation(const Location& location) const override {
    return inner_->CheckLocation(location);
  }
  Result<Location> ResolveLocation(const Location& location) const override {
    return inner_->ResolveLocation(location);
  }
  Status DeleteCheckedFile(std::string_view location, const Location& resolved) override {
    return inner_->DeleteCheckedFile(location, resolved);
  }
  Result<std::string> ReadCheckedFileUpTo(std::string_view location, const Location& resolved,
                                          uint64_t max_bytes) override {
    return inner_->ReadCheckedFileUpTo(location, resolved, max_bytes);
  }

 protected:
  FileIO& inner() const { return *inner_; }

 private:
  std::shared_ptr<FileIO> inner_;
};

}  // namespace skade::io
