// Row-level deletes: position delete files, v3 deletion vectors in Puffin
// files and equality deletes (null equals null), alone and together.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <roaring/roaring64map.hh>

#include "read/read_test_util.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::read {
namespace {

using spec::NestedField;
using spec::Type;
using testing::Plan;
using testing::PositionDeleteFile;
using testing::Task;

// Ten rows: id 0..9, name "n<id % 3>" and null for ids 4 and 8.
spec::DataFile WriteTenRows(io::FileIO& io, const std::string& path) {
  std::string json = "[";
  for (int i = 0; i < 10; ++i) {
    if (i > 0) json += ",";
    json += "{\"id\": " + std::to_string(i) + ", \"name\": " +
            (i % 4 == 0 && i > 0 ? std::string("null") : "\"n" + std::to_string(i % 3) + "\"") +
            "}";
  }
  json += "]";
  auto schema = testing::IdNameSchema();
  return testing::WriteDataFile(io, path, schema, {testing::Rows(*schema, json)});
}

std::vector<std::string> Ids(const std::vector<std::string>& rows) {
  std::vector<std::string> ids;
  for (const auto& row : rows) ids.push_back(row.substr(0, row.find('|')));
  return ids;
}

void AppendBigEndian32(uint32_t value, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(value >> shift));
}

// The "deletion-vector-v1" blob of `positions`, as the Puffin spec lays it
// out, with CRoaring's portable 64-bit serialization.
std::string DeletionVectorBlob(const std::vector<uint64_t>& positions) {
  Roaring64Map bitmap;
  for (uint64_t position : positions) bitmap.add(position);
  bitmap.runOptimize();
  std::string serialized(bitmap.getSizeInBytes(true), '\0');
  bitmap.write(serialized.data(), true);
  std::string body = std::string("\xD1\xD3\x39\x64", 4) + serialized;
  std::string blob;
  AppendBigEndian32(static_cast<uint32_t>(body.size()), &blob);
  blob += body;
  AppendBigEndian32(
      static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), body.size())),
      &blob);
  return blob;
}

// A Puffin file holding one deletion vector for `data_file`.
scan::ScanDelete DeletionVectorFile(const std::string& path, const std::string& data_file,
                                    const std::string& blob) {
  std::string footer_json =
      R"({"blobs":[{"type":"deletion-vector-v1","fields":[2147483645],"snapshot-id":-1,)"
      R"("sequence-number":-1,"offset":4,"length":)" +
      std::to_string(blob.size()) + R"(,"properties":{"referenced-data-file":")" + data_file +
      R"("}}]})";
  std::string file = "PFA1" + blob + "PFA1" + footer_json;
  uint32_t payload = static_cast<uint32_t>(footer_json.size());
  file.append(reinterpret_cast<const char*>(&payload), 4);
  file.append(4, '\0');  // flags
  file += "PFA1";
  std::ofstream(path, std::ios::binary) << file;
  scan::ScanDelete del;
  del.file.content = spec::DataFileContent::kPositionDeletes;
  del.file.file_format = spec::FileFormat::kPuffin;
  del.file.file_path = path;
  del.file.file_size_in_bytes = static_cast<int64_t>(file.size());
  del.file.referenced_data_file = data_file;
  del.file.content_offset = 4;
  del.file.content_size_in_bytes = static_cast<int64_t>(blob.size());
  del.data_sequence_number = 2;
  return del;
}

scan::ScanDelete EqualityDeleteFile(io::FileIO& io, const std::string& path,
                                    const spec::SchemaPtr& schema, std::vector<int32_t> ids,
                                    const std::string& json) {
  scan::ScanDelete del;
  del.file = testing::WriteDataFile(io, path, schema, {testing::Rows(*schema, json)});
  del.file.content = spec::DataFileContent::kEqualityDeletes;
  del.file.equality_ids = std::move(ids);
  del.data_sequence_number = 2;
  return del;
}

TEST(DeletesTest, PositionDeletesRemoveTheirRowsOfThisFileOnly) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto data = WriteTenRows(*io, dir.Sub("a.parquet"));
  auto task = Task(data);
  task.deletes.push_back(PositionDeleteFile(*io, dir.Sub("pos.parquet"),
                                            {{dir.Sub("a.parquet"), 0},
                                             {dir.Sub("a.parquet"), 3},
                                             {dir.Sub("a.parquet"), 3},
                                             {dir.Sub("b.parquet"), 5},
                                             {dir.Sub("a.parquet"), 9},
                                             {dir.Sub("a.parquet"), 100}}));
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1, 2}, {task}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(Ids(output.rows), (std::vector<std::string>{"1", "2", "4", "5", "6", "7", "8"}));
}

// Positions are counted across row groups (a file Arrow wrote with 3 rows
// per group), and one delete file serves several tasks.
TEST(DeletesTest, PositionsCountAcrossRowGroupsAndTasksShareTheDeleteFile) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto arrow_schema = data::ToArrowSchema(*testing::IdNameSchema()).value();
  std::vector<scan::FileScanTask> tasks;
  std::vector<std::pair<std::string, int64_t>> deleted;
  for (int f = 0; f < 3; ++f) {
    std::string path = dir.Sub("f" + std::to_string(f) + ".parquet");
    auto batch = testing::BatchFromJson(
        arrow_schema, R"([{"id": 0, "name": "a"}, {"id": 1, "name": "b"}, {"id": 2, "name": "c"},
                          {"id": 3, "name": "d"}, {"id": 4, "name": "e"}, {"id": 5, "name": "f"},
                          {"id": 6, "name": "g"}])");
    tasks.push_back(Task(testing::WriteArrowFile(path, batch, 3)));
    deleted.push_back({path, f});
    deleted.push_back({path, 3 + f});
  }
  auto del = PositionDeleteFile(*io, dir.Sub("pos.parquet"), deleted);
  for (auto& task : tasks) task.deletes.push_back(del);
  ScanReadOptions options;
  options.ordered = true;
  options.threads = 3;
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"1", "2", "4", "5", "6",  // f0: 0, 3
                                                   "0", "2", "3", "5", "6",  // f1: 1, 4
                                                   "0", "1", "3", "4", "6"}));
}

TEST(DeletesTest, DeletionVectorsRemoveTheirPositions) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto data = WriteTenRows(*io, dir.Sub("a.parquet"));
  auto task = Task(data);
  task.deletes.push_back(DeletionVectorFile(dir.Sub("dv.puffin"), data.file_path,
                                            DeletionVectorBlob({1, 2, 7, (1ull << 32) + 5})));
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, {task}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"0", "3", "4", "5", "6", "8", "9"}));
}

TEST(DeletesTest, ACorruptDeletionVectorIsAnError) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto data = WriteTenRows(*io, dir.Sub("a.parquet"));
  std::string blob = DeletionVectorBlob({1, 2});
  std::vector<std::string> broken;
  broken.push_back(blob);
  broken.back()[9] ^= 0x40;  // the CRC no longer matches
  broken.push_back(blob);
  broken.back()[4] = 0;                  // magic
  broken.push_back(blob.substr(0, 10));  // truncated
  for (size_t i = 0; i < broken.size(); ++i) {
    auto task = Task(data);
    task.deletes.push_back(DeletionVectorFile(dir.Sub("dv" + std::to_string(i) + ".puffin"),
                                              data.file_path, broken[i]));
    auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, {task}), *io);
    EXPECT_FALSE(output.status.ok()) << i;
    EXPECT_TRUE(output.rows.empty()) << i;
  }
  // A range past the end of the file; a manifest's 2 GiB blob size is
  // refused from the file's size, before anything is allocated for it.
  for (auto [offset, size] : {std::pair<int64_t, int64_t>{1000, 0}, {0, int64_t{1} << 31}}) {
    auto task = Task(data);
    task.deletes.push_back(DeletionVectorFile(dir.Sub("dv.puffin"), data.file_path, blob));
    task.deletes.back().file.content_offset = offset;
    if (size != 0) task.deletes.back().file.content_size_in_bytes = size;
    auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, {task}), *io);
    EXPECT_FALSE(output.status.ok());
    EXPECT_NE(output.status.ToString().find("bytes)"), std::string::npos)
        << output.status.ToString();
  }
}

TEST(DeletesTest, EqualityDeletesMatchValuesAndNulls) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto data = WriteTenRows(*io, dir.Sub("a.parquet"));
  auto task = Task(data);
  auto name_only = testing::MakeSchema({NestedField{2, "name", Type::String(), false}});
  // Deletes name n1 and null names (ids 1, 4, 7, 8).
  task.deletes.push_back(EqualityDeleteFile(*io, dir.Sub("eq.parquet"), name_only, {2},
                                            R"([{"name": "n1"}, {"name": null}])"));
  // The projection does not need the equality column: it is read anyway.
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, {task}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"0", "2", "3", "5", "6", "9"}));
}

TEST(DeletesTest, EqualityDeletesOnSeveralColumnsAndPromotedTypes) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto data = WriteTenRows(*io, dir.Sub("a.parquet"));
  auto task = Task(data);
  // Written when id was an int: read as long to compare.
  auto both = testing::MakeSchema(
      {NestedField{1, "id", Type::Int(), true}, NestedField{2, "name", Type::String(), false}});
  task.deletes.push_back(EqualityDeleteFile(
      *io, dir.Sub("eq.parquet"), both, {1, 2},
      R"([{"id": 0, "name": "n0"}, {"id": 2, "name": "n0"}, {"id": 4, "name": null},
          {"id": 5, "name": "n2"}])"));
  // Plus position deletes and a deletion vector on the same file.
  task.deletes.push_back(PositionDeleteFile(*io, dir.Sub("pos.parquet"), {{data.file_path, 9}}));
  task.deletes.push_back(
      DeletionVectorFile(dir.Sub("dv.puffin"), data.file_path, DeletionVectorBlob({6})));
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {2, 1}, {task}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"n1|1", "n2|2", "n0|3", "n1|7", "null|8"}));
}

TEST(DeletesTest, AMissingDeleteFileIsAnError) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto data = WriteTenRows(*io, dir.Sub("a.parquet"));
  auto task = Task(data);
  auto del = PositionDeleteFile(*io, dir.Sub("pos.parquet"), {{data.file_path, 1}});
  del.file.file_path = dir.Sub("gone.parquet");
  task.deletes.push_back(del);
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, {task}), *io);
  EXPECT_FALSE(output.status.ok());
  EXPECT_NE(output.status.message().find("gone.parquet"), std::string::npos)
      << output.status.ToString();
}

}  // namespace
}  // namespace skade::read
