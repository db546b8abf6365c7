// Writing metadata reuses the text of what did not change since the version
// it was built from (table_metadata_json.h). These tests hold the reusing
// writer to what a fresh serialization gives, byte for byte, over random
// commit sequences, and the memoized `snapshots=refs` form to the uncached
// one.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <thread>

#include "skade/spec/table_metadata_builder.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/spec/table_properties.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsOk;

// The oracle: the reused bytes must decode to exactly `metadata`, and be
// what the serializer writes for that content when nothing can be reused
// (a parsed object has no memo).
void ExpectSameAsFresh(const TableMetadata& metadata, const std::string& json) {
  auto parsed = TableMetadataFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE((*parsed)->Equals(metadata)) << json.substr(0, 2000);
  ASSERT_FALSE((*parsed)->serialized_form_memo().parts());
  EXPECT_EQ(TableMetadataToJson(**parsed), json);
}

// Random commits on one table, as a long-lived table sees them.
class RandomHistory {
 public:
  RandomHistory(uint64_t seed, int format_version) : random_(seed), version_(format_version) {
    auto builder = TableMetadataBuilder::BuildFromEmpty(format_version);
    EXPECT_THAT(builder.SetLocation("s3://bucket/wh/db/t"), IsOk());
    EXPECT_THAT(builder.AddSchema(SchemaWithColumns(2)), IsOk());
    EXPECT_THAT(builder.SetCurrentSchema(-1), IsOk());
    EXPECT_THAT(builder.AddPartitionSpec(std::make_shared<PartitionSpec>()), IsOk());
    EXPECT_THAT(builder.SetDefaultSpec(-1), IsOk());
    EXPECT_THAT(builder.AddSortOrder(SortOrder::Unsorted()), IsOk());
    EXPECT_THAT(builder.SetDefaultSortOrder(-1), IsOk());
    auto built = builder.Build();
    EXPECT_THAT(built, IsOk());
    current_ = *built;
  }

  const TableMetadataPtr& current() const { return current_; }
  int commits() const { return commits_; }

  // One commit of 1-3 random updates; returns the new metadata.
  TableMetadataPtr Commit() {
    auto builder = TableMetadataBuilder::BuildFrom(
        current_, StrCat(current_->location, "/metadata/v", commits_, ".metadata.json"));
    int updates = 1 + Pick(3);
    removed_in_commit_ = false;
    for (int i = 0; i < updates; ++i) Apply(builder);
    auto built = builder.Build();
    EXPECT_THAT(built, IsOk());
    if (built) current_ = *built;
    ++commits_;
    return current_;
  }

 private:
  int Pick(int bound) { return std::uniform_int_distribution<int>(0, bound - 1)(random_); }

  static SchemaPtr SchemaWithColumns(int columns) {
    std::vector<NestedField> fields;
    for (int id = 1; id <= columns; ++id) {
      fields.push_back(
          NestedField{id, StrCat("c", id), id == 1 ? Type::Long() : Type::String(), id == 1});
    }
    return std::make_shared<const Schema>(0, fields);
  }

  void AddSnapshots(TableMetadataBuilder& builder, const TableMetadata& base) {
    int count = 1 + Pick(4);
    bool every = Pick(2) == 0;
    for (int i = 0; i < count; ++i) {
      auto snapshot = std::make_shared<Snapshot>();
      snapshot->snapshot_id = next_snapshot_id_++;
      snapshot->parent_snapshot_id = last_added_;
      if (version_ >= 2) snapshot->sequence_number = ++sequence_number_;
      snapshot->timestamp_ms = 1700000000000 + snapshot->snapshot_id;
      snapshot->manifest_list = StrCat("s3://bucket/wh/db/t/metadata/snap-", snapshot->snapshot_id,
                                       "-1-\"quoted\\name\".avro");
      snapshot->summary = {{"operation", Pick(2) ? "append" : "overwrite"},
                           {"added-records", StrCat(Pick(1000))}};
      snapshot->schema_id = base.current_schema_id;
      if (version_ >= 3) {
        snapshot->first_row_id = next_row_id_;
        snapshot->added_rows = 10;
        next_row_id_ += 10;
      }
      ASSERT_THAT(builder.AddSnapshot(snapshot), IsOk());
      last_added_ = snapshot->snapshot_id;
      if (every || i + 1 == count) {
        ASSERT_THAT(builder.SetRef(kMainBranch, SnapshotRef{snapshot->snapshot_id}), IsOk());
      }
    }
  }

  void Apply(TableMetadataBuilder& builder) {
    // The builder's view so far is not public; the updates below only need
    // what the last commit left (and the snapshots this commit added).
    const TableMetadata& base = *current_;
    switch (Pick(9)) {
      case 0:
      case 1:
      case 2:
        AddSnapshots(builder, base);
        break;
      case 3: {  // expire: the oldest few, or a random one
        std::vector<int64_t> ids;
        for (const auto& snapshot : base.snapshots) {
          if (snapshot->snapshot_id == base.current_snapshot_id) continue;
          if (ids.size() < 3 || Pick(10) == 0) ids.push_back(snapshot->snapshot_id);
        }
        if (Pick(2) == 0 && ids.size() > 1) ids.erase(ids.begin());  // a gap in the middle
        ASSERT_THAT(builder.RemoveSnapshots(ids), IsOk());
        removed_in_commit_ = true;
        break;
      }
      case 4: {  // a tag or branch on a random snapshot
        if (base.snapshots.empty() || removed_in_commit_) break;
        const auto& target = base.snapshots[Pick(static_cast<int>(base.snapshots.size()))];
        SnapshotRef ref{target->snapshot_id,
                        Pick(2) ? SnapshotRefType::kTag : SnapshotRefType::kBranch};
        ASSERT_THAT(builder.SetRef(StrCat("ref", Pick(4)), ref), IsOk());
        break;
      }
      case 5:
        ASSERT_THAT(builder.SetProperties({{StrCat("p", Pick(5)), StrCat(Pick(100))}}), IsOk());
        break;
      case 6:  // a short metadata-log, so that it is trimmed at the front
        ASSERT_THAT(
            builder.SetProperties({{std::string(kPreviousVersionsMax), StrCat(2 + Pick(4))}}),
            IsOk());
        break;
      case 7:
        ASSERT_THAT(builder.AddSchema(SchemaWithColumns(base.last_column_id + 1)), IsOk());
        ASSERT_THAT(builder.SetCurrentSchema(-1), IsOk());
        break;
      case 8:  // snapshots are written per format version
        if (Pick(4) == 0 && version_ < 3) {
          ++version_;
          if (version_ == 3) next_row_id_ = 0;
          ASSERT_THAT(builder.UpgradeFormatVersion(version_), IsOk());
        }
        break;
    }
  }

  std::mt19937_64 random_;
  int version_;  // as of the updates applied so far
  bool removed_in_commit_ = false;
  TableMetadataPtr current_;
  int commits_ = 0;
  int64_t next_snapshot_id_ = 1000;
  std::optional<int64_t> last_added_;
  int64_t sequence_number_ = 0;
  int64_t next_row_id_ = 0;
};

TEST(TableMetadataJsonReuseTest, RandomCommitSequencesWriteWhatAFreshWriterWrites) {
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    RandomHistory history(seed, 1 + static_cast<int>(seed % 3));
    std::string json = TableMetadataToJson(*history.current());
    for (int step = 0; step < 60; ++step) {
      SCOPED_TRACE(StrCat("commit ", history.commits()));
      auto metadata = history.Commit();
      // Both writers, in turn: one keeps a copy, the other shares its text.
      json = step % 2 ? TableMetadataToJson(*metadata) : *TableMetadataToSharedJson(*metadata);
      ASSERT_NO_FATAL_FAILURE(ExpectSameAsFresh(*metadata, json));
      // Again from its own memo.
      EXPECT_EQ(TableMetadataToJson(*metadata), json);
      EXPECT_EQ(*TableMetadataToSharedJson(*metadata), json);
    }
  }
}

// Where the writer copies the previous version's text it says so
// (CopiedText), and the store's journal copies those runs without comparing
// them (util/copy_delta.h): every run it reports holds exactly those bytes.
TEST(TableMetadataJsonReuseTest, CopiedRunsHoldThePreviousVersionsBytes) {
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    RandomHistory history(seed, 1 + static_cast<int>(seed % 3));
    std::shared_ptr<const std::string> previous = TableMetadataToSharedJson(*history.current());
    size_t copied_bytes = 0;
    for (int step = 0; step < 60; ++step) {
      SCOPED_TRACE(StrCat("commit ", history.commits()));
      auto metadata = history.Commit();
      CopiedText copied;
      auto json = TableMetadataToSharedJson(*metadata, &copied);
      if (copied.from) {
        EXPECT_EQ(copied.from, previous);
        size_t target_end = 0;
        size_t base_end = 0;
        for (const CopySpan& run : copied.runs) {
          ASSERT_GE(run.target, target_end);
          ASSERT_GE(run.base, base_end);
          ASSERT_LE(run.target + run.length, json->size());
          ASSERT_LE(run.base + run.length, previous->size());
          EXPECT_EQ(json->substr(run.target, run.length), previous->substr(run.base, run.length));
          target_end = run.target + run.length;
          base_end = run.base + run.length;
          copied_bytes += run.length;
        }
        std::string delta = EncodeCopyDeltaAlong(*previous, *json, copied.runs, SIZE_MAX);
        auto rebuilt = ApplyCopyDelta(delta, *previous, json->size());
        ASSERT_THAT(rebuilt, IsOk());
        EXPECT_EQ(*rebuilt, *json);
      } else {
        EXPECT_TRUE(copied.runs.empty());
      }
      previous = json;
    }
    EXPECT_GT(copied_bytes, 0u);
  }
}

// Appends keep the snapshot index of the version they were built from and
// look up the snapshots appended since by scanning
// (TableMetadata::FinalizeAppended): every snapshot is found, after many
// appends past the scan's limit, expiries and format upgrades alike.
TEST(TableMetadataJsonReuseTest, EverySnapshotIsFoundByItsId) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    RandomHistory history(seed, 2);
    for (int step = 0; step < 150; ++step) {
      auto metadata = history.Commit();
      std::set<int64_t> ids;
      for (const auto& snapshot : metadata->snapshots) {
        ids.insert(snapshot->snapshot_id);
        EXPECT_EQ(metadata->SnapshotById(snapshot->snapshot_id), snapshot);
      }
      if (metadata->current_snapshot_id) {
        ASSERT_NE(metadata->CurrentSnapshot(), nullptr);
        EXPECT_EQ(metadata->CurrentSnapshot()->snapshot_id, *metadata->current_snapshot_id);
      }
      // Expired and never made ids are not found.
      for (int64_t id = 990; id < 1000 + 4 * (step + 1); ++id) {
        if (!ids.contains(id)) EXPECT_EQ(metadata->SnapshotById(id), nullptr) << id;
      }
    }
  }
}

TEST(TableMetadataJsonReuseTest, ParsedBaseIsWrittenFreshThenReused) {
  RandomHistory history(7, 2);
  for (int step = 0; step < 30; ++step) history.Commit();
  auto parsed = TableMetadataFromJson(TableMetadataToJson(*history.current()));
  ASSERT_THAT(parsed, IsOk());
  auto builder = TableMetadataBuilder::BuildFrom(*parsed, "s3://bucket/wh/db/t/metadata/p.json");
  ASSERT_THAT(builder.SetProperties({{"k", "v"}}), IsOk());
  auto next = builder.Build();
  ASSERT_THAT(next, IsOk());
  ExpectSameAsFresh(**next, TableMetadataToJson(**next));
}

// White-box: proves the text is reused (a writer that always wrote afresh
// would pass the tests above too). Changing a published snapshot breaks the
// TableMetadataPtr contract, and this shows what that costs: the next
// version still carries the text it had when it was last written.
TEST(TableMetadataJsonReuseTest, ReusesTheTextOfSnapshotsItAlreadyWrote) {
  RandomHistory history(3, 2);
  while (history.current()->snapshots.empty()) history.Commit();
  auto base = history.current();
  const std::string before = TableMetadataToJson(*base);
  auto* snapshot = const_cast<Snapshot*>(base->snapshots.front().get());
  const std::string list = snapshot->manifest_list;
  snapshot->manifest_list = "s3://changed-after-publication";

  auto builder = TableMetadataBuilder::BuildFrom(base, "s3://bucket/wh/db/t/metadata/x.json");
  ASSERT_THAT(builder.SetProperties({{"k", "v"}}), IsOk());
  auto next = builder.Build();
  ASSERT_THAT(next, IsOk());
  const std::string after = TableMetadataToJson(**next);
  std::string quoted;
  JsonWriter::AppendQuoted(&quoted, list);
  EXPECT_NE(after.find(quoted), std::string::npos);
  EXPECT_EQ(after.find("changed-after-publication"), std::string::npos);
  snapshot->manifest_list = list;
}

// What `snapshots=refs` returned before it was memoized: a copy with the
// snapshots no ref names dropped, written afresh.
std::string UncachedRefsJson(const TableMetadata& metadata) {
  TableMetadata copy = metadata;
  std::vector<SnapshotPtr> kept;
  for (const auto& snapshot : metadata.snapshots) {
    for (const auto& [name, ref] : metadata.refs) {
      if (ref.snapshot_id == snapshot->snapshot_id) {
        kept.push_back(snapshot);
        break;
      }
    }
  }
  copy.snapshots = std::move(kept);
  copy.Finalize();
  auto fresh = TableMetadataFromJson(TableMetadataToJson(copy));
  EXPECT_THAT(fresh, IsOk());
  return TableMetadataToJson(**fresh);
}

TEST(TableMetadataJsonReuseTest, RefsFormMatchesTheUncachedOneAndIsKept) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    RandomHistory history(seed, 2);
    for (int step = 0; step < 40; ++step) {
      auto metadata = history.Commit();
      auto refs = ReferencedSnapshotsJson(*metadata);
      ASSERT_NE(refs, nullptr);
      EXPECT_EQ(*refs, UncachedRefsJson(*metadata));
      EXPECT_EQ(ReferencedSnapshotsJson(*metadata), refs) << "computed once per metadata";
      std::set<int64_t> referenced;
      for (const auto& [name, ref] : metadata->refs) referenced.insert(ref.snapshot_id);
      auto parsed = TableMetadataFromJson(*refs);
      ASSERT_THAT(parsed, IsOk());
      EXPECT_EQ((*parsed)->snapshots.size(), referenced.size());
    }
  }
}

TEST(TableMetadataJsonReuseTest, CopiesDoNotInheritTheRefsForm) {
  RandomHistory history(5, 2);
  while (history.current()->snapshots.size() < 3) history.Commit();
  auto refs = ReferencedSnapshotsJson(*history.current());
  TableMetadata copy = *history.current();
  EXPECT_EQ(copy.serialized_form_memo().refs_json(), nullptr);
  copy.properties["changed"] = "yes";
  EXPECT_NE(ReferencedSnapshotsJson(copy)->find("changed"), std::string::npos);
  EXPECT_EQ(refs->find("changed"), std::string::npos);
}

TEST(TableMetadataJsonReuseTest, ManyThreadsAskForTheRefsFormOfOneFile) {
  RandomHistory history(11, 2);
  for (int step = 0; step < 200; ++step) history.Commit();
  const std::string expected = UncachedRefsJson(*history.current());
  for (int trial = 0; trial < 10; ++trial) {
    // A fresh object each trial, so the threads race to compute it.
    auto metadata = *TableMetadataFromJson(TableMetadataToJson(*history.current()));
    constexpr int kThreads = 8;
    std::vector<std::shared_ptr<const std::string>> seen(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          auto json = ReferencedSnapshotsJson(*metadata);
          if (i == 0) seen[t] = json;
          if (*json != expected || json != seen[t]) {
            seen[t] = nullptr;
            return;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_NE(seen[t], nullptr) << "thread " << t << " saw a wrong or changing refs form";
      EXPECT_EQ(seen[t], seen[0]) << "every thread gets the one that was kept";
    }
  }
}

}  // namespace
}  // namespace skade::spec
