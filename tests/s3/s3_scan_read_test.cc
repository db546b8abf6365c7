// ReadScan over S3: data and delete files read with ranged GETs through
// S3FileIO's InputFile (Parquet's pre-buffered, concurrent reads).
#include <gtest/gtest.h>

#include "read/read_test_util.h"
#include "s3/s3_environment.h"
#include "skade/s3/s3_file_io.h"
#include "testing/matchers.h"

namespace skade::s3 {
namespace {

using spec::NestedField;
using spec::Type;

TEST(S3ScanReadTest, ReadsDataAndPositionDeletesFromS3) {
  std::string bucket = testing::NewBucket();
  auto made = NewS3FileIO(testing::S3Environment::server().Properties());
  ASSERT_TRUE(made) << made.error().ToString();
  io::FileIO& io = **made;
  auto schema = read::testing::MakeSchema(
      {NestedField{1, "id", Type::Long(), true}, NestedField{2, "name", Type::String(), false}});
  std::vector<scan::FileScanTask> tasks;
  for (int f = 0; f < 3; ++f) {
    std::string json = "[";
    for (int r = 0; r < 100; ++r) {
      json += (r > 0 ? "," : "") + std::string("{\"id\": ") + std::to_string(f * 100 + r) +
              ", \"name\": \"x" + std::to_string(r) + "\"}";
    }
    json += "]";
    std::string location = "s3://" + bucket + "/t/data/f" + std::to_string(f) + ".parquet";
    tasks.push_back(read::testing::Task(
        read::testing::WriteDataFile(io, location, schema, {read::testing::Rows(*schema, json)})));
  }
  // Deletes every row but the first two of the second file.
  auto delete_schema =
      read::testing::MakeSchema({NestedField{2147483546, "file_path", Type::String(), true},
                                 NestedField{2147483545, "pos", Type::Long(), true}});
  std::string json = "[";
  for (int r = 2; r < 100; ++r) {
    json += (r > 2 ? "," : "") + std::string("{\"file_path\": \"") + tasks[1].data_file.file_path +
            "\", \"pos\": " + std::to_string(r) + "}";
  }
  json += "]";
  scan::ScanDelete del;
  del.file =
      read::testing::WriteDataFile(io, "s3://" + bucket + "/t/data/pos.parquet", delete_schema,
                                   {read::testing::Rows(*delete_schema, json)});
  del.file.content = spec::DataFileContent::kPositionDeletes;
  tasks[1].deletes.push_back(del);
  read::ScanReadOptions options;
  options.ordered = true;
  options.threads = 2;
  auto output = read::testing::ReadAll(read::testing::Plan(schema, {1}, tasks), io, options);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  ASSERT_EQ(output.rows.size(), 202u);
  EXPECT_EQ(output.rows[99], "99");
  EXPECT_EQ(output.rows[100], "100");
  EXPECT_EQ(output.rows[101], "101");
  EXPECT_EQ(output.rows[102], "200");
  // A missing object ends the stream with an error.
  tasks[2].data_file.file_path = "s3://" + bucket + "/t/data/missing.parquet";
  output = read::testing::ReadAll(read::testing::Plan(schema, {1}, tasks), io, options);
  EXPECT_FALSE(output.status.ok());
}

}  // namespace
}  // namespace skade::s3
