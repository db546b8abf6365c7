// ManifestCache's manifest lists (cache/manifest_cache.h) as the server-side
// rebase uses them: a list this process wrote is served without reading the
// file, and a read of a location a client named is bounded. (Scan planning's
// use of the cache is tested in tests/scan/table_scan_test.cc.)
#include "skade/cache/manifest_cache.h"

#include <gtest/gtest.h>

#include "skade/avro/manifest_list_writer.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::cache {
namespace {

using ::skade::testing::IsError;
using ::skade::testing::IsOk;

// A v2 list of snapshot `snapshot_id` with `count` manifests.
avro::ManifestList MakeList(int64_t snapshot_id, int count) {
  avro::ManifestList list;
  list.metadata.format_version = 2;
  list.metadata.snapshot_id = snapshot_id;
  list.metadata.sequence_number = 1;
  for (int i = 0; i < count; ++i) {
    spec::ManifestFile manifest;
    manifest.manifest_path = "/t/metadata/m" + std::to_string(i) + ".avro";
    manifest.manifest_length = 1000;
    manifest.added_snapshot_id = snapshot_id;
    manifest.sequence_number = 1;
    manifest.min_sequence_number = 1;
    list.manifests.push_back(std::move(manifest));
  }
  return list;
}

// Writes `list` as a file at `location`.
void WriteList(io::FileIO& io, const std::string& location, const avro::ManifestList& list) {
  avro::ManifestListWriterOptions options;
  options.snapshot_id = *list.metadata.snapshot_id;
  options.sequence_number = *list.metadata.sequence_number;
  auto writer = avro::ManifestListWriter::Make(options);
  ASSERT_THAT(writer, IsOk());
  for (const auto& manifest : list.manifests) ASSERT_THAT((*writer)->Add(manifest), IsOk());
  ASSERT_THAT((*writer)->WriteTo(io, location, /*durable=*/false), IsOk());
}

class ManifestCacheListTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  std::shared_ptr<io::FileIO> io_ = io::NewLocalFileIO();
  ManifestCache cache_;
};

TEST_F(ManifestCacheListTest, AnInsertedListIsServedWithoutReadingTheFile) {
  // Not written yet (a rebase caches its list before the commit writes it).
  std::string location = dir_.Sub("snap-1.avro");
  auto list = std::make_shared<const avro::ManifestList>(MakeList(1, 3));
  cache_.InsertManifestList(location, list);

  auto cached = cache_.ManifestList(*io_, location);
  ASSERT_THAT(cached, IsOk());
  EXPECT_EQ(cached->get(), list.get());
  EXPECT_EQ(cache_.stats().hits, 1u);
  EXPECT_EQ(cache_.stats().misses, 0u);
}

TEST_F(ManifestCacheListTest, AnInsertDoesNotReplaceTheCachedEntry) {
  std::string location = dir_.Sub("snap-2.avro");
  WriteList(*io_, location, MakeList(2, 2));
  auto read = cache_.ManifestList(*io_, location);
  ASSERT_THAT(read, IsOk());
  cache_.InsertManifestList(location, std::make_shared<const avro::ManifestList>(MakeList(2, 5)));

  auto cached = cache_.ManifestList(*io_, location);
  ASSERT_THAT(cached, IsOk());
  EXPECT_EQ(cached->get(), read->get());
  EXPECT_EQ((*cached)->manifests.size(), 2u);
}

TEST_F(ManifestCacheListTest, ABoundedReadRefusesALargerFileAndCachesNothing) {
  std::string location = dir_.Sub("snap-3.avro");
  WriteList(*io_, location, MakeList(3, 50));
  auto size = io_->FileSize(location);
  ASSERT_THAT(size, IsOk());

  EXPECT_THAT(cache_.ManifestList(*io_, location, static_cast<uint64_t>(*size) - 1),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(cache_.stats().entries, 0u);
  auto read = cache_.ManifestList(*io_, location, static_cast<uint64_t>(*size));
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ((*read)->manifests.size(), 50u);
}

TEST_F(ManifestCacheListTest, ACacheOfNoCapacityKeepsNoInsertedList) {
  ManifestCache uncached(ManifestCacheOptions{.capacity_bytes = 0});
  std::string location = dir_.Sub("snap-4.avro");
  uncached.InsertManifestList(location, std::make_shared<const avro::ManifestList>(MakeList(4, 1)));
  // Nothing kept: the read goes to the file, which is not there.
  EXPECT_FALSE(uncached.ManifestList(*io_, location).has_value());
  EXPECT_EQ(uncached.stats().entries, 0u);
}

}  // namespace
}  // namespace skade::cache
