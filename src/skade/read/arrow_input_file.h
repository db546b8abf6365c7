// ArrowInputFile: an arrow::io::RandomAccessFile over an io::InputFile, so
// that Parquet reads data files through skade's FileIO (local pread, S3
// ranged GETs, any wrapper).
//
// ReadAt is thread-safe and takes no lock (Parquet's pre-buffering reads
// ranges concurrently); Read/Seek/Tell share one position under a mutex.
// Errors carry the location and become an arrow::Status as
// data::ToArrowStatus maps them.
#pragma once

#include <arrow/io/interfaces.h>

#include <memory>
#include <mutex>
#include <string>

#include "skade/io/file_io.h"

namespace skade::read {

class ArrowInputFile : public arrow::io::RandomAccessFile {
 public:
  ArrowInputFile(std::unique_ptr<io::InputFile> file, std::string location);

  arrow::Status Close() override;
  bool closed() const override;
  arrow::Result<int64_t> Tell() const override;
  arrow::Status Seek(int64_t position) override;
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override;
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override;
  arrow::Result<int64_t> GetSize() override;

 private:
  const std::unique_ptr<io::InputFile> file_;
  const std::string location_;
  mutable std::mutex mutex_;
  int64_t position_ = 0;
  bool closed_ = false;
};

}  // namespace skade::read
