#include "skade/ingest/memory_file_io_internal.h"

namespace skade::ingest {

// Collects the bytes and hands them to the FileIO on Close(); dropped
// without Close(), the file never exists.
class MemoryFileIO::MemoryOutputFile : public io::OutputFile {
 public:
  MemoryOutputFile(MemoryFileIO* owner, std::string location)
      : owner_(owner), location_(std::move(location)) {}

  Status Write(std::string_view data) override {
    if (closed_) return IoError("Write to closed file ", location_);
    bytes_.append(data);
    return OkStatus();
  }
  int64_t BytesWritten() const override {
    return closed_ ? size_ : static_cast<int64_t>(bytes_.size());
  }
  Status Close() override {
    if (closed_) return OkStatus();
    closed_ = true;
    size_ = static_cast<int64_t>(bytes_.size());
    return owner_->Store(location_, std::move(bytes_));
  }

 private:
  MemoryFileIO* owner_;
  std::string location_;
  std::string bytes_;
  int64_t size_ = 0;
  bool closed_ = false;
};

Status MemoryFileIO::Store(std::string location, std::string contents) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = files_.try_emplace(std::move(location), std::move(contents));
  if (!inserted) return MakeError(ErrorKind::kAlreadyExists, "File exists: ", it->first);
  return OkStatus();
}

Result<std::string> MemoryFileIO::Take(const std::string& location) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(location);
  if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
  std::string bytes = std::move(it->second);
  files_.erase(it);
  return bytes;
}

Result<std::string> MemoryFileIO::ReadFile(std::string_view location) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(location);
  if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
  return it->second;
}

Status MemoryFileIO::WriteFile(std::string_view location, std::string_view contents, bool) {
  return Store(std::string(location), std::string(contents));
}

Result<std::unique_ptr<io::OutputFile>> MemoryFileIO::NewOutputFile(std::string_view location,
                                                                    bool) {
  return std::unique_ptr<io::OutputFile>(new MemoryOutputFile(this, std::string(location)));
}

Status MemoryFileIO::DeleteFile(std::string_view location) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(location);
  if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
  files_.erase(it);
  return OkStatus();
}

Result<bool> MemoryFileIO::Exists(std::string_view location) {
  std::lock_guard lock(mutex_);
  return files_.find(location) != files_.end();
}

Result<int64_t> MemoryFileIO::FileSize(std::string_view location) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(location);
  if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
  return static_cast<int64_t>(it->second.size());
}

Result<std::vector<std::string>> MemoryFileIO::ListDirectory(std::string_view) {
  return Unsupported("MemoryFileIO has no directories");
}

Status MemoryFileIO::RemoveEmptyDirectory(std::string_view) { return OkStatus(); }

}  // namespace skade::ingest
