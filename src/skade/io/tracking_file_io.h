// TrackingFileIO: a FileIO that remembers which files were written without
// being made durable, so that someone can make them durable later.
//
// The catalog wraps its FileIO in one at the eventual and none durability
// levels: manifests, manifest lists and data files written through the
// catalog's FileIO (table::Table, ingest, the CLI) with `durable=false` are
// then synced by the MetadataFlusher before the store, like the metadata
// files the catalog writes itself. A file is recorded once it is complete
// (WriteFile returned, or OutputFile::Close succeeded); files written with
// `durable=true` are not recorded, they are durable already. Every other
// call is forwarded unchanged.
//
// Thread-safe when the wrapped FileIO is.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "skade/io/forwarding_file_io.h"

namespace skade::io {

class TrackingFileIO : public ForwardingFileIO {
 public:
  explicit TrackingFileIO(std::shared_ptr<FileIO> base) : ForwardingFileIO(std::move(base)) {}

  /// The locations recorded since the last call, in the order they were
  /// completed, and forgets them. A location written, deleted and written
  /// again appears twice.
  std::vector<std::string> TakeWritten();

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override;
  /// Forwarded, so that the inner FileIO keeps its concurrency. Records
  /// every file not written durably, even after an error (some may exist;
  /// the missing ones are skipped when synced).
  Status WriteFiles(const std::vector<NewFile>& files) override;
  Status WriteConfinedFile(std::string_view location, std::string_view contents, bool durable,
                           const std::function<Status(const Location&)>& allowed) override;
  Result<std::unique_ptr<OutputFile>> NewOutputFile(std::string_view location,
                                                    bool durable) override;
  /// Forwarded: directories and reads pass through unchanged.
  Status CreateConfinedDirectories(std::string_view location,
                                   const std::function<Status(const Location&)>& allowed) override {
    return inner().CreateConfinedDirectories(location, allowed);
  }
  Result<std::string> ReadConfinedFileUpTo(
      std::string_view location, uint64_t max_bytes,
      const std::function<Status(const Location&)>& allowed) override {
    return inner().ReadConfinedFileUpTo(location, max_bytes, allowed);
  }
  /// Forwarded: syncs pass through unchanged.
  Status SyncFiles(const std::vector<std::string>& locations) override {
    return inner().SyncFiles(locations);
  }

 private:
  class TrackedOutputFile;

  void Record(std::string_view location);

  std::mutex mutex_;
  std::vector<std::string> written_;
};

}  // namespace skade::io
