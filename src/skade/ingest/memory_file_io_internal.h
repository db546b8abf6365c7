// MemoryFileIO: a FileIO that keeps files in memory, so the encode stage
// can run the data/ writers (Parquet, fan-out by partition, rolling)
// without touching storage; the write stage stores the bytes later.
//
// Only creating and reading files is supported; names are opaque keys.
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "skade/io/file_io.h"

namespace skade::ingest {

class MemoryFileIO : public io::FileIO {
 public:
  /// Removes and returns a file's bytes; kNotFound if there is none.
  Result<std::string> Take(const std::string& location);

  Result<std::string> ReadFile(std::string_view location) override;
  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override;
  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location,
                                                        bool durable) override;
  Status DeleteFile(std::string_view location) override;
  Result<bool> Exists(std::string_view location) override;
  Result<int64_t> FileSize(std::string_view location) override;
  Result<std::vector<std::string>> ListDirectory(std::string_view location) override;
  Status RemoveEmptyDirectory(std::string_view location) override;

 private:
  class MemoryOutputFile;

  Status Store(std::string location, std::string contents);

  std::mutex mutex_;
  std::map<std::string, std::string, std::less<>> files_;
};

}  // namespace skade::ingest
