// BufferOutputFile: an io::OutputFile whose bytes land in a string the
// caller keeps, for files encoded in memory and stored later under their
// name (the ingest encoder, the committer's journaled data files).
//
// Not thread-safe; `bytes` must outlive it.
#pragma once

#include <string>
#include <string_view>

#include "skade/io/file_io.h"

namespace skade::io {

class BufferOutputFile : public OutputFile {
 public:
  explicit BufferOutputFile(std::string* bytes) : bytes_(bytes) {}

  Status Write(std::string_view data) override {
    bytes_->append(data);
    return OkStatus();
  }
  int64_t BytesWritten() const override { return static_cast<int64_t>(bytes_->size()); }
  Status Close() override { return OkStatus(); }

 private:
  std::string* bytes_;
};

}  // namespace skade::io
