// ReadinessProbe: checks run in the background and Current() only reads
// their last results; a check that fails, throws or hangs makes the report
// not ready, saying which.
#include "skade/rest/readiness_probe.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <stdexcept>
#include <thread>

#include "skade/io/forwarding_file_io.h"
#include "testing/matchers.h"
#include "testing/memory_file_io.h"
#include "testing/temp_dir.h"

namespace skade::rest {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

TEST(ReadinessProbeTest, ReportsEachCheckAndShutdown) {
  std::atomic<bool> store_ok{true};
  auto probe = ReadinessProbe::Start({{"store",
                                       [&]() -> Status {
                                         if (store_ok) return OkStatus();
                                         return IoError("disk gone");
                                       }},
                                      {"warehouse", [] { return OkStatus(); }}},
                                     {.interval_ms = 3'600'000, .stale_after_ms = 3'600'000});
  ASSERT_TRUE(probe);
  ReadinessReport report = (*probe)->Current();
  EXPECT_TRUE(report.ready);
  ASSERT_EQ(report.checks.size(), 3u);
  EXPECT_EQ(report.checks[2].name, "shutdown");
  EXPECT_TRUE(ReadinessProbe::ToJson(report).starts_with(
      R"({"status":"ready","checks":[{"name":"store","status":"ok"},)"))
      << ReadinessProbe::ToJson(report);

  store_ok = false;
  EXPECT_TRUE((*probe)->Current().ready);  // the last round's results
  (*probe)->Refresh();
  report = (*probe)->Current();
  EXPECT_FALSE(report.ready);
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_EQ(report.checks[0].message, "disk gone");
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_NE(ReadinessProbe::ToJson(report).find(
                R"({"name":"store","status":"failed","message":"disk gone"})"),
            std::string::npos);

  store_ok = true;
  (*probe)->Refresh();
  EXPECT_TRUE((*probe)->Current().ready);
  (*probe)->BeginShutdown();
  report = (*probe)->Current();
  EXPECT_FALSE(report.ready);
  EXPECT_FALSE(report.checks.back().ok);
  EXPECT_TRUE((*probe)->shutting_down());
}

TEST(ReadinessProbeTest, AThrowingCheckFails) {
  auto probe =
      ReadinessProbe::Start({{"odd", []() -> Status { throw std::runtime_error("boom"); }}});
  ASSERT_TRUE(probe);
  ReadinessReport report = (*probe)->Current();
  EXPECT_FALSE(report.ready);
  EXPECT_EQ(report.checks[0].message, "the check threw: boom");
}

// A check that hangs holds the probe's thread only; once the results are
// older than the bound the report says so.
TEST(ReadinessProbeTest, AHungCheckMakesTheResultsStale) {
  std::atomic<int> calls{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto probe = ReadinessProbe::Start({{"disk",
                                       [&] {
                                         // The first round (in Start) passes; the next hangs.
                                         if (calls++ > 0) released.wait();
                                         return OkStatus();
                                       }}},
                                     {.interval_ms = 1, .stale_after_ms = 20});
  ASSERT_TRUE(probe);
  // No bound on how long this takes: it waits for the condition.
  ReadinessReport report;
  for (int i = 0; i < 60'000; ++i) {
    report = (*probe)->Current();
    if (!report.ready) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  release.set_value();
  ASSERT_FALSE(report.ready);
  ASSERT_FALSE(report.checks.empty());
  EXPECT_EQ(report.checks[0].name, "checks");
  EXPECT_TRUE(report.checks[0].message.starts_with("the checks have not completed for "))
      << report.checks[0].message;
}

// Regression: SIGTERM hung for good while the probe's thread sat in a check
// that never returned (a listing an S3 server kept paging): the probe's
// destructor joined it. It now waits a bounded time, then leaves it.
TEST(ReadinessProbeTest, AHungCheckDoesNotHoldUpShutdown) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> released = release->get_future().share();
  auto probe = ReadinessProbe::Start({{"warehouse",
                                       [calls, released] {
                                         if ((*calls)++ > 0) released.wait();
                                         return OkStatus();
                                       }}},
                                     {.interval_ms = 1});
  ASSERT_TRUE(probe);
  while (calls->load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto stopped = std::async(std::launch::async, [&] { probe->reset(); });
  // Far past the default stop wait (2 s); the old destructor never returned.
  const bool in_time = stopped.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  release->set_value();
  stopped.wait();
  EXPECT_TRUE(in_time);
}

// A FileIO whose listings never end, as from an S3 server that answers
// every ListObjectsV2 page with the same continuation token.
class EndlessListingFileIO : public io::ForwardingFileIO {
 public:
  EndlessListingFileIO() : ForwardingFileIO(std::make_shared<testing::MemoryFileIO>()) {}
  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    return IoError("listed ", location, " page after page, forever");
  }
};

// Regression: the warehouse check listed the whole root of an object store,
// following every page: a server that kept paging held it for good.
TEST(ReadinessProbeTest, TheWarehouseCheckOfAnObjectStoreListsNothing) {
  EndlessListingFileIO io;
  EXPECT_THAT(CheckWarehouseReachable(io, "s3://bucket/warehouse"), IsOk());
}

// Regression: a warehouse root replaced by a regular file was "ready", and
// every create then failed (400, blaming the client).
TEST(ReadinessProbeTest, ALocalWarehouseMustBeAWritableDirectory) {
  testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  EXPECT_THAT(CheckWarehouseReachable(*io, "file://" + dir.path()), IsOk());
  EXPECT_THAT(CheckWarehouseReachable(*io, "file://" + dir.Sub("missing")),
              IsError(ErrorKind::kIo));
  std::ofstream(dir.Sub("file")) << "not a directory";
  EXPECT_THAT(CheckWarehouseReachable(*io, "file://" + dir.Sub("file")),
              IsErrorWithMessage(ErrorKind::kIo, "is not a directory"));
}

TEST(ReadinessProbeTest, RefusesBadOptions) {
  EXPECT_THAT(ReadinessProbe::Start({{"x", nullptr}}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ReadinessProbe::Start({}, {.interval_ms = 0}), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::rest
