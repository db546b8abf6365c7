// Manifest merging (table/manifest_merge_internal.h) through MergeAppend and
// RowDelta: when it happens, what a merged manifest holds, and what it keeps
// (snapshot ids, sequence numbers, row ids) for readers and later deletes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/spec/table_properties.h"
#include "skade/table/delete_files.h"
#include "skade/table/fast_append.h"
#include "skade/table/manifest_merge_internal.h"
#include "skade/table/merge_append.h"
#include "skade/table/overwrite_files.h"
#include "skade/table/row_delta.h"
#include "skade/table/snapshot_scan.h"
#include "skade/table/transaction.h"
#include "table_fixture.h"
#include "testing/drop_partition_column.h"
#include "testing/read_overlap_file_io.h"

namespace skade::table {
namespace {

using testing::IsError;
using testing::IsOk;
using testing::TableTest;

class ManifestMergeTest : public TableTest {
 protected:
  std::vector<spec::ManifestFile> Manifests(const Table& table) {
    auto bytes = io_->ReadFile(table.metadata().CurrentSnapshot()->manifest_list);
    EXPECT_TRUE(bytes) << bytes.error().ToString();
    auto list = avro::ReadManifestList(*bytes);
    EXPECT_TRUE(list) << list.error().ToString();
    return list->manifests;
  }

  // Appends one file per call through `Update` and returns the table.
  template <typename Update>
  Table AppendEach(Table table, const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      Update append(table);
      append.AppendFile(File(table, name, 10));
      auto committed = append.Commit();
      EXPECT_TRUE(committed) << committed.error().ToString();
      table = *committed;
    }
    return table;
  }

  // Live entries of the current snapshot, by file name.
  std::map<std::string, spec::ManifestEntry> Entries(const Table& table) {
    auto entries = LiveEntries(table, *table.metadata().CurrentSnapshot());
    EXPECT_TRUE(entries) << entries.error().ToString();
    std::map<std::string, spec::ManifestEntry> by_name;
    for (auto& entry : *entries) {
      std::string path = entry.data_file.file_path;
      by_name[path.substr(path.rfind('/') + 1)] = std::move(entry);
    }
    return by_name;
  }

  // Commits `count` equality delete files (on id, in `region`) on top of
  // `table`, as other writers would while a transaction is being staged.
  void CommitEqualityDeletes(const Table& table, const std::string& region, int count) {
    Table other = table;
    for (int i = 0; i < count; ++i) {
      spec::DataFile deletes = File(other, StrCat("deletes-", i), 1, region);
      deletes.content = spec::DataFileContent::kEqualityDeletes;
      deletes.equality_ids = {1};
      RowDelta delta(other);
      delta.AddDeletes(deletes);
      auto committed = delta.Commit();
      ASSERT_THAT(committed, IsOk());
      other = *committed;
    }
  }

  // `file` is an entry of `committed` that the transaction's first snapshot
  // (the current one's parent) added, with that snapshot's sequence number.
  void ExpectAddedByTheFirstOfTwoSnapshots(const Table& committed, const std::string& file) {
    const spec::TableMetadata& metadata = committed.metadata();
    spec::SnapshotPtr first =
        metadata.SnapshotById(*metadata.CurrentSnapshot()->parent_snapshot_id);
    ASSERT_TRUE(first);
    auto entries = Entries(committed);
    ASSERT_TRUE(entries.count(file)) << file;
    EXPECT_EQ(entries[file].snapshot_id, first->snapshot_id);
    EXPECT_EQ(entries[file].sequence_number, first->sequence_number);
    EXPECT_EQ(entries[file].file_sequence_number, first->sequence_number);
  }

  Table SetProperties(const Table& table, std::map<std::string, std::string> properties) {
    catalog::CommitTableRequest request{table.identifier(), {}, {}};
    request.updates.push_back(spec::SetProperties{std::move(properties)});
    auto committed = catalog_->CommitTable(request);
    EXPECT_TRUE(committed) << committed.error().ToString();
    return table.WithVersion(*committed);
  }
};

TEST_F(ManifestMergeTest, NewestManifestsMergeOnceMinCountOfThemAreCommitted) {
  Table table = Create("events", nullptr, {{spec::kManifestMinCountToMerge, "3"}});
  std::vector<size_t> sizes;
  std::vector<int64_t> snapshot_ids;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    table = AppendEach<MergeAppend>(table, {name});
    sizes.push_back(Manifests(table).size());
    snapshot_ids.push_back(table.metadata().CurrentSnapshot()->snapshot_id);
  }
  // The 4th commit finds 3 committed manifests and merges them; the 6th
  // finds the 5th's, the 4th's and the merged one, and merges them again.
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 2, 3, 2, 3, 2}));

  std::vector<spec::ManifestFile> manifests = Manifests(table);
  const spec::ManifestFile& merged = manifests[1];
  EXPECT_EQ(merged.added_snapshot_id, snapshot_ids[5]);
  EXPECT_EQ(merged.sequence_number, 6);
  EXPECT_EQ(merged.min_sequence_number, 1);  // its oldest file's
  EXPECT_EQ(merged.added_files_count, 0);
  EXPECT_EQ(merged.existing_files_count, 5);
  EXPECT_EQ(merged.existing_rows_count, 50);

  // Every file keeps the snapshot and sequence number that added it.
  std::map<std::string, spec::ManifestEntry> entries = Entries(table);
  ASSERT_EQ(entries.size(), 6u);
  int64_t sequence = 1;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    const spec::ManifestEntry& entry = entries.at(StrCat(name, ".parquet"));
    EXPECT_EQ(entry.sequence_number, sequence) << name;
    EXPECT_EQ(entry.file_sequence_number, sequence) << name;
    EXPECT_EQ(entry.snapshot_id, snapshot_ids[sequence - 1]) << name;
    EXPECT_EQ(entry.status, name == std::string("f") ? spec::ManifestEntryStatus::kAdded
                                                     : spec::ManifestEntryStatus::kExisting)
        << name;
    ++sequence;
  }
  // Older snapshots still read their own manifests: nothing was deleted.
  for (const auto& snapshot : table.metadata().snapshots) {
    auto older = LiveEntries(table, *snapshot);
    ASSERT_THAT(older, IsOk());
    EXPECT_EQ(static_cast<int64_t>(older->size()), snapshot->sequence_number);
  }
}

TEST_F(ManifestMergeTest, FastAppendAndDisabledMergingKeepEveryManifest) {
  Table fast = Create("fast", nullptr, {{spec::kManifestMinCountToMerge, "2"}});
  fast = AppendEach<FastAppend>(fast, {"a", "b", "c", "d"});
  EXPECT_EQ(Manifests(fast).size(), 4u);

  Table off =
      Create("off", nullptr,
             {{spec::kManifestMinCountToMerge, "2"}, {spec::kManifestMergeEnabled, "false"}});
  off = AppendEach<MergeAppend>(off, {"a", "b", "c", "d"});
  EXPECT_EQ(Manifests(off).size(), 4u);

  // A target size below one manifest makes every bin a single manifest.
  Table tiny =
      Create("tiny", nullptr,
             {{spec::kManifestMinCountToMerge, "2"}, {spec::kManifestTargetSizeBytes, "1"}});
  tiny = AppendEach<MergeAppend>(tiny, {"a", "b", "c", "d"});
  EXPECT_EQ(Manifests(tiny).size(), 4u);
}

TEST_F(ManifestMergeTest, FullOlderBinsMergeAtOnceAndTheNewestWaitsForMinCount) {
  Table table = Create("events", nullptr, {{spec::kManifestMergeEnabled, "false"}});
  table = AppendEach<MergeAppend>(table, {"a", "b", "c", "d"});
  std::vector<spec::ManifestFile> before = Manifests(table);  // d, c, b, a
  int64_t longest = 0;
  for (const auto& manifest : before) longest = std::max(longest, manifest.manifest_length);
  // Two manifests to a bin: from the oldest, [a, b] and [c, d]. The newest
  // bin [d, c] holds fewer than the default min count (100) and stays.
  table = SetProperties(table, {{spec::kManifestMergeEnabled, "true"},
                                {spec::kManifestTargetSizeBytes, StrCat(2 * longest + 1)}});
  table = AppendEach<MergeAppend>(table, {"e"});
  std::vector<spec::ManifestFile> after = Manifests(table);
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(after[1].manifest_path, before[0].manifest_path);
  EXPECT_EQ(after[2].manifest_path, before[1].manifest_path);
  EXPECT_EQ(after[3].existing_files_count, 2);
  EXPECT_EQ(after[3].added_snapshot_id, table.metadata().CurrentSnapshot()->snapshot_id);
  EXPECT_EQ(Entries(table).size(), 5u);
}

// A bin's manifests are read several at once (one at a time, a merge of a
// hundred manifests on an object store waits seconds).
TEST_F(ManifestMergeTest, ABinsManifestsAreReadConcurrently) {
  auto io = std::make_shared<skade::testing::ReadOverlapFileIO>(io_, "-m0.avro");
  io_ = io;
  Table table = Create("events", nullptr, {{spec::kManifestMergeEnabled, "false"}});
  table = AppendEach<MergeAppend>(table, {"a", "b", "c", "d"});
  table = SetProperties(
      table, {{spec::kManifestMergeEnabled, "true"}, {spec::kManifestMinCountToMerge, "4"}});
  EXPECT_FALSE(io->overlapped());
  table = AppendEach<MergeAppend>(table, {"e"});
  EXPECT_TRUE(io->overlapped());
  std::vector<spec::ManifestFile> after = Manifests(table);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].existing_files_count, 4);
  EXPECT_EQ(Entries(table).size(), 5u);
}

TEST_F(ManifestMergeTest, RowIdsOfMergedFilesStayAsCommitted) {
  Table table =
      Create("events", nullptr, {{"format-version", "3"}, {spec::kManifestMinCountToMerge, "2"}});
  table = AppendEach<MergeAppend>(table, {"a", "b"});
  std::map<std::string, spec::ManifestEntry> before = Entries(table);
  table = AppendEach<MergeAppend>(table, {"c"});
  ASSERT_EQ(Manifests(table).size(), 2u);  // c, merged(b, a)
  std::map<std::string, spec::ManifestEntry> after = Entries(table);
  for (const char* name : {"a.parquet", "b.parquet"}) {
    ASSERT_TRUE(before.at(name).data_file.first_row_id) << name;
    EXPECT_EQ(after.at(name).data_file.first_row_id, before.at(name).data_file.first_row_id)
        << name;
  }
  std::set<int64_t> row_ids;
  for (const auto& [name, entry] : after) row_ids.insert(*entry.data_file.first_row_id);
  EXPECT_EQ(row_ids.size(), 3u);
  EXPECT_GE(*after.at("c.parquet").data_file.first_row_id, 20);
}

TEST_F(ManifestMergeTest, FormatV1TablesMergeToo) {
  Table table =
      Create("events", nullptr, {{"format-version", "1"}, {spec::kManifestMinCountToMerge, "2"}});
  table = AppendEach<MergeAppend>(table, {"a", "b", "c"});
  std::vector<spec::ManifestFile> manifests = Manifests(table);
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_EQ(manifests[1].existing_files_count, 2);
  EXPECT_EQ(Entries(table).size(), 3u);
}

TEST_F(ManifestMergeTest, RowDeltaMergesDataAndDeleteManifestsApartKeepingSequenceNumbers) {
  Table table = Create("events", nullptr, {{spec::kManifestMinCountToMerge, "2"}});
  for (int i = 0; i < 4; ++i) {
    RowDelta delta(table);
    delta.AddRows(File(table, StrCat("rows-", i), 10));
    spec::DataFile deletes = File(table, StrCat("deletes-", i), 1);
    deletes.content = spec::DataFileContent::kEqualityDeletes;
    deletes.equality_ids = {1};
    delta.AddDeletes(deletes);
    auto committed = delta.Commit();
    ASSERT_THAT(committed, IsOk());
    table = *committed;
  }
  // Commits 3 and 4 each merged what was committed: per content, one new
  // manifest and one merged.
  std::vector<spec::ManifestFile> manifests = Manifests(table);
  ASSERT_EQ(manifests.size(), 4u);
  int deletes = 0;
  for (const auto& manifest : manifests) {
    if (manifest.content == spec::ManifestContent::kDeletes) ++deletes;
  }
  EXPECT_EQ(deletes, 2);
  std::map<std::string, spec::ManifestEntry> entries = Entries(table);
  ASSERT_EQ(entries.size(), 8u);
  for (int i = 0; i < 4; ++i) {
    // A delete file applies to rows of lower sequence numbers only: each
    // keeps its own commit's, as do the rows.
    EXPECT_EQ(entries.at(StrCat("rows-", i, ".parquet")).sequence_number, i + 1);
    const spec::ManifestEntry& delete_entry = entries.at(StrCat("deletes-", i, ".parquet"));
    EXPECT_EQ(delete_entry.sequence_number, i + 1);
    EXPECT_EQ(delete_entry.data_file.content, spec::DataFileContent::kEqualityDeletes);
    EXPECT_EQ(delete_entry.data_file.equality_ids, std::vector<int32_t>{1});
  }
}

TEST_F(ManifestMergeTest, AnUnreadableManifestFailsTheCommitAndChangesNothing) {
  Table table = Create("events", nullptr, {{spec::kManifestMinCountToMerge, "2"}});
  table = AppendEach<MergeAppend>(table, {"a", "b"});
  std::vector<spec::ManifestFile> manifests = Manifests(table);
  ASSERT_THAT(io_->DeleteFile(manifests.back().manifest_path), IsOk());
  std::vector<std::string> files_before = MetadataFiles(table);

  MergeAppend append(table);
  append.AppendFile(File(table, "c", 10));
  auto committed = append.Commit();
  ASSERT_THAT(committed, IsError(ErrorKind::kNotFound));
  // It names the manifest and how to commit without merging.
  EXPECT_NE(committed.error().message.find(
                StrCat("Cannot merge manifest ", manifests.back().manifest_path)),
            std::string::npos)
      << committed.error().ToString();
  EXPECT_NE(committed.error().message.find(spec::kManifestMergeEnabled), std::string::npos);
  auto reloaded = table.Refresh();
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_EQ(reloaded->metadata_location(), table.metadata_location());
  // The update's own manifest is cleaned up.
  EXPECT_EQ(MetadataFiles(*reloaded), files_before);
}

// Manifest lengths come from a manifest list a client may have written; a
// huge or negative length or target must not overflow the bin weights into
// a merge of manifests that do not fit together.
TEST_F(ManifestMergeTest, HostileLengthsAndTargetsNeverPackManifestsTogether) {
  Table table = Create("events", nullptr, {{spec::kManifestMergeEnabled, "false"}});
  table = AppendEach<MergeAppend>(table, {"a", "b", "c"});
  std::vector<spec::ManifestFile> manifests = Manifests(table);
  ASSERT_EQ(manifests.size(), 3u);
  StoreManifest store = [](std::string_view) -> Result<std::string> {
    return MakeError(ErrorKind::kInternal, "nothing is to be stored");
  };
  ManifestMergePolicy policy;
  policy.min_count_to_merge = 2;
  const int64_t snapshot_id = 99;

  // Each manifest longer than any target is a bin alone.
  for (auto& manifest : manifests) manifest.manifest_length = std::numeric_limits<int64_t>::max();
  auto merged =
      ManifestMerger{}.Merge(table.metadata(), *io_, snapshot_id, manifests, policy, store);
  ASSERT_THAT(merged, IsOk());
  EXPECT_FALSE(merged->has_value());

  // A target below one byte leaves every manifest alone.
  for (auto& manifest : manifests) manifest.manifest_length = std::numeric_limits<int64_t>::min();
  for (int64_t target : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min()}) {
    policy.target_size_bytes = target;
    merged = ManifestMerger{}.Merge(table.metadata(), *io_, snapshot_id, manifests, policy, store);
    ASSERT_THAT(merged, IsOk());
    EXPECT_FALSE(merged->has_value()) << target;
  }
}

// In a transaction an update's parent lists the earlier update's own
// manifest, whose entries inherit the sequence number the retried commit
// gives that snapshot: a merge (or filter) made on the first attempt must
// not be reused with the old number, or equality deletes committed meanwhile
// would apply to rows added after them.
TEST_F(ManifestMergeTest, ARetriedTransactionMergesWithTheSequenceNumbersItCommits) {
  for (int second = 0; second < 3; ++second) {
    SCOPED_TRACE(StrCat("second update ", second));
    Table table = Create(StrCat("events", second), testing::RegionSpec(),
                         {{spec::kManifestMinCountToMerge, "2"}});
    table = *FastAppend(table).AppendFile(File(table, "a", 10, "eu")).Commit();
    Transaction transaction(table);
    transaction.NewFastAppend().AppendFile(File(table, "f", 10, "eu"));
    const auto nothing = PartitionFilter::Tuples(0, {{spec::Literal::String("none")}});
    if (second == 0) transaction.NewMergeAppend().AppendFile(File(table, "g", 10, "eu"));
    if (second == 1) transaction.NewDelete(nothing);
    if (second == 2) transaction.NewOverwrite(nothing).AddFile(File(table, "g", 10, "us"));
    // Equality deletes land before the transaction commits: it retries.
    CommitEqualityDeletes(table, "eu", 2);
    auto committed = transaction.Commit();
    ASSERT_THAT(committed, IsOk());
    ExpectAddedByTheFirstOfTwoSnapshots(*committed, "f.parquet");
  }
}

// The same for a filter: a delete that rewrites the earlier update's own
// manifest keeps its other files with the sequence number they commit with.
TEST_F(ManifestMergeTest, ARetriedTransactionFiltersWithTheSequenceNumbersItCommits) {
  Table table = Create("events", testing::RegionSpec(), {{spec::kManifestMergeEnabled, "false"}});
  table = *FastAppend(table).AppendFile(File(table, "a", 10, "eu")).Commit();
  Transaction transaction(table);
  transaction.NewFastAppend()
      .AppendFile(File(table, "f", 10, "eu"))
      .AppendFile(File(table, "h", 10, "us"));
  transaction.NewDelete(PartitionFilter::Tuples(0, {{spec::Literal::String("eu")}}));
  CommitEqualityDeletes(table, "us", 2);
  auto committed = transaction.Commit();
  ASSERT_THAT(committed, IsOk());
  ASSERT_EQ(Entries(*committed).size(), 3u);  // h and the two delete files
  ExpectAddedByTheFirstOfTwoSnapshots(*committed, "h.parquet");
}

TEST_F(ManifestMergeTest, ARebasedMergeLeavesNoUnreferencedManifest) {
  Table table = Create("events", nullptr, {{spec::kManifestMinCountToMerge, "2"}});
  table = AppendEach<MergeAppend>(table, {"a", "b"});
  // Two writers start on the same version; the second rebases on the
  // first's commit, where the bins differ.
  MergeAppend first(table);
  first.AppendFile(File(table, "c", 10));
  MergeAppend second(table);
  second.AppendFile(File(table, "d", 10));
  ASSERT_THAT(first.Commit(), IsOk());
  auto committed = second.Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(Entries(*committed).size(), 4u);

  std::set<std::string> referenced;
  for (const auto& snapshot : committed->metadata().snapshots) {
    referenced.insert(snapshot->manifest_list);
    auto bytes = io_->ReadFile(snapshot->manifest_list);
    ASSERT_THAT(bytes, IsOk());
    auto list = avro::ReadManifestList(*bytes);
    ASSERT_THAT(list, IsOk());
    for (const auto& manifest : list->manifests) referenced.insert(manifest.manifest_path);
  }
  const std::string dir = spec::MetadataDirectory(committed->metadata());
  for (const std::string& name : MetadataFiles(*committed)) {
    if (name.ends_with(".avro")) {
      EXPECT_TRUE(referenced.count(StrCat(dir, "/", name))) << name;
    }
  }
}

// A table may stop being partitioned by a column and then drop it; the older
// spec's manifests still hold that column's values. A merge and a delete that
// rewrite them keep those values, typed as the column was.
TEST_F(ManifestMergeTest, ManifestsOfASpecWhoseSourceColumnWasDroppedAreRewritten) {
  Table table = Create("events", testing::RegionSpec(), {{spec::kManifestMergeEnabled, "false"}});
  FastAppend eu(table);
  eu.AppendFile(File(table, "a", 10, "eu"));
  table = *eu.Commit();
  FastAppend us(table);
  us.AppendFile(File(table, "b", 10, "us"));
  table = *us.Commit();

  catalog::CommitTableRequest evolve{
      table.identifier(), {}, skade::testing::DropPartitionColumn(table.metadata(), 2)};
  evolve.updates.push_back(spec::SetProperties{
      {{spec::kManifestMergeEnabled, "true"}, {spec::kManifestMinCountToMerge, "2"}}});
  auto evolved = catalog_->CommitTable(evolve);
  ASSERT_THAT(evolved, IsOk());
  table = table.WithVersion(*evolved);

  table = AppendEach<MergeAppend>(table, {"c"});
  std::vector<spec::ManifestFile> manifests = Manifests(table);
  ASSERT_EQ(manifests.size(), 2u);  // c's, and a's and b's merged
  EXPECT_EQ(manifests[1].partition_spec_id, 0);
  EXPECT_EQ(manifests[1].existing_files_count, 2);
  std::map<std::string, spec::ManifestEntry> entries = Entries(table);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries.at("a.parquet").data_file.partition,
            std::vector<spec::Literal>{spec::Literal::String("eu")});
  EXPECT_EQ(entries.at("b.parquet").data_file.partition,
            std::vector<spec::Literal>{spec::Literal::String("us")});

  DeleteFiles remove(table, PartitionFilter::Tuples(0, {{spec::Literal::String("eu")}}));
  auto removed = remove.Commit();
  ASSERT_THAT(removed, IsOk());
  entries = Entries(*removed);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries.at("b.parquet").data_file.partition,
            std::vector<spec::Literal>{spec::Literal::String("us")});
  EXPECT_TRUE(entries.at("c.parquet").data_file.partition.empty());
}

}  // namespace
}  // namespace skade::table
