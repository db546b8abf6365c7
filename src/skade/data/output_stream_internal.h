// An arrow::io::OutputStream that writes through a skade io::OutputFile, so
// Parquet files go through FileIO (local today, object stores later).
//
// Buffers small writes (Parquet emits many page headers) into large ones.
// Close() only flushes and marks the stream closed: the owner commits the
// file with OutputFile::Close() once the Parquet writer has succeeded. Not
// thread-safe; the OutputFile must outlive the stream.
#pragma once

#include <arrow/io/interfaces.h>

#include <optional>
#include <string>

#include "skade/io/file_io.h"
#include "skade/util/error.h"

namespace skade::data {

class OutputFileStream final : public arrow::io::OutputStream {
 public:
  explicit OutputFileStream(io::OutputFile* file) : file_(file) {}

  arrow::Status Write(const void* data, int64_t nbytes) override;
  arrow::Status Flush() override;
  arrow::Status Close() override;
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }

  /// Bytes accepted so far (written or buffered).
  int64_t position() const { return position_; }
  /// The first error the OutputFile reported, with its original kind.
  const std::optional<Error>& error() const { return error_; }

 private:
  static constexpr size_t kBufferBytes = 1 << 20;

  io::OutputFile* file_;
  std::string buffer_;
  int64_t position_ = 0;
  bool closed_ = false;
  std::optional<Error> error_;
};

}  // namespace skade::data
