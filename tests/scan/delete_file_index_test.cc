#include "skade/scan/delete_file_index.h"

#include <gtest/gtest.h>

namespace skade::scan {
namespace {

constexpr int32_t kFilePathId = 2147483546;

spec::PartitionSpec ByRegion() {
  spec::PartitionSpec spec;
  spec.spec_id = 1;
  spec.fields.push_back({2, {}, 1000, "region", spec::Transform::Identity()});
  return spec;
}

spec::DataFile Data(const std::string& path, const std::string& region, int32_t spec_id = 1) {
  spec::DataFile file;
  file.file_path = path;
  file.spec_id = spec_id;
  if (!region.empty()) file.partition.push_back(spec::Literal::String(region));
  return file;
}

spec::DataFile Deletes(spec::DataFileContent content, const std::string& path,
                       const std::string& region, int32_t spec_id = 1) {
  spec::DataFile file = Data(path, region, spec_id);
  file.content = content;
  return file;
}

std::vector<std::string> Paths(const std::vector<ScanDelete>& deletes) {
  std::vector<std::string> paths;
  for (const ScanDelete& d : deletes) paths.push_back(d.file.file_path);
  return paths;
}

TEST(DeleteFileIndexTest, PositionDeletesApplyAtOrAfterTheDataSequenceInTheirPartition) {
  DeleteFileIndex index;
  spec::PartitionSpec spec = ByRegion();
  index.Add(Deletes(spec::DataFileContent::kPositionDeletes, "pos-eu-3", "eu"), 3, spec);
  index.Add(Deletes(spec::DataFileContent::kPositionDeletes, "pos-us-3", "us"), 3, spec);
  index.Finish();
  EXPECT_EQ(Paths(index.ForDataFile(Data("a", "eu"), 2)), std::vector<std::string>{"pos-eu-3"});
  EXPECT_EQ(Paths(index.ForDataFile(Data("a", "eu"), 3)), std::vector<std::string>{"pos-eu-3"});
  EXPECT_TRUE(index.ForDataFile(Data("a", "eu"), 4).empty());
  // Same tuple, other spec: a different partition.
  EXPECT_TRUE(index.ForDataFile(Data("a", "eu", 2), 1).empty());
}

TEST(DeleteFileIndexTest, PositionDeletesOnlyReachTheFilesTheyMayReference) {
  DeleteFileIndex index;
  spec::PartitionSpec spec = ByRegion();
  spec::DataFile one = Deletes(spec::DataFileContent::kPositionDeletes, "pos-b", "eu");
  one.referenced_data_file = "s3://w/t/data/b.parquet";
  spec::DataFile ranged = Deletes(spec::DataFileContent::kPositionDeletes, "pos-c-d", "eu");
  ranged.lower_bounds[kFilePathId] = "s3://w/t/data/c.parquet";
  ranged.upper_bounds[kFilePathId] = "s3://w/t/data/d.parquet";
  index.Add(one, 5, spec);
  index.Add(ranged, 5, spec);
  index.Finish();
  EXPECT_TRUE(index.ForDataFile(Data("s3://w/t/data/a.parquet", "eu"), 1).empty());
  EXPECT_EQ(Paths(index.ForDataFile(Data("s3://w/t/data/b.parquet", "eu"), 1)),
            std::vector<std::string>{"pos-b"});
  EXPECT_EQ(Paths(index.ForDataFile(Data("s3://w/t/data/c.parquet", "eu"), 1)),
            std::vector<std::string>{"pos-c-d"});
  EXPECT_EQ(Paths(index.ForDataFile(Data("s3://w/t/data/d.parquet", "eu"), 1)),
            std::vector<std::string>{"pos-c-d"});
  EXPECT_TRUE(index.ForDataFile(Data("s3://w/t/data/e.parquet", "eu"), 1).empty());
}

TEST(DeleteFileIndexTest,
     EqualityDeletesNeedAStrictlyHigherSequenceAndGlobalOnesReachEveryPartition) {
  DeleteFileIndex index;
  spec::PartitionSpec spec = ByRegion();
  spec::PartitionSpec unpartitioned;
  unpartitioned.spec_id = 0;
  index.Add(Deletes(spec::DataFileContent::kEqualityDeletes, "eq-eu-4", "eu"), 4, spec);
  index.Add(Deletes(spec::DataFileContent::kEqualityDeletes, "eq-all-2", "", 0), 2, unpartitioned);
  index.Finish();
  EXPECT_EQ(Paths(index.ForDataFile(Data("a", "eu"), 1)),
            (std::vector<std::string>{"eq-all-2", "eq-eu-4"}));
  EXPECT_EQ(Paths(index.ForDataFile(Data("a", "eu"), 2)), std::vector<std::string>{"eq-eu-4"});
  EXPECT_TRUE(index.ForDataFile(Data("a", "eu"), 4).empty());
  EXPECT_EQ(Paths(index.ForDataFile(Data("a", "us"), 1)), std::vector<std::string>{"eq-all-2"});
}

TEST(DeleteFileIndexTest, ADeletionVectorReplacesPositionDeleteFilesForItsDataFile) {
  DeleteFileIndex index;
  spec::PartitionSpec spec = ByRegion();
  spec::DataFile dv = Deletes(spec::DataFileContent::kPositionDeletes, "dv.puffin", "eu");
  dv.file_format = spec::FileFormat::kPuffin;
  dv.referenced_data_file = "a";
  dv.content_offset = 4;
  dv.content_size_in_bytes = 40;
  index.Add(dv, 6, spec);
  index.Add(Deletes(spec::DataFileContent::kPositionDeletes, "pos-eu", "eu"), 5, spec);
  index.Add(Deletes(spec::DataFileContent::kEqualityDeletes, "eq-eu", "eu"), 7, spec);
  index.Finish();
  EXPECT_EQ(Paths(index.ForDataFile(Data("a", "eu"), 1)),
            (std::vector<std::string>{"dv.puffin", "eq-eu"}));
  // Another file in the partition still gets the position delete file.
  EXPECT_EQ(Paths(index.ForDataFile(Data("b", "eu"), 1)),
            (std::vector<std::string>{"pos-eu", "eq-eu"}));
  // A data file newer than the DV: it does not apply.
  EXPECT_TRUE(index.ForDataFile(Data("a", "eu"), 7).empty());
}

}  // namespace
}  // namespace skade::scan
