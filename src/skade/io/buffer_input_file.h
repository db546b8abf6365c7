// BufferInputFile: an io::InputFile over bytes held in memory, what
// FileIO::NewInputFile gives for a storage that can only read whole files.
//
// Owns its bytes; immutable, so thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "skade/io/file_io.h"

namespace skade::io {

class BufferInputFile : public InputFile {
 public:
  explicit BufferInputFile(std::string contents) : contents_(std::move(contents)) {}

  int64_t Size() const override { return static_cast<int64_t>(contents_.size()); }
  Result<int64_t> ReadAt(int64_t offset, int64_t length, char* out) override;

 private:
  const std::string contents_;
};

/// OK when `offset` and `length` are not negative, for ReadAt.
Status CheckReadRange(int64_t offset, int64_t length);

}  // namespace skade::io
