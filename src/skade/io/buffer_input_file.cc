#include "skade/io/buffer_input_file.h"

#include <algorithm>
#include <cstring>

namespace skade::io {

Status CheckReadRange(int64_t offset, int64_t length) {
  if (offset < 0 || length < 0) {
    return InvalidArgument("Invalid read of ", length, " bytes at offset ", offset);
  }
  return OkStatus();
}

Result<int64_t> BufferInputFile::ReadAt(int64_t offset, int64_t length, char* out) {
  SKADE_RETURN_NOT_OK(CheckReadRange(offset, length));
  if (offset >= Size()) return 0;
  int64_t n = std::min(length, Size() - offset);
  std::memcpy(out, contents_.data() + offset, static_cast<size_t>(n));
  return n;
}

Result<std::unique_ptr<InputFile>> FileIO::NewInputFile(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(std::string contents, ReadFile(location));
  return std::unique_ptr<InputFile>(new BufferInputFile(std::move(contents)));
}

}  // namespace skade::io
