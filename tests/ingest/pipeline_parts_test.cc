// The pipeline's building blocks: the encoder, the bounded queue, the ordered
// write stage and the choice of snapshot.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "ingest_test_util.h"
#include "skade/data/fanout_data_writer.h"
#include "skade/ingest/bounded_queue.h"
#include "skade/ingest/data_file_encoder_internal.h"
#include "skade/ingest/ordered_writer_internal.h"
#include "skade/ingest/snapshot_action_internal.h"
#include "testing/memory_file_io.h"

namespace skade::ingest {
namespace {

using testing::HookedFileIO;
using testing::IsError;
using testing::IsOk;

TEST(BoundedQueueTest, BlocksAtCapacityAndDrainsAfterClose) {
  BoundedQueue<int> queue(2);
  ASSERT_TRUE(queue.Push(1));
  ASSERT_TRUE(queue.Push(2));
  std::atomic<bool> third_pushed{false};
  std::thread producer([&] {
    queue.Push(3);
    third_pushed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_pushed.load());  // backpressure
  EXPECT_EQ(queue.Pop(), 1);
  producer.join();
  EXPECT_TRUE(third_pushed.load());
  queue.Close();
  EXPECT_FALSE(queue.Push(4));
  EXPECT_EQ(queue.Pop(), 2);
  EXPECT_EQ(queue.Pop(), 3);
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

TEST(BoundedQueueTest, AbortDropsWhatIsLeftAndWakesProducers) {
  BoundedQueue<int> queue(1);
  ASSERT_TRUE(queue.Push(1));
  std::thread producer([&] { EXPECT_FALSE(queue.Push(2)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.Abort();
  producer.join();
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

class OrderedWriterTest : public ::testing::Test {
 protected:
  std::vector<FileToWrite> Files(int n) {
    bytes_.resize(n);
    std::vector<FileToWrite> files;
    for (int i = 0; i < n; ++i) {
      bytes_[i] = StrCat("file ", i);
      files.push_back({dir_.Sub(StrCat("f", i)), &bytes_[i]});
    }
    return files;
  }

  skade::testing::TempDir dir_;
  std::vector<std::string> bytes_;
};

TEST_F(OrderedWriterTest, DeliversInSubmissionOrderWithBoundedWritesInFlight) {
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};
  // Later files finish first within each window, so completions arrive
  // out of order.
  HookedFileIO io([&](std::string_view location) -> Status {
    int now = ++in_flight;
    int seen = most_in_flight.load();
    while (now > seen && !most_in_flight.compare_exchange_weak(seen, now)) {
    }
    int index = std::stoi(std::string(location.substr(location.rfind('f') + 1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * (4 - index % 4)));
    --in_flight;
    return OkStatus();
  });
  auto files = Files(24);
  std::vector<size_t> delivered;
  std::vector<uint8_t> stored;
  ASSERT_THAT(WriteInOrder(
                  io, false, files, 4, {},
                  [&](size_t i) {
                    delivered.push_back(i);
                    return OkStatus();
                  },
                  &stored),
              IsOk());
  std::vector<size_t> expected(24);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  EXPECT_EQ(delivered, expected);
  EXPECT_LE(most_in_flight.load(), 4);
  EXPECT_GE(most_in_flight.load(), 2);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(*io.ReadFile(files[i].location), bytes_[i]);
}

TEST_F(OrderedWriterTest, StopsAtTheFirstFailureInOrder) {
  HookedFileIO io(testing::FailNthWrite("/f7", 1));
  auto files = Files(30);
  std::vector<size_t> delivered;
  std::vector<uint8_t> stored;
  Status status = WriteInOrder(
      io, false, files, 3, {},
      [&](size_t i) {
        delivered.push_back(i);
        return OkStatus();
      },
      &stored);
  EXPECT_THAT(status, IsError(ErrorKind::kIo));
  EXPECT_EQ(delivered.size(), 7u);  // 0-6, every file before the failure
  EXPECT_FALSE(stored[7]);
  for (size_t i = 10; i < files.size(); ++i) EXPECT_FALSE(stored[i]) << i;  // never started
}

TEST_F(OrderedWriterTest, ABlockedConsumerHoldsBackNewWrites) {
  std::atomic<int> writes{0};
  HookedFileIO io([&](std::string_view) -> Status {
    ++writes;
    return OkStatus();
  });
  auto files = Files(20);
  std::vector<uint8_t> stored;
  ASSERT_THAT(WriteInOrder(
                  io, false, files, 2, {},
                  [&](size_t i) {
                    if (i == 0) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(50));
                      EXPECT_LE(writes.load(), 2);  // the window is full
                    }
                    return OkStatus();
                  },
                  &stored),
              IsOk());
  EXPECT_EQ(writes.load(), 20);
}

TEST(DataFileEncoderTest, YieldsEachFileOnceAsStartedWithTheFileWritersBytes) {
  auto schema = testing::EventSchema();
  auto spec = testing::RegionSpec();
  data::DataWriterOptions options;
  options.target_file_size_bytes = 20000;  // every partition rolls
  RecordBatchGroup group;
  for (int i = 0; i < 6; ++i) {
    for (auto& batch : testing::EventGroup(i * 1000, 1000, 1)) group.push_back(batch);
  }
  auto encoded = DataFileEncoder(schema, spec, options).Encode(group);
  ASSERT_THAT(encoded, IsOk());

  // The same rows through the file writer, into files named as it starts
  // them.
  auto memory = std::make_shared<skade::testing::MemoryFileIO>();
  std::vector<std::string> started;
  auto writer = data::FanoutDataWriter::Make(
      memory, schema, spec, options, [&](const std::vector<spec::Literal>&) -> Result<std::string> {
        started.push_back(StrCat("f", started.size()));
        return started.back();
      });
  ASSERT_THAT(writer, IsOk());
  for (const auto& batch : group) ASSERT_THAT((*writer)->Write(batch), IsOk());
  auto written = (*writer)->Close();
  ASSERT_THAT(written, IsOk());
  std::map<std::string, spec::DataFile> by_location;
  for (const spec::DataFile& file : *written) by_location[file.file_path] = file;

  ASSERT_GT(started.size(), 3u);
  ASSERT_EQ(encoded->size(), started.size());
  bool reordered = false;  // the writer lists files by partition, not as started
  for (size_t i = 0; i < started.size(); ++i) {
    const EncodedFile& file = (*encoded)[i];
    const spec::DataFile& expected = by_location.at(started[i]);
    EXPECT_TRUE(file.data_file.file_path.empty()) << i;
    EXPECT_EQ(file.bytes, *memory->ReadFile(started[i])) << i;
    EXPECT_EQ(file.data_file.partition, expected.partition) << i;
    EXPECT_EQ(file.data_file.record_count, expected.record_count) << i;
    EXPECT_EQ(file.data_file.file_size_in_bytes, static_cast<int64_t>(file.bytes.size())) << i;
    EXPECT_EQ(file.partition_path,
              "region=" + std::get<std::string>(expected.partition.at(0).value()));
    if ((*written)[i].file_path != started[i]) reordered = true;
  }
  EXPECT_TRUE(reordered);
}

TEST(SnapshotActionTest, ReplacesEachPartitionOnceAcrossSnapshots) {
  const spec::PartitionSpecPtr region_spec = testing::RegionSpec();
  const spec::PartitionSpec& spec = *region_spec;
  auto file = [](const char* region) {
    spec::DataFile data_file;
    data_file.partition = {spec::Literal::String(region)};
    return data_file;
  };
  auto region = [](const char* name) { return std::vector{spec::Literal::String(name)}; };
  SnapshotAction action;
  action.replace_partitions = true;
  ReplacedPartitions replaced;
  auto first = action.Replacing({file("eu"), file("us"), file("eu")}, &replaced);
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->Matches(spec, region("eu")));
  EXPECT_TRUE(first->Matches(spec, region("us")));
  EXPECT_FALSE(first->Matches(spec, region("ap")));
  // A later snapshot replaces only the partitions it is the first to reach.
  auto second = action.Replacing({file("eu"), file("ap")}, &replaced);
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(second->Matches(spec, region("eu")));
  EXPECT_TRUE(second->Matches(spec, region("ap")));
  EXPECT_FALSE(action.Replacing({file("us")}, &replaced).has_value());  // an append
  EXPECT_FALSE(SnapshotAction{}.Replacing({file("us")}, &replaced).has_value());
  // An overwrite filter replaces whatever it matches, in every snapshot.
  action.overwrite = table::PartitionFilter::All();
  auto both = action.Replacing({file("us")}, &replaced);
  ASSERT_TRUE(both.has_value());
  EXPECT_TRUE(both->Matches(spec, region("ap")));
}

}  // namespace
}  // namespace skade::ingest
