#include "skade/spec/table_locations.h"

#include <gtest/gtest.h>

#include <regex>

#include "skade/spec/table_properties.h"

namespace skade::spec {
namespace {

TableMetadata Table(std::map<std::string, std::string> properties = {}) {
  TableMetadata metadata;
  metadata.location = "s3://bucket/wh/db/t";
  metadata.properties = std::move(properties);
  return metadata;
}

TEST(TableLocationsTest, DirectoriesDefaultUnderTheTableLocation) {
  EXPECT_EQ(MetadataDirectory(Table()), "s3://bucket/wh/db/t/metadata");
  EXPECT_EQ(DataDirectory(Table()), "s3://bucket/wh/db/t/data");
}

TEST(TableLocationsTest, WritePathPropertiesMoveTheDirectories) {
  auto table = Table({{kMetadataPath, "s3://meta/t/"}, {kDataPath, "s3://data/t//"}});
  EXPECT_EQ(MetadataDirectory(table), "s3://meta/t");
  EXPECT_EQ(DataDirectory(table), "s3://data/t");
  EXPECT_EQ(DataFileLocation(table, "a=1", "f.parquet"), "s3://data/t/a=1/f.parquet");
  EXPECT_EQ(ManifestLocation(table, "c0ffee", 2), "s3://meta/t/c0ffee-m2.avro");
  EXPECT_TRUE(NewMetadataLocation(table, 3).starts_with("s3://meta/t/00003-"));
}

TEST(TableLocationsTest, MetadataFileNamesAreJavas) {
  const std::regex plain(R"(s3://bucket/wh/db/t/metadata/00042-[0-9a-f-]{36}\.metadata\.json)");
  EXPECT_TRUE(std::regex_match(NewMetadataLocation(Table(), 42), plain));
  EXPECT_NE(NewMetadataLocation(Table(), 42), NewMetadataLocation(Table(), 42));
  const std::regex gzip(R"(.*/metadata/00000-[0-9a-f-]{36}\.gz\.metadata\.json)");
  EXPECT_TRUE(
      std::regex_match(NewMetadataLocation(Table({{kMetadataCompression, "GZIP"}}), 0), gzip));
  EXPECT_TRUE(NewMetadataLocation(Table(), 123456).find("/123456-") != std::string::npos);
  EXPECT_TRUE(
      IsGzipMetadataLocation(NewMetadataLocation(Table({{kMetadataCompression, "gzip"}}), 1)));
  EXPECT_FALSE(IsGzipMetadataLocation(NewMetadataLocation(Table(), 1)));
}

TEST(TableLocationsTest, ParseMetadataVersionReadsWhatNewMetadataLocationWrites) {
  EXPECT_EQ(ParseMetadataVersion(NewMetadataLocation(Table(), 7)), 7);
  EXPECT_EQ(ParseMetadataVersion(NewMetadataLocation(Table({{kMetadataCompression, "gzip"}}), 12)),
            12);
  EXPECT_EQ(ParseMetadataVersion("00042-abc.metadata.json"), 42);
  EXPECT_EQ(ParseMetadataVersion("file:///t/metadata/v3.metadata.json"), -1);
  EXPECT_EQ(ParseMetadataVersion("file:///t/metadata/-1-abc.metadata.json"), -1);
  EXPECT_EQ(ParseMetadataVersion("file:///t/metadata/00001-abc.avro"), -1);
}

TEST(TableLocationsTest, SnapshotFileNamesAreJavas) {
  EXPECT_EQ(ManifestListLocation(Table(), 987, 1, "c0ffee"),
            "s3://bucket/wh/db/t/metadata/snap-987-1-c0ffee.avro");
  EXPECT_EQ(ManifestLocation(Table(), "c0ffee", 0), "s3://bucket/wh/db/t/metadata/c0ffee-m0.avro");
  EXPECT_EQ(DataFileLocation(Table(), "", "f.parquet"), "s3://bucket/wh/db/t/data/f.parquet");
}

TEST(TableLocationsTest, IngestDataFileNames) {
  EXPECT_EQ(DataFileName("ingest-c0ffee", 0), "ingest-c0ffee-00000000.parquet");
  EXPECT_EQ(DataFileName("p", 123456789), "p-123456789.parquet");
}

}  // namespace
}  // namespace skade::spec
