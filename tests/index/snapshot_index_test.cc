// SnapshotIndex against a plain map of the same commit log, and its file.
#include "skade/index/snapshot_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>

#include "skade/index/snapshot_index_file.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::index {
namespace {

using testing::IsError;
using testing::IsOk;

struct Commit {
  uint64_t seq;
  store::CommitLogRecord record;
};

// The reference: the first commit's location of each (table, snapshot).
std::map<SnapshotIndexKey, std::string> Reference(const std::vector<Commit>& log) {
  std::map<SnapshotIndexKey, std::string> reference;
  for (const auto& commit : log) {
    for (int64_t id : commit.record.added_snapshot_ids) {
      reference.emplace(SnapshotIndexKey{commit.record.table_id, id},
                        commit.record.metadata_location);
    }
  }
  return reference;
}

// A log over few tables with colliding ids: equal snapshot ids in several
// tables, ids reused by one table, the extremes, commits without snapshots.
std::vector<Commit> AdversarialLog(size_t commits, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<int64_t> pool = {0, 1, std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min(), -1};
  std::vector<Commit> log;
  for (uint64_t seq = 1; seq <= commits; ++seq) {
    store::CommitLogRecord record;
    record.table_id = 1 + random() % 4;
    record.metadata_location = "file:///w/t" + std::to_string(record.table_id) + "/metadata/" +
                               std::to_string(seq) + ".metadata.json";
    size_t added = random() % 4;  // 0: a commit without snapshots
    for (size_t i = 0; i < added; ++i) {
      int64_t id =
          random() % 3 == 0 ? pool[random() % pool.size()] : static_cast<int64_t>(random() >> 1);
      record.added_snapshot_ids.push_back(id);
      if (random() % 5 == 0) pool.push_back(id);
    }
    log.push_back({seq, std::move(record)});
  }
  return log;
}

std::unique_ptr<const SnapshotIndex> Build(const SnapshotIndex* base,
                                           std::span<const Commit> commits) {
  SnapshotIndexBuilder builder(base);
  for (const auto& commit : commits) EXPECT_THAT(builder.Add(commit.seq, commit.record), IsOk());
  auto built = builder.Finish();
  EXPECT_TRUE(built) << built.error().ToString();
  return built ? std::move(*built) : nullptr;
}

// Every key of the reference, and absent neighbours, single and batched.
void ExpectAnswers(const SnapshotIndex& index,
                   const std::map<SnapshotIndexKey, std::string>& reference) {
  std::vector<SnapshotIndexKey> probes;
  for (const auto& [key, location] : reference) {
    probes.push_back(key);
    probes.push_back({key.first + 10, key.second});  // same id, another table
    probes.push_back({key.first, key.second + 1});
    probes.push_back({key.first, key.second - 1});
  }
  probes.push_back({1, std::numeric_limits<int64_t>::max()});
  probes.push_back({0, 0});
  std::vector<std::optional<std::string_view>> batch(probes.size());
  index.FindBatch(probes, batch);
  for (size_t i = 0; i < probes.size(); ++i) {
    auto it = reference.find(probes[i]);
    auto single = index.Find(probes[i].first, probes[i].second);
    if (it == reference.end()) {
      EXPECT_FALSE(single) << probes[i].first << "/" << probes[i].second;
    } else {
      ASSERT_TRUE(single) << probes[i].first << "/" << probes[i].second;
      EXPECT_EQ(*single, it->second);
    }
    EXPECT_EQ(batch[i], single);
  }
}

TEST(SnapshotIndexTest, AnswersAsTheReferenceOnAdversarialLogs) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    auto log = AdversarialLog(2000, seed);
    auto index = Build(nullptr, log);
    ASSERT_TRUE(index);
    EXPECT_EQ(index->covered_seq(), 2000u);
    EXPECT_EQ(index->covered_location(), log.back().record.metadata_location);
    auto reference = Reference(log);
    EXPECT_EQ(index->size(), reference.size());
    ExpectAnswers(*index, reference);
  }
}

TEST(SnapshotIndexTest, EmptyAndSnapshotlessLogs) {
  auto empty = Build(nullptr, {});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(empty->covered_seq(), 0u);
  EXPECT_FALSE(empty->Find(1, 1));

  std::vector<Commit> log = {{1, {1, "file:///a/1.json", {}, 0}},
                             {2, {1, "file:///a/2.json", {}, 0}}};
  auto snapshotless = Build(nullptr, log);
  ASSERT_TRUE(snapshotless);
  EXPECT_EQ(snapshotless->size(), 0u);
  EXPECT_EQ(snapshotless->covered_seq(), 2u);
  EXPECT_FALSE(snapshotless->Find(1, 0));
}

TEST(SnapshotIndexTest, ExtendingABaseEqualsBuildingAtOnce) {
  auto log = AdversarialLog(3000, 7);
  auto reference = Reference(log);
  auto base = Build(nullptr, std::span(log).first(1000));
  ASSERT_TRUE(base);
  auto middle = Build(base.get(), std::span(log).subspan(1000, 1500));
  ASSERT_TRUE(middle);
  auto whole = Build(middle.get(), std::span(log).subspan(2500));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->covered_seq(), 3000u);
  EXPECT_EQ(whole->size(), reference.size());
  ExpectAnswers(*whole, reference);
  // The base still answers for its own part of the log.
  ExpectAnswers(*base, Reference({log.begin(), log.begin() + 1000}));
}

TEST(SnapshotIndexTest, CommitsMustFollowTheBase) {
  auto log = AdversarialLog(10, 9);
  auto base = Build(nullptr, log);
  SnapshotIndexBuilder builder(base.get());
  EXPECT_THAT(builder.Add(10, log.back().record), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(builder.Add(11, log.back().record), IsOk());
  EXPECT_THAT(builder.Add(11, log.back().record), IsError(ErrorKind::kInvalidArgument));
}

class SnapshotIndexFileTest : public ::testing::Test {
 protected:
  std::string Write(const SnapshotIndex& index) {
    auto written = WriteSnapshotIndexFile(*io_, dir_.path(), index);
    EXPECT_TRUE(written) << written.error().ToString();
    return written ? *written : std::string();
  }

  testing::TempDir dir_;
  std::shared_ptr<io::FileIO> io_ = io::NewLocalFileIO();
};

TEST_F(SnapshotIndexFileTest, AMappedFileAnswersAsTheBuiltIndex) {
  auto log = AdversarialLog(5000, 11);
  auto built = Build(nullptr, log);
  std::string location = Write(*built);
  EXPECT_EQ(location, SnapshotIndexFileLocation(dir_.path(), 5000));
  auto mapped = OpenSnapshotIndexFile(location);
  ASSERT_TRUE(mapped) << mapped.error().ToString();
  EXPECT_EQ((*mapped)->covered_seq(), 5000u);
  EXPECT_EQ((*mapped)->covered_location(), built->covered_location());
  ExpectAnswers(**mapped, Reference(log));
  // A mapped index is a base like any other.
  auto more = AdversarialLog(5100, 11);
  auto extended = Build(mapped->get(), std::span(more).subspan(5000));
  ExpectAnswers(*extended, Reference(more));
  // Writing the same covered_seq again keeps the file (another process's).
  EXPECT_EQ(Write(*built), location);
}

TEST_F(SnapshotIndexFileTest, EmptyIndexRoundTrips) {
  auto empty = Build(nullptr, {});
  auto mapped = OpenSnapshotIndexFile(Write(*empty));
  ASSERT_TRUE(mapped) << mapped.error().ToString();
  EXPECT_EQ((*mapped)->size(), 0u);
  EXPECT_FALSE((*mapped)->Find(1, 1));
}

TEST_F(SnapshotIndexFileTest, DamagedFilesAreRefused) {
  auto built = Build(nullptr, AdversarialLog(500, 13));
  std::string location = Write(*built);
  std::string path = *io::LocalPath(location);
  std::string bytes = *io_->ReadFile(location);
  auto rewrite = [&](const std::string& contents) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
  };
  // Every byte matters: flip one in the header, the tree, the payload.
  for (size_t at : {size_t{3}, size_t{20}, size_t{70}, bytes.size() / 2, bytes.size() - 1}) {
    std::string flipped = bytes;
    flipped[at] ^= 0x40;
    rewrite(flipped);
    EXPECT_THAT(OpenSnapshotIndexFile(location), IsError(ErrorKind::kCorruption)) << at;
  }
  for (size_t size : {size_t{0}, size_t{10}, size_t{64}, bytes.size() - 8}) {
    rewrite(bytes.substr(0, size));
    EXPECT_THAT(OpenSnapshotIndexFile(location), IsError(ErrorKind::kCorruption)) << size;
  }
  rewrite(bytes + "x");
  EXPECT_THAT(OpenSnapshotIndexFile(location), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(OpenSnapshotIndexFile(dir_.Sub("missing.sidx")), IsError(ErrorKind::kNotFound));
}

TEST_F(SnapshotIndexFileTest, ListsIndexFilesNewestFirstAndIgnoresOthers) {
  auto log = AdversarialLog(30, 17);
  Write(*Build(nullptr, std::span(log).first(10)));
  Write(*Build(nullptr, log));
  std::ofstream(dir_.Sub("snapshot-index-x.sidx")) << "x";
  std::ofstream(dir_.Sub("data.mdb")) << "x";
  auto files = ListSnapshotIndexFiles(*io_, dir_.path());
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].first, 30u);
  EXPECT_EQ((*files)[1].first, 10u);
}

}  // namespace
}  // namespace skade::index
