#include "skade/io/tracking_file_io.h"

#include <utility>

namespace skade::io {

// Records its location when Close() succeeds; the owning TrackingFileIO must
// outlive it (as it must outlive any OutputFile of a FileIO).
class TrackingFileIO::TrackedOutputFile : public OutputFile {
 public:
  TrackedOutputFile(TrackingFileIO* owner, std::string location, std::unique_ptr<OutputFile> base)
      : owner_(owner), location_(std::move(location)), base_(std::move(base)) {}

  Status Write(std::string_view data) override { return base_->Write(data); }
  int64_t BytesWritten() const override { return base_->BytesWritten(); }
  Status Close() override {
    if (closed_) return OkStatus();
    SKADE_RETURN_NOT_OK(base_->Close());
    closed_ = true;
    owner_->Record(location_);
    return OkStatus();
  }

 private:
  TrackingFileIO* owner_;
  std::string location_;
  std::unique_ptr<OutputFile> base_;
  bool closed_ = false;
};

std::vector<std::string> TrackingFileIO::TakeWritten() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(written_, {});
}

void TrackingFileIO::Record(std::string_view location) {
  std::lock_guard<std::mutex> lock(mutex_);
  written_.emplace_back(location);
}

Result<std::string> TrackingFileIO::ReadFile(std::string_view location) {
  return base_->ReadFile(location);
}

Result<std::string> TrackingFileIO::ReadFileUpTo(std::string_view location, uint64_t max_bytes) {
  return base_->ReadFileUpTo(location, max_bytes);
}

Status TrackingFileIO::WriteFile(std::string_view location, std::string_view contents,
                                 bool durable) {
  SKADE_RETURN_NOT_OK(base_->WriteFile(location, contents, durable));
  if (!durable) Record(location);
  return OkStatus();
}

Result<std::unique_ptr<OutputFile>> TrackingFileIO::NewOutputFile(std::string_view location,
                                                                  bool durable) {
  SKADE_ASSIGN_OR_RAISE(auto file, base_->NewOutputFile(location, durable));
  if (durable) return file;
  return std::unique_ptr<OutputFile>(
      new TrackedOutputFile(this, std::string(location), std::move(file)));
}

Status TrackingFileIO::DeleteFile(std::string_view location) { return base_->DeleteFile(location); }

Result<bool> TrackingFileIO::Exists(std::string_view location) { return base_->Exists(location); }

Result<int64_t> TrackingFileIO::FileSize(std::string_view location) {
  return base_->FileSize(location);
}

Result<std::vector<std::string>> TrackingFileIO::ListDirectory(std::string_view location) {
  return base_->ListDirectory(location);
}

Status TrackingFileIO::RemoveEmptyDirectory(std::string_view location) {
  return base_->RemoveEmptyDirectory(location);
}

Status TrackingFileIO::SyncFile(std::string_view location) { return base_->SyncFile(location); }

Status TrackingFileIO::SyncDirectory(std::string_view location) {
  return base_->SyncDirectory(location);
}

}  // namespace skade::io
