#include "skade/data/arrow_error_internal.h"
#include "skade/data/output_stream_internal.h"

namespace skade::data {

arrow::Status OutputFileStream::Write(const void* data, int64_t nbytes) {
  if (closed_) return arrow::Status::Invalid("Write to a closed stream");
  if (error_) return ToArrowStatus(*error_);
  buffer_.append(static_cast<const char*>(data), static_cast<size_t>(nbytes));
  position_ += nbytes;
  if (buffer_.size() >= kBufferBytes) return Flush();
  return arrow::Status::OK();
}

arrow::Status OutputFileStream::Flush() {
  if (error_) return ToArrowStatus(*error_);
  if (buffer_.empty()) return arrow::Status::OK();
  Status written = file_->Write(buffer_);
  buffer_.clear();
  if (!written) {
    error_ = written.error();
    return ToArrowStatus(*error_);
  }
  return arrow::Status::OK();
}

arrow::Status OutputFileStream::Close() {
  if (closed_) return arrow::Status::OK();
  arrow::Status flushed = Flush();
  closed_ = true;
  return flushed;
}

}  // namespace skade::data
