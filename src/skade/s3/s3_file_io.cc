#include "skade/s3/s3_file_io.h"

#include <arrow/filesystem/s3fs.h>
#include <arrow/io/interfaces.h>
#include <arrow/util/io_util.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <utility>

#include "skade/data/arrow_error_internal.h"
#include "skade/io/buffer_input_file.h"
#include "skade/s3/retry_policy.h"
#include "skade/s3/s3_client.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"
#include "skade/util/worker_pool.h"

namespace skade::s3 {

namespace {

// Arrow's multipart part size (s3fs.cc, fixed there).
constexpr int64_t kArrowPartBytes = 10ll << 20;

// WriteFiles's threads, shared by every S3FileIO of the process. Each keeps
// its connections (S3Client's handles are per thread), so a write does not
// pay a new connection. Leaked on purpose, as WorkerPool::Default().
constexpr size_t kConcurrentWrites = 8;
WorkerPool& WritePool() {
  static WorkerPool* pool = new WorkerPool(kConcurrentWrites);
  return *pool;
}

// Arrow's S3 layer must be initialised once (and finalised, see FinalizeS3).
Status EnsureArrowS3() {
  static std::once_flag once;
  static arrow::Status status;
  std::call_once(once, [] { status = arrow::fs::EnsureS3Initialized(); });
  return data::FromArrowStatus(status, "Cannot initialise Arrow's S3 support");
}

// Arrow's calls back off by the same policy as skade's own requests.
class ArrowRetryStrategy : public arrow::fs::S3RetryStrategy {
 public:
  explicit ArrowRetryStrategy(int max_attempts) : policy_(max_attempts) {}
  bool ShouldRetry(const AWSErrorDetail& error, int64_t attempted_retries) override {
    return error.should_retry && attempted_retries + 1 < policy_.max_attempts();
  }
  int64_t CalculateDelayBeforeNextRetry(const AWSErrorDetail&, int64_t attempted_retries) override {
    return policy_.DelayMs(static_cast<int>(attempted_retries) + 1);
  }

 private:
  RetryPolicy policy_;
};

bool ValidBucket(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  for (char c : bucket) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
  }
  return bucket.front() != '.' && bucket.front() != '-' && bucket.back() != '.' &&
         bucket.back() != '-';
}

// S3's longest key (AWS answers a longer one KeyTooLongError).
constexpr size_t kMaxKeyBytes = 1024;

// A key S3 would refuse or store as a trap, refused before any request with
// a message for the client who chose it: too long, or with an empty segment
// ("a//b", which MinIO refuses and AWS keeps as a key that only this exact
// spelling reaches). `key` is the path without its leading '/'.
Status CheckKey(std::string_view key, std::string_view location) {
  if (key.size() > kMaxKeyBytes) {
    return InvalidArgument("S3 location ", location, " is too long: its key has ", key.size(),
                           " bytes, S3 allows ", kMaxKeyBytes, " (choose a shorter location, ",
                           "namespace or table name)");
  }
  if (key.starts_with('/') || key.find("//") != std::string_view::npos) {
    return InvalidArgument("S3 location ", location,
                           " has an empty path segment ('//'), which S3 servers refuse or keep as "
                           "a different key");
  }
  return OkStatus();
}

// A location split for S3: its bucket and key (the path without its '/').
struct ObjectName {
  std::string bucket;
  std::string key;
  std::string ArrowPath() const { return key.empty() ? bucket : StrCat(bucket, "/", key); }
};

// Keys are literal on S3, but a "." or ".." segment is refused (as
// Location::Parse does) so that no key means something else to a reader
// that resolves them.
Result<ObjectName> Split(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(io::Location parsed, io::Location::Parse(location));
  if (parsed.scheme != "s3" && parsed.scheme != "s3a") {
    return InvalidArgument("Not an S3 location (s3:// or s3a://): ", location);
  }
  if (!ValidBucket(parsed.authority)) {
    return InvalidArgument("Invalid S3 bucket name '", parsed.authority, "' in ", location);
  }
  std::string key = parsed.path.substr(1);
  if (key.ends_with('/')) key.pop_back();
  SKADE_RETURN_NOT_OK(CheckKey(key, location));
  return ObjectName{parsed.authority, std::move(key)};
}

Result<ObjectName> SplitObject(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(ObjectName name, Split(location));
  if (name.key.empty()) return InvalidArgument("Not an S3 object (a bucket): ", location);
  return name;
}

Status FromArrow(const arrow::Status& status, std::string_view location) {
  if (status.ok()) return OkStatus();
  if (arrow::internal::ErrnoFromStatus(status) == ENOENT) {
    return MakeError(ErrorKind::kNotFound, "File does not exist: ", location);
  }
  // Arrow reports the AWS SDK's error type in its message only.
  if (status.message().find("ACCESS_DENIED") != std::string::npos) {
    return MakeError(ErrorKind::kForbidden, "S3 ", location, ": ", status.message());
  }
  return data::FromArrowStatus(status, StrCat("S3 ", location));
}

template <typename T>
Result<T> FromArrow(arrow::Result<T> result, std::string_view location) {
  if (!result.ok()) return tl::unexpected(FromArrow(result.status(), location).error());
  return std::move(result).ValueUnsafe();
}

// A streamed upload (see the header): Arrow's background multipart stream,
// waited on every `parts_in_flight` parts, aborted unless closed.
class S3OutputFile : public io::OutputFile {
 public:
  S3OutputFile(std::shared_ptr<arrow::io::OutputStream> stream, std::string location,
               int parts_in_flight)
      : stream_(std::move(stream)),
        location_(std::move(location)),
        wait_every_bytes_(kArrowPartBytes * parts_in_flight) {}

  ~S3OutputFile() override {
    if (!closed_) (void)stream_->Abort();
  }

  Status Write(std::string_view data) override {
    if (closed_) return InvalidArgument("Write after Close of ", location_);
    if (failed_) return IoError("Earlier write to ", location_, " failed");
    auto status = stream_->Write(data.data(), static_cast<int64_t>(data.size()));
    if (status.ok()) {
      written_ += static_cast<int64_t>(data.size());
      unwaited_ += static_cast<int64_t>(data.size());
      // Flush waits for the parts in flight, bounding what is held.
      if (unwaited_ >= wait_every_bytes_) {
        status = stream_->Flush();
        unwaited_ = 0;
      }
    }
    if (!status.ok()) failed_ = true;
    return FromArrow(status, location_);
  }

  int64_t BytesWritten() const override { return written_; }

  Status Close() override {
    if (closed_) return OkStatus();
    if (failed_) return IoError("Earlier write to ", location_, " failed");
    auto status = stream_->Close();
    if (!status.ok()) {
      (void)stream_->Abort();
      closed_ = true;
      return FromArrow(status, location_);
    }
    closed_ = true;
    return OkStatus();
  }

 private:
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::string location_;
  int64_t wait_every_bytes_;
  int64_t written_ = 0;
  int64_t unwaited_ = 0;
  bool closed_ = false;
  bool failed_ = false;
};

// Ranged GETs through Arrow's S3 input file, which reads at any offset from
// several threads at once.
class S3InputFile : public io::InputFile {
 public:
  S3InputFile(std::shared_ptr<arrow::io::RandomAccessFile> file, std::string location, int64_t size)
      : file_(std::move(file)), location_(std::move(location)), size_(size) {}

  int64_t Size() const override { return size_; }

  Result<int64_t> ReadAt(int64_t offset, int64_t length, char* out) override {
    SKADE_RETURN_NOT_OK(io::CheckReadRange(offset, length));
    if (offset >= size_) return 0;
    return FromArrow(file_->ReadAt(offset, std::min(length, size_ - offset), out), location_);
  }

 private:
  const std::shared_ptr<arrow::io::RandomAccessFile> file_;
  const std::string location_;
  const int64_t size_;
};

class S3FileIO : public io::FileIO {
 public:
  static Result<std::shared_ptr<io::FileIO>> Make(const io::FileIOProperties& properties) {
    SKADE_ASSIGN_OR_RAISE(S3Config config, S3Config::FromProperties(properties));
    SKADE_RETURN_NOT_OK(EnsureArrowS3());
    auto arrow_options = config.credentials.empty() ? arrow::fs::S3Options::Defaults()
                                                    : arrow::fs::S3Options::FromAccessKey(
                                                          config.credentials.access_key_id,
                                                          config.credentials.secret_access_key,
                                                          config.credentials.session_token);
    arrow_options.region = config.region;
    arrow_options.scheme = config.endpoint_scheme;
    if (!config.endpoint_host.empty() || config.path_style) {
      // Arrow addresses path-style exactly when it is given an endpoint.
      arrow_options.endpoint_override = config.endpoint_host.empty()
                                            ? StrCat("s3.", config.region, ".amazonaws.com")
                                            : config.endpoint_host;
      arrow_options.force_virtual_addressing = !config.path_style;
    }
    arrow_options.background_writes = true;
    arrow_options.allow_delayed_open = true;  // a small stream is one PUT
    arrow_options.connect_timeout = 10;
    // The AWS SDK's request timeout is a stall bound (its curl low-speed time).
    arrow_options.request_timeout = RetryPolicy::kStallSeconds;
    arrow_options.retry_strategy = std::make_shared<ArrowRetryStrategy>(config.max_attempts);
    SKADE_ASSIGN_OR_RAISE(
        auto fs, FromArrow(arrow::fs::S3FileSystem::Make(arrow_options), config.EndpointUrl()));
    return std::shared_ptr<io::FileIO>(
        new S3FileIO(std::move(config), std::move(arrow_options), std::move(fs)));
  }

  Result<std::string> ReadFile(std::string_view location) override {
    return ReadFileUpTo(location, std::numeric_limits<uint64_t>::max());
  }

  // One GET (a bounded range), no HEAD first: a HEAD is only made to tell a
  // "directory" (a prefix of other keys) from nothing at all.
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, SplitObject(location));
    auto contents = client_.GetObject(name.bucket, name.key, max_bytes);
    if (!contents && contents.error().kind == ErrorKind::kNotFound) {
      SKADE_ASSIGN_OR_RAISE(auto info, StatFile(name, location));  // kNotFound or not a file
      (void)info;                                                  // created since the GET: read it
      contents = client_.GetObject(name.bucket, name.key, max_bytes);
    }
    if (!contents) return contents;
    if (contents->size() > max_bytes) return TooLarge(location, max_bytes);
    return contents;
  }

  // One HEAD (the size, and a "directory" is refused), then a GET per read.
  Result<std::unique_ptr<io::InputFile>> NewInputFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, SplitObject(location));
    SKADE_ASSIGN_OR_RAISE(auto info, StatFile(name, location));
    SKADE_ASSIGN_OR_RAISE(auto file, FromArrow(fs_->OpenInputFile(info), location));
    return std::unique_ptr<io::InputFile>(
        new S3InputFile(std::move(file), std::string(location), info.size()));
  }

  Status WriteFile(std::string_view location, std::string_view contents, bool) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, SplitObject(location));
    if (config_.conditional_writes != ConditionalWrites::kOff &&
        conditional_supported_.load(std::memory_order_relaxed)) {
      auto status = client_.PutObject(name.bucket, name.key, contents, true);
      if (status || status.error().kind != ErrorKind::kUnsupported) {
        if (!status && status.error().kind == ErrorKind::kAlreadyExists) {
          return MakeError(ErrorKind::kAlreadyExists, "File already exists: ", location);
        }
        return status;
      }
      if (config_.conditional_writes == ConditionalWrites::kRequired) {
        return Unsupported("The S3 server at ", config_.EndpointUrl(),
                           " does not implement conditional writes (If-None-Match), which ",
                           kConditionalWritesProperty, "=true requires");
      }
      if (!conditional_supported_.exchange(false)) {
        LogWarning(StrCat("S3 server at ", config_.EndpointUrl(),
                          " does not implement If-None-Match; new files are checked with HEAD"));
      }
    }
    SKADE_ASSIGN_OR_RAISE(bool exists, Exists(location));
    if (exists) return MakeError(ErrorKind::kAlreadyExists, "File already exists: ", location);
    return client_.PutObject(name.bucket, name.key, contents, false);
  }

  // At once, on the write pool: each PUT waits a round trip on the server,
  // and a commit's manifests and manifest lists are independent files.
  Status WriteFiles(const std::vector<io::NewFile>& files) override {
    if (files.size() < 2) return FileIO::WriteFiles(files);
    std::vector<Status> written(files.size());
    WritePool().ParallelFor(files.size(), [&](size_t i) {
      written[i] = WriteFile(files[i].location, files[i].contents, files[i].durable);
    });
    for (Status& status : written) SKADE_RETURN_NOT_OK(status);
    return OkStatus();
  }

  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location, bool) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, SplitObject(location));
    SKADE_ASSIGN_OR_RAISE(auto info, Stat(name, location));
    if (info.type() != arrow::fs::FileType::NotFound) {
      return MakeError(ErrorKind::kAlreadyExists, "File already exists: ", location);
    }
    SKADE_ASSIGN_OR_RAISE(auto stream,
                          FromArrow(fs_->OpenOutputStream(name.ArrowPath()), location));
    return std::unique_ptr<io::OutputFile>(
        new S3OutputFile(std::move(stream), std::string(location), config_.parts_in_flight));
  }

  Status DeleteFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, SplitObject(location));
    SKADE_ASSIGN_OR_RAISE(auto info, StatFile(name, location));
    (void)info;
    return client_.DeleteObject(name.bucket, name.key);
  }

  Result<bool> Exists(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, Split(location));
    SKADE_ASSIGN_OR_RAISE(auto info, Stat(name, location));
    return info.type() != arrow::fs::FileType::NotFound;
  }

  Result<int64_t> FileSize(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, SplitObject(location));
    SKADE_ASSIGN_OR_RAISE(auto info, StatFile(name, location));
    return info.size();
  }

  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, Split(location));
    arrow::fs::FileSelector selector;
    selector.base_dir = name.ArrowPath();
    selector.allow_not_found = true;
    selector.recursive = false;
    SKADE_ASSIGN_OR_RAISE(auto infos, FromArrow(fs_->GetFileInfo(selector), location));
    std::vector<std::string> names;
    names.reserve(infos.size());
    for (const auto& info : infos) names.push_back(info.base_name());
    return names;
  }

  Status RemoveEmptyDirectory(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(ObjectName name, Split(location));
    (void)name;
    return OkStatus();
  }

  Status SyncFile(std::string_view) override { return OkStatus(); }
  Status SyncDirectory(std::string_view) override { return OkStatus(); }
  Status SyncFiles(const std::vector<std::string>&) override { return OkStatus(); }

  Status CheckLocation(const io::Location& location) const override {
    if (location.scheme != "s3" && location.scheme != "s3a") {
      return InvalidArgument("Unsupported location scheme for S3: ", location.ToString());
    }
    if (!ValidBucket(location.authority)) {
      return InvalidArgument("Invalid S3 bucket name '", location.authority, "' in ",
                             location.ToString());
    }
    return CheckKey(std::string_view(location.path).substr(1), location.ToString());
  }

  Result<AwsCredentials> Credentials() const {
    if (!config_.credentials.empty()) return config_.credentials;
    AwsCredentials credentials{arrow_options_.GetAccessKey(), arrow_options_.GetSecretKey(),
                               arrow_options_.GetSessionToken()};
    if (credentials.empty()) {
      return MakeError(ErrorKind::kForbidden,
                       "No S3 credentials: set s3.access-key-id and s3.secret-access-key, "
                       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in "
                       "~/.aws/credentials (AWS_PROFILE)");
    }
    return credentials;
  }

 private:
  S3FileIO(S3Config config, arrow::fs::S3Options arrow_options,
           std::shared_ptr<arrow::fs::S3FileSystem> fs)
      : config_(std::move(config)),
        arrow_options_(std::move(arrow_options)),
        fs_(std::move(fs)),
        client_(config_, [this] { return Credentials(); }) {}

  Result<arrow::fs::FileInfo> Stat(const ObjectName& name, std::string_view location) {
    return FromArrow(fs_->GetFileInfo(name.ArrowPath()), location);
  }

  // Stat of what must be an object: kNotFound when nothing is there,
  // kInvalidArgument for a "directory" (a prefix of other keys).
  Result<arrow::fs::FileInfo> StatFile(const ObjectName& name, std::string_view location) {
    SKADE_ASSIGN_OR_RAISE(auto info, Stat(name, location));
    if (info.type() == arrow::fs::FileType::NotFound) {
      return MakeError(ErrorKind::kNotFound, "File does not exist: ", location);
    }
    if (info.type() != arrow::fs::FileType::File) return InvalidArgument("Not a file: ", location);
    return info;
  }

  S3Config config_;
  arrow::fs::S3Options arrow_options_;
  std::shared_ptr<arrow::fs::S3FileSystem> fs_;
  S3Client client_;
  std::atomic<bool> conditional_supported_{true};
};

}  // namespace

Result<std::shared_ptr<io::FileIO>> NewS3FileIO(const io::FileIOProperties& properties) {
  return S3FileIO::Make(properties);
}

Result<CredentialsSource> NewCredentialsSource(const io::FileIOProperties& properties) {
  SKADE_ASSIGN_OR_RAISE(auto file_io, S3FileIO::Make(properties));
  return CredentialsSource([file_io]() -> Result<AwsCredentials> {
    return static_cast<const S3FileIO&>(*file_io).Credentials();
  });
}

void FinalizeS3() {
  if (arrow::fs::IsS3Initialized()) (void)arrow::fs::FinalizeS3();
}

void RegisterS3FileIO(io::FileIORegistry& registry) {
  registry.Register("s3", NewS3FileIO);
  registry.Register("s3a", NewS3FileIO);
}

}  // namespace skade::s3
