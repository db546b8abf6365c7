#include "skade/read/arrow_input_file.h"

#include <arrow/buffer.h>

#include "skade/data/arrow_error_internal.h"

namespace skade::read {

ArrowInputFile::ArrowInputFile(std::unique_ptr<io::InputFile> file, std::string location)
    : file_(std::move(file)), location_(std::move(location)) {}

arrow::Status ArrowInputFile::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  return arrow::Status::OK();
}

bool ArrowInputFile::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

arrow::Result<int64_t> ArrowInputFile::Tell() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return position_;
}

arrow::Status ArrowInputFile::Seek(int64_t position) {
  if (position < 0) return arrow::Status::Invalid("Negative seek in ", location_);
  std::lock_guard<std::mutex> lock(mutex_);
  position_ = position;
  return arrow::Status::OK();
}

arrow::Result<int64_t> ArrowInputFile::Read(int64_t nbytes, void* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  ARROW_ASSIGN_OR_RAISE(int64_t n, ReadAt(position_, nbytes, out));
  position_ += n;
  return n;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> ArrowInputFile::Read(int64_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position_, nbytes));
  position_ += buffer->size();
  return buffer;
}

arrow::Result<int64_t> ArrowInputFile::ReadAt(int64_t position, int64_t nbytes, void* out) {
  auto read = file_->ReadAt(position, nbytes, static_cast<char*>(out));
  if (!read) {
    return data::ToArrowStatus(
        Error{read.error().kind, location_ + ": " + read.error().message, read.error().retryable});
  }
  return *read;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> ArrowInputFile::ReadAt(int64_t position,
                                                                     int64_t nbytes) {
  if (nbytes < 0) return arrow::Status::Invalid("Negative read in ", location_);
  int64_t available = std::max<int64_t>(0, std::min(nbytes, file_->Size() - position));
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<arrow::ResizableBuffer> buffer,
                        arrow::AllocateResizableBuffer(available));
  ARROW_ASSIGN_OR_RAISE(int64_t n, ReadAt(position, available, buffer->mutable_data()));
  if (n < available) ARROW_RETURN_NOT_OK(buffer->Resize(n, /*shrink_to_fit=*/false));
  return std::shared_ptr<arrow::Buffer>(std::move(buffer));
}

arrow::Result<int64_t> ArrowInputFile::GetSize() { return file_->Size(); }

}  // namespace skade::read
