// The S3 FileIO against a real MinIO server: FileIO's promises (never
// overwrite, nothing left by a dropped or failed upload, errors by kind) as
// S3 keeps them.
#include "skade/s3/s3_file_io.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "s3/s3_environment.h"
#include "skade/s3/credential_vendor.h"
#include "testing/flaky_s3_proxy.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::s3 {
namespace {

using testing::IsError;
using testing::IsOk;
using testing::NewBucket;
using testing::S3Environment;

std::string Pattern(size_t size) {
  std::string out(size, '\0');
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return out;
}

class S3FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bucket_ = NewBucket();
    auto made = NewS3FileIO(S3Environment::server().Properties());
    ASSERT_TRUE(made) << made.error().ToString();
    io_ = *made;
  }

  std::string At(const std::string& key) const { return "s3://" + bucket_ + "/" + key; }

  // Multipart uploads of the bucket that were started and never completed.
  std::string IncompleteUploads() const {
    auto listed = S3Environment::server().Client()->Request("GET", bucket_, "", "uploads=", {}, "");
    EXPECT_TRUE(listed) << listed.error().ToString();
    if (!listed) return "";
    std::string out;
    for (size_t at = 0; (at = listed->body.find("<Key>", at)) != std::string::npos; at += 5) {
      out += listed->body.substr(at + 5, listed->body.find("</Key>", at) - at - 5) + " ";
    }
    return out;
  }

  std::string bucket_;
  std::shared_ptr<io::FileIO> io_;
};

TEST_F(S3FileIOTest, WritesReadsAndStats) {
  ASSERT_THAT(io_->WriteFile(At("t/metadata/00000-a.metadata.json"), "{\"x\":1}", true), IsOk());
  EXPECT_EQ(*io_->ReadFile(At("t/metadata/00000-a.metadata.json")), "{\"x\":1}");
  EXPECT_EQ(*io_->FileSize(At("t/metadata/00000-a.metadata.json")), 7);
  EXPECT_TRUE(*io_->Exists(At("t/metadata/00000-a.metadata.json")));
  EXPECT_TRUE(*io_->Exists(At("t/metadata")));  // a prefix: a "directory"
  EXPECT_FALSE(*io_->Exists(At("t/nothing")));
  EXPECT_THAT(io_->ReadFile(At("t/nothing")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io_->ReadFileUpTo(At("t/metadata/00000-a.metadata.json"), 6),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io_->ReadFile(At("t/metadata")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(*io_->ReadFileUpTo(At("t/metadata/00000-a.metadata.json"), 7), "{\"x\":1}");
  ASSERT_THAT(io_->WriteFile(At("t/empty"), "", true), IsOk());
  EXPECT_EQ(*io_->ReadFileUpTo(At("t/empty"), 10), "");  // an unsatisfiable range: empty
  EXPECT_EQ(*io_->ReadFile(At("t/empty")), "");
  // Keys are literal: no normalisation, odd characters survive.
  ASSERT_THAT(io_->WriteFile(At("t/data/a b+c%d=é.parquet"), "x", true), IsOk());
  EXPECT_EQ(*io_->ReadFile(At("t/data/a b+c%d=é.parquet")), "x");
}

TEST_F(S3FileIOTest, InputFileReadsRangesConcurrently) {
  std::string contents = Pattern(300000);
  ASSERT_THAT(io_->WriteFile(At("t/data/f.parquet"), contents, true), IsOk());
  auto file = io_->NewInputFile(At("t/data/f.parquet"));
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ((*file)->Size(), 300000);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::string out(10000, '\0');
      for (int64_t offset = t * 10000; offset < 300000; offset += 40000) {
        auto read = (*file)->ReadAt(offset, 10000, out.data());
        if (!read || *read != 10000 || out != contents.substr(offset, 10000)) ++mismatches;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  std::string out(100, '\0');
  EXPECT_EQ(*(*file)->ReadAt(299990, 100, out.data()), 10);
  EXPECT_EQ(out.substr(0, 10), contents.substr(299990));
  EXPECT_EQ(*(*file)->ReadAt(300000, 100, out.data()), 0);
  EXPECT_THAT((*file)->ReadAt(-1, 1, out.data()), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io_->NewInputFile(At("t/nothing")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io_->NewInputFile(At("t/data")), IsError(ErrorKind::kInvalidArgument));
}

TEST_F(S3FileIOTest, WriteFileNeverOverwrites) {
  ASSERT_THAT(io_->WriteFile(At("m.json"), "first", true), IsOk());
  EXPECT_THAT(io_->WriteFile(At("m.json"), "second", true), IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io_->ReadFile(At("m.json")), "first");
}

TEST_F(S3FileIOTest, OfConcurrentCreatesOfOneKeyExactlyOneWins) {
  // The server decides (If-None-Match): no check-then-put window.
  std::atomic<int> won{0}, refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto written = io_->WriteFile(At("race.json"), "writer " + std::to_string(i), true);
      if (written) {
        ++won;
      } else if (written.error().kind == ErrorKind::kAlreadyExists) {
        ++refused;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(refused.load(), 7);
}

TEST_F(S3FileIOTest, WithConditionalWritesOffAnExistingFileIsStillRefused) {
  auto properties = S3Environment::server().Properties();
  properties["s3.conditional-writes"] = "false";
  auto io = *NewS3FileIO(properties);
  ASSERT_THAT(io->WriteFile(At("m.json"), "first", true), IsOk());
  EXPECT_THAT(io->WriteFile(At("m.json"), "second", true), IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io->ReadFile(At("m.json")), "first");
}

TEST_F(S3FileIOTest, WithoutConditionalWritesOnTheServerFallsBackOrRefuses) {
  testing::FlakyS3Proxy proxy(S3Environment::server().port());
  proxy.RejectConditionalWrites();
  auto properties = S3Environment::server().Properties();
  properties["s3.endpoint"] = proxy.endpoint();
  auto io = *NewS3FileIO(properties);  // auto: checks with HEAD instead
  ASSERT_THAT(io->WriteFile(At("fallback.json"), "first", true), IsOk());
  EXPECT_THAT(io->WriteFile(At("fallback.json"), "second", true),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io->ReadFile(At("fallback.json")), "first");
  EXPECT_EQ(proxy.failures_served(), 1);  // detected once, then not asked again

  properties["s3.conditional-writes"] = "true";
  auto strict = *NewS3FileIO(properties);
  EXPECT_THAT(strict->WriteFile(At("strict.json"), "x", true), IsError(ErrorKind::kUnsupported));
  EXPECT_FALSE(*io_->Exists(At("strict.json")));
}

TEST_F(S3FileIOTest, StreamsALargeFileAsAMultipartUpload) {
  // Three full 10 MiB parts and a tail, written in uneven pieces.
  std::string contents = Pattern((31u << 20) + 12345);
  auto out = io_->NewOutputFile(At("t/data/big.parquet"), true);
  ASSERT_TRUE(out) << out.error().ToString();
  for (size_t at = 0; at < contents.size();) {
    size_t piece = std::min<size_t>(contents.size() - at, 1 + (at % 3'000'001));
    ASSERT_THAT((*out)->Write(std::string_view(contents).substr(at, piece)), IsOk());
    at += piece;
  }
  EXPECT_EQ((*out)->BytesWritten(), static_cast<int64_t>(contents.size()));
  EXPECT_FALSE(*io_->Exists(At("t/data/big.parquet")));  // visible only once complete
  ASSERT_THAT((*out)->Close(), IsOk());
  EXPECT_EQ(*io_->ReadFile(At("t/data/big.parquet")), contents);
  EXPECT_EQ(IncompleteUploads(), "");
}

TEST_F(S3FileIOTest, ASmallStreamIsOnePut) {
  auto out = io_->NewOutputFile(At("small.avro"), true);
  ASSERT_TRUE(out);
  ASSERT_THAT((*out)->Write("abc"), IsOk());
  ASSERT_THAT((*out)->Close(), IsOk());
  EXPECT_EQ(*io_->ReadFile(At("small.avro")), "abc");
  EXPECT_EQ(IncompleteUploads(), "");
}

TEST_F(S3FileIOTest, ADroppedUploadLeavesNothingBehind) {
  {
    auto out = io_->NewOutputFile(At("t/data/dropped.parquet"), true);
    ASSERT_TRUE(out);
    ASSERT_THAT((*out)->Write(Pattern(25u << 20)), IsOk());  // parts already sent
  }
  EXPECT_FALSE(*io_->Exists(At("t/data/dropped.parquet")));
  EXPECT_EQ(IncompleteUploads(), "");
}

TEST_F(S3FileIOTest, NewOutputFileRefusesAnExistingKey) {
  ASSERT_THAT(io_->WriteFile(At("x"), "1", true), IsOk());
  EXPECT_THAT(io_->NewOutputFile(At("x"), true), IsError(ErrorKind::kAlreadyExists));
}

TEST_F(S3FileIOTest, DeletesAndListsByPrefix) {
  ASSERT_THAT(io_->WriteFile(At("t/metadata/a.json"), "1", true), IsOk());
  ASSERT_THAT(io_->WriteFile(At("t/metadata/b.json"), "2", true), IsOk());
  ASSERT_THAT(io_->WriteFile(At("t/data/c.parquet"), "3", true), IsOk());
  auto names = io_->ListDirectory(At("t/metadata"));
  ASSERT_TRUE(names);
  std::sort(names->begin(), names->end());
  EXPECT_EQ(*names, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_TRUE(io_->ListDirectory(At("nothing/here"))->empty());
  ASSERT_THAT(io_->DeleteFile(At("t/metadata/a.json")), IsOk());
  EXPECT_FALSE(*io_->Exists(At("t/metadata/a.json")));
  EXPECT_THAT(io_->DeleteFile(At("t/metadata/a.json")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io_->RemoveEmptyDirectory(At("t/metadata")), IsOk());
  // Durable when written: nothing to sync, and no pretending otherwise.
  EXPECT_THAT(io_->SyncFiles({At("t/metadata/b.json")}), IsOk());
}

TEST_F(S3FileIOTest, AddressesOnlyS3Locations) {
  EXPECT_THAT(io_->CheckLocation(*io::Location::Parse("s3://" + bucket_ + "/t")), IsOk());
  EXPECT_THAT(io_->CheckLocation(*io::Location::Parse("s3a://" + bucket_ + "/t")), IsOk());
  EXPECT_THAT(io_->CheckLocation(*io::Location::Parse("file:///tmp/t")),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io_->CheckLocation(*io::Location::Parse("s3://Bad_Bucket/t")),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io_->ReadFile("s3://" + bucket_), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io_->WriteFile("s3://" + bucket_ + "/a/../b", "x", true),
              IsError(ErrorKind::kInvalidArgument));
}

// Regression: S3's 400 for a key the client chose (a 600-byte segment,
// which MinIO refuses as XMinioInvalidObjectName) was an I/O error, a 500.
TEST_F(S3FileIOTest, AKeyTheServerRefusesIsInvalidArgument) {
  auto written = io_->WriteFile(At("t/" + std::string(600, 'x') + "/m.json"), "x", true);
  ASSERT_THAT(written, IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(written.error().retryable);
}

// Regression: a key over S3's 1024 bytes, or with an empty segment ("//"),
// reached the server and came back a 500. Refused where locations are
// checked, and by every call, before any request.
TEST_F(S3FileIOTest, RefusesKeysS3CannotStore) {
  const std::string too_long = At("t/" + std::string(1100, 'k'));
  const std::string empty_segment = At("lake/ns//dbl");
  for (const std::string& location : {too_long, empty_segment, "s3://" + bucket_ + "//x"}) {
    SCOPED_TRACE(location.substr(0, 60));
    EXPECT_THAT(io_->CheckLocation(*io::Location::Parse(location)),
                IsError(ErrorKind::kInvalidArgument));
    EXPECT_THAT(io_->WriteFile(location, "x", true), IsError(ErrorKind::kInvalidArgument));
    EXPECT_THAT(io_->ReadFile(location + "/m.json"), IsError(ErrorKind::kInvalidArgument));
  }
  EXPECT_THAT(io_->CheckLocation(*io::Location::Parse(At("t/" + std::string(1000, 'k')))), IsOk());
  EXPECT_THAT(io_->CheckLocation(*io::Location::Parse(At("t/"))), IsOk());  // trailing '/'
}

// Regression: the server stored a conditional PUT but its answer was lost
// (a 5xx, a dropped connection); the retry got 412 and skade reported
// kAlreadyExists for its own file (and deleted it). The stored bytes tell.
TEST_F(S3FileIOTest, ARetriedCreateThatFindsItsOwnBytesSucceeds) {
  testing::FlakyS3Proxy proxy(S3Environment::server().port());
  auto properties = S3Environment::server().Properties();
  properties["s3.endpoint"] = proxy.endpoint();
  auto io = *NewS3FileIO(properties);
  proxy.LoseNextAnswers(1);
  EXPECT_THAT(io->WriteFile(At("m.json"), "mine", true), IsOk());
  EXPECT_EQ(proxy.failures_served(), 1);
  EXPECT_EQ(*io_->ReadFile(At("m.json")), "mine");

  // Someone else's bytes under the key are still someone else's.
  ASSERT_THAT(io_->WriteFile(At("theirs.json"), "theirs", true), IsOk());
  proxy.LoseNextAnswers(1);
  EXPECT_THAT(io->WriteFile(At("theirs.json"), "mine", true), IsError(ErrorKind::kAlreadyExists));
  // Not retried, a 412 is the server's word: no read to compare.
  EXPECT_THAT(io->WriteFile(At("theirs.json"), "theirs", true), IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io_->ReadFile(At("theirs.json")), "theirs");
}

TEST_F(S3FileIOTest, AMissingBucketIsNotFound) {
  EXPECT_THAT(io_->WriteFile("s3://no-such-bucket/m.json", "x", true),
              IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io_->ReadFile("s3://no-such-bucket/m.json"), IsError(ErrorKind::kNotFound));
}

// Regression: skade's own wrong secret was kForbidden, which the REST server
// answered 403 ForbiddenException (logged at INFO), as if the client had
// asked for something it may not have. Keys S3 does not accept fail every
// request, whoever asks: the server's configuration, a 5xx.
TEST_F(S3FileIOTest, AWrongSecretIsAnIoErrorNotForbidden) {
  auto properties = S3Environment::server().Properties();
  properties["s3.secret-access-key"] = "wrong-secret";
  auto io = *NewS3FileIO(properties);
  auto written = io->WriteFile(At("m.json"), "x", true);
  ASSERT_THAT(written, IsError(ErrorKind::kIo));
  EXPECT_FALSE(written.error().retryable);
  EXPECT_NE(written.error().message.find("SignatureDoesNotMatch"), std::string::npos);
  EXPECT_EQ(written.error().message.find("wrong-secret"), std::string::npos);
  EXPECT_THAT(io->ReadFile(At("m.json")), IsError(ErrorKind::kIo));
}

// Regression: STS refusing the server's keys reached a client that asked
// for vended credentials as 403 ForbiddenException.
TEST_F(S3FileIOTest, StsRefusingTheServersKeysIsAnIoError) {
  auto properties = S3Environment::server().Properties();
  properties["s3.secret-access-key"] = "wrong-secret";
  auto vendor = MakeCredentialVendor(properties, {VendingMode::kSts, 900, ""});
  ASSERT_TRUE(vendor) << vendor.error().ToString();
  auto vended = (*vendor)({At("t")}, false);
  ASSERT_THAT(vended, IsError(ErrorKind::kIo));
  EXPECT_NE(vended.error().message.find("STS"), std::string::npos);
}

// Regression: a server that accepts connections and never answers (MinIO
// frozen) held one request for max_attempts × the 30 s stall bound, four
// minutes, and the REST request that waited on it long past its own
// timeout. One operation now ends within s3.operation-timeout-ms.
TEST_F(S3FileIOTest, AStalledServerIsGivenUpWithinTheOperationTimeout) {
  // Listens, never accepts: connections complete in the kernel's backlog and
  // no byte ever comes back.
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ASSERT_EQ(::listen(listener, 64), 0);
  auto properties = S3Environment::server().Properties();
  properties["s3.endpoint"] = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  properties["s3.operation-timeout-ms"] = "2000";
  auto io = *NewS3FileIO(properties);
  const auto started = std::chrono::steady_clock::now();
  auto read = io->ReadFile("s3://b-stalled/m.json");
  const auto took = std::chrono::steady_clock::now() - started;
  ::close(listener);
  ASSERT_THAT(read, IsError(ErrorKind::kIo));
  EXPECT_TRUE(read.error().retryable);
  EXPECT_NE(read.error().message.find("S3 did not answer within 2 s"), std::string::npos)
      << read.error().message;
  // Generous: the old bound was minutes.
  EXPECT_LT(took, std::chrono::seconds(25));
}

TEST_F(S3FileIOTest, AnUnreachableServerIsARetryableIoError) {
  auto properties = S3Environment::server().Properties();
  properties["s3.endpoint"] = "http://127.0.0.1:1";
  properties["s3.retry.max-attempts"] = "2";
  auto io = *NewS3FileIO(properties);
  auto written = io->WriteFile("s3://b-unreachable/m.json", "x", true);
  ASSERT_THAT(written, IsError(ErrorKind::kIo));
  EXPECT_TRUE(written.error().retryable);
}

TEST_F(S3FileIOTest, RetriesThrottlingAndServerErrors) {
  testing::FlakyS3Proxy proxy(S3Environment::server().port());
  auto properties = S3Environment::server().Properties();
  properties["s3.endpoint"] = proxy.endpoint();
  auto io = *NewS3FileIO(properties);
  proxy.FailNext(2, 503);  // skade's own signed PUT
  ASSERT_THAT(io->WriteFile(At("retried.json"), "x", true), IsOk());
  EXPECT_EQ(proxy.failures_served(), 2);
  proxy.FailNext(2, 500);  // Arrow's HEAD and GET
  EXPECT_EQ(*io->ReadFile(At("retried.json")), "x");
  EXPECT_EQ(proxy.failures_served(), 4);

  properties["s3.retry.max-attempts"] = "2";
  auto impatient = *NewS3FileIO(properties);
  proxy.FailNext(5, 503);
  auto written = impatient->WriteFile(At("given-up.json"), "x", true);
  ASSERT_THAT(written, IsError(ErrorKind::kIo));
  EXPECT_TRUE(written.error().retryable);
  EXPECT_EQ(proxy.failures_served(), 6);
}

TEST_F(S3FileIOTest, WriteFilesSendsThePutsAtOnce) {
  testing::FlakyS3Proxy proxy(S3Environment::server().port());
  auto properties = S3Environment::server().Properties();
  properties["s3.endpoint"] = proxy.endpoint();
  auto io = *NewS3FileIO(properties);
  std::vector<io::NewFile> files;
  for (int i = 0; i < 4; ++i) {
    files.push_back({At("t/metadata/m" + std::to_string(i) + ".avro"), Pattern(1000 + i), false});
  }
  // Sent one after another, each would wait 10 s alone in the proxy.
  proxy.HoldUntilConcurrent(4);
  ASSERT_THAT(io->WriteFiles(files), IsOk());
  EXPECT_EQ(proxy.most_held(), 4);
  for (const io::NewFile& file : files) EXPECT_EQ(*io_->ReadFile(file.location), file.contents);

  // Each file is still created only if absent; the first error is returned.
  files[2].contents = "other";
  EXPECT_THAT(io_->WriteFiles({files[2]}), IsError(ErrorKind::kAlreadyExists));
  files.push_back({At("t/metadata/new.avro"), "new", false});
  EXPECT_THAT(io_->WriteFiles(files), IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io_->ReadFile(At("t/metadata/new.avro")), "new");
  EXPECT_EQ(*io_->ReadFile(files[2].location), Pattern(1002));
}

// Credentials from the environment, then from a profile file, as AWS tools
// read them.
TEST_F(S3FileIOTest, TakesCredentialsFromTheEnvironmentAndFromAProfile) {
  auto properties = S3Environment::server().Properties();
  properties.erase("s3.access-key-id");
  properties.erase("s3.secret-access-key");
  setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  setenv("AWS_ACCESS_KEY_ID", testing::MinioServer::kAccessKey, 1);
  setenv("AWS_SECRET_ACCESS_KEY", S3Environment::server().secret_key().c_str(), 1);
  {
    auto io = NewS3FileIO(properties);
    ASSERT_TRUE(io);
    EXPECT_THAT((*io)->WriteFile(At("from-env.json"), "x", true), IsOk());
  }
  unsetenv("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_SECRET_ACCESS_KEY");
  testing::TempDir home;
  std::ofstream(home.Sub("credentials"))
      << "[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n"
      << "[skade-test]\naws_access_key_id = " << testing::MinioServer::kAccessKey
      << "\naws_secret_access_key = " << S3Environment::server().secret_key() << "\n";
  setenv("AWS_SHARED_CREDENTIALS_FILE", home.Sub("credentials").c_str(), 1);
  setenv("AWS_CONFIG_FILE", home.Sub("config").c_str(), 1);
  setenv("AWS_PROFILE", "skade-test", 1);
  {
    auto io = NewS3FileIO(properties);
    ASSERT_TRUE(io);
    EXPECT_THAT((*io)->WriteFile(At("from-profile.json"), "x", true), IsOk());
  }
  unsetenv("AWS_SHARED_CREDENTIALS_FILE");
  unsetenv("AWS_CONFIG_FILE");
  unsetenv("AWS_PROFILE");
}

TEST_F(S3FileIOTest, RegistersForS3AndS3a) {
  io::FileIORegistry registry;
  RegisterS3FileIO(registry);
  EXPECT_EQ(registry.schemes(), (std::vector<std::string>{"s3", "s3a"}));
  auto io = registry.Create("s3a://" + bucket_ + "/w", S3Environment::server().Properties());
  ASSERT_TRUE(io);
  ASSERT_THAT((*io)->WriteFile("s3a://" + bucket_ + "/w/x", "1", true), IsOk());
  EXPECT_EQ(*io_->ReadFile(At("w/x")), "1");  // the same object either way
}

}  // namespace
}  // namespace skade::s3
