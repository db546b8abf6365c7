// Input files for ingest (input_files.h): telling formats apart, the schema
// a created table gets, and groups read on demand from Parquet (by row
// group), CSV and JSON (when read, in file order), through to a committed
// ingest.
#include "skade/ingest/input_files.h"

#include <arrow/api.h>
#include <arrow/csv/writer.h>
#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include <filesystem>
#include <fstream>

#include "ingest_test_util.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/conform_batch.h"
#include "skade/ingest/ingest.h"
#include "skade/util/worker_pool.h"

namespace skade::ingest {
namespace {

using skade::testing::IsErrorWithMessage;
using testing::IngestTest;
using testing::IsError;
using testing::IsOk;

std::shared_ptr<arrow::Table> TableOf(const RecordBatchGroup& batches) {
  return arrow::Table::FromRecordBatches(batches).ValueOrDie();
}

void WriteParquet(const std::string& path, const arrow::Table& table, int64_t row_group_rows) {
  auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ASSERT_TRUE(
      parquet::arrow::WriteTable(table, arrow::default_memory_pool(), out, row_group_rows).ok());
  ASSERT_TRUE(out->Close().ok());
}

// Group `i` of `groups`, read to its end.
Result<RecordBatchGroup> ReadGroup(const GroupSource& groups, size_t i) {
  SKADE_ASSIGN_OR_RAISE(BatchStream stream, groups.read(i));
  RecordBatchGroup batches;
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(auto batch, stream());
    if (batch == nullptr) return batches;
    batches.push_back(std::move(batch));
  }
}

// Every group of `groups`, read concurrently and out of order, as the
// encode pool does; in group order, or the first error.
Result<std::vector<RecordBatchGroup>> ReadConcurrently(const GroupSource& groups) {
  std::vector<Result<RecordBatchGroup>> read(groups.count);
  WorkerPool pool(4);
  pool.ParallelFor(groups.count, [&](size_t i) {
    size_t group = groups.count - 1 - i;
    read[group] = ReadGroup(groups, group);
  });
  std::vector<RecordBatchGroup> in_order;
  for (auto& group : read) {
    if (!group) return tl::unexpected(std::move(group).error());
    in_order.push_back(std::move(*group));
  }
  return in_order;
}

// The row count of each group.
std::vector<int64_t> RowCounts(const std::vector<RecordBatchGroup>& groups) {
  std::vector<int64_t> rows;
  for (const auto& group : groups) rows.push_back(TableOf(group)->num_rows());
  return rows;
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(InputFormatTest, ComesFromTheFormatOptionOrTheName) {
  EXPECT_EQ(*InputFormatOf("in/a.PARQUET", ""), InputFormat::kParquet);
  EXPECT_EQ(*InputFormatOf("a.pq", ""), InputFormat::kParquet);
  EXPECT_EQ(*InputFormatOf("a.csv", ""), InputFormat::kCsv);
  EXPECT_EQ(*InputFormatOf("a.json", ""), InputFormat::kJson);
  EXPECT_EQ(*InputFormatOf("a.jsonl", ""), InputFormat::kJson);
  EXPECT_EQ(*InputFormatOf("a.ndjson", ""), InputFormat::kJson);
  EXPECT_EQ(*InputFormatOf("a.parquet", "CSV"), InputFormat::kCsv);
  EXPECT_THAT(InputFormatOf("a.txt", ""), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(InputFormatOf("a.csv", "xml"), IsError(ErrorKind::kInvalidArgument));
}

TEST(TableSchemaForTest, NanosecondTimestampsBecomeMicroseconds) {
  auto input = arrow::schema({arrow::field("ts", arrow::timestamp(arrow::TimeUnit::NANO, "UTC")),
                              arrow::field("local", arrow::timestamp(arrow::TimeUnit::NANO)),
                              arrow::field("id", arrow::int64(), false)});
  auto schema = TableSchemaFor(*input);
  EXPECT_TRUE(schema->field(0)->type()->Equals(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  EXPECT_TRUE(schema->field(1)->type()->Equals(arrow::timestamp(arrow::TimeUnit::MICRO)));
  EXPECT_TRUE(schema->field(2)->Equals(*input->field(2)));
}

class InputFilesTest : public IngestTest {
 protected:
  std::shared_ptr<arrow::Schema> EventArrowSchema() {
    return *data::ToArrowSchema(*testing::EventSchema());
  }
};

TEST_F(InputFilesTest, ParquetGroupsSpanRowGroupsAndKeepTheRowOrder) {
  // a: 1000 rows in row groups of 300; b: 100 rows. Groups of 400 rows:
  // a[0,400) spans row groups 0-1, a[400,800) 1-2, a[800,1000) 2-3; b whole.
  WriteParquet(dir_.Sub("a.parquet"), *TableOf(testing::EventGroup(0, 1000, 3)), 300);
  WriteParquet(dir_.Sub("b.pq"), *TableOf(testing::EventGroup(1000, 100)), 1000);
  auto groups =
      InputGroups({dir_.Sub("a.parquet"), dir_.Sub("b.pq")}, "", 400, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  ASSERT_EQ(groups->count, 4u);
  auto in_order = ReadConcurrently(*groups);
  ASSERT_THAT(in_order, IsOk());
  EXPECT_EQ(RowCounts(*in_order), (std::vector<int64_t>{400, 400, 200, 100}));
  EXPECT_EQ(testing::RowsOf(*in_order), testing::RowsOf(testing::EventGroups(1, 1100)));
}

TEST_F(InputFilesTest, TextColumnsOfTheTableAreReadAsItsTypes) {
  // "7" would be inferred as a number; the table says name is a string.
  WriteText(dir_.Sub("a.csv"), "id,score,name,region\n1,0.5,7,eu\n2,,8,us\n");
  WriteText(dir_.Sub("b.jsonl"),
            "{\"id\": 3, \"score\": 1.5, \"name\": \"9\", \"region\": \"ap\"}\n");
  auto groups = InputGroups({dir_.Sub("a.csv"), dir_.Sub("b.jsonl")}, "", 10, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  ASSERT_EQ(groups->count, 2u);
  std::vector<RecordBatchGroup> all;
  for (size_t i = 0; i < groups->count; ++i) {
    auto group = ReadGroup(*groups, i);
    ASSERT_THAT(group, IsOk());
    for (const auto& batch : *group) {
      EXPECT_EQ(batch->schema()->GetFieldByName("name")->type()->id(), arrow::Type::STRING);
    }
    all.push_back(std::move(*group));
  }
  EXPECT_EQ(testing::RowsOf(all),
            (std::vector<testing::Row>{{1, 0.5, "7"}, {2, std::nullopt, "8"}, {3, 1.5, "9"}}));
  // Without a table, the types are inferred.
  auto inferred = ReadInputSchema(dir_.Sub("a.csv"), InputFormat::kCsv);
  ASSERT_THAT(inferred, IsOk());
  EXPECT_EQ((*inferred)->GetFieldByName("name")->type()->id(), arrow::Type::INT64);
}

// Types are inferred from the first lines only (whole lines), so a large
// file is not read whole before ingesting it.
TEST_F(InputFilesTest, SchemasAreInferredFromASampleOfWholeLines) {
  std::string csv = "id,name\n";
  for (int i = 0; i < 100; ++i) csv += StrCat(i, ",", i, "\n");
  csv += "x,y\n";
  WriteText(dir_.Sub("big.csv"), csv);
  auto whole = ReadInputSchema(dir_.Sub("big.csv"), InputFormat::kCsv);
  ASSERT_THAT(whole, IsOk());
  EXPECT_EQ((*whole)->GetFieldByName("id")->type()->id(), arrow::Type::STRING);
  // 100 bytes end inside a line: the sample stops at the newline before it.
  auto sampled = ReadInputSchema(dir_.Sub("big.csv"), InputFormat::kCsv, 100);
  ASSERT_THAT(sampled, IsOk());
  EXPECT_EQ((*sampled)->GetFieldByName("id")->type()->id(), arrow::Type::INT64);
  EXPECT_EQ((*sampled)->GetFieldByName("name")->type()->id(), arrow::Type::INT64);

  std::string json;
  for (int i = 0; i < 100; ++i) json += StrCat("{\"id\": ", i, "}\n");
  json += "{\"id\": \"x\", \"late\": 1}\n";
  WriteText(dir_.Sub("big.jsonl"), json);
  auto json_sampled = ReadInputSchema(dir_.Sub("big.jsonl"), InputFormat::kJson, 200);
  ASSERT_THAT(json_sampled, IsOk());
  EXPECT_EQ((*json_sampled)->num_fields(), 1);
  EXPECT_EQ((*json_sampled)->GetFieldByName("id")->type()->id(), arrow::Type::INT64);

  // A first line longer than the sample cannot be inferred from it.
  WriteText(dir_.Sub("wide.csv"), StrCat(std::string(300, 'a'), "\n1\n"));
  EXPECT_THAT(ReadInputSchema(dir_.Sub("wide.csv"), InputFormat::kCsv, 100),
              IsError(ErrorKind::kInvalidArgument));
}

// JSON has no dates or times: ISO text and numbers (days, microseconds)
// both read into date and time columns; --create infers dates from text.
TEST_F(InputFilesTest, JsonDatesAndTimesAreTextOrNumbers) {
  WriteText(dir_.Sub("iso.jsonl"),
            "{\"d\": \"2026-02-01\", \"t\": \"10:00:00\"}\n"
            "{\"d\": null, \"t\": null}\n");
  WriteText(dir_.Sub("numbers.jsonl"),
            "{\"d\": 20485, \"t\": 36000000000}\n"
            "{\"d\": null, \"t\": null}\n");
  auto inferred = ReadInputSchema(dir_.Sub("iso.jsonl"), InputFormat::kJson);
  ASSERT_THAT(inferred, IsOk());
  EXPECT_EQ((*inferred)->GetFieldByName("d")->type()->id(), arrow::Type::DATE32);
  spec::Schema schema(0, {{1, "d", spec::Type::Date(), false, {}, {}, {}},
                          {2, "t", spec::Type::Time(), false, {}, {}, {}}});
  auto table = *data::ToArrowSchema(schema);
  for (const char* file : {"iso.jsonl", "numbers.jsonl"}) {
    auto groups = InputGroups({dir_.Sub(file)}, "", 10, *table);
    ASSERT_THAT(groups, IsOk());
    auto group = ReadGroup(*groups, 0);
    ASSERT_THAT(group, IsOk());
    ASSERT_EQ(group->size(), 1u);
    auto conformed = data::ConformBatch(group->front(), schema);
    ASSERT_THAT(conformed, IsOk()) << file;
    const auto& dates = static_cast<const arrow::Date32Array&>(*(*conformed)->column(0));
    const auto& times = static_cast<const arrow::Time64Array&>(*(*conformed)->column(1));
    EXPECT_EQ(dates.Value(0), 20485) << file;
    EXPECT_EQ(times.Value(0), 36000000000) << file;
    EXPECT_TRUE(dates.IsNull(1) && times.IsNull(1)) << file;
  }
}

TEST_F(InputFilesTest, TextGroupsAreDecodedWhenReadNotUpFront) {
  // a.csv: ids 1-5, b.jsonl: ids 6-8; groups of 2: a 0-2, b 3-4.
  WriteText(dir_.Sub("a.csv"),
            "id,score,name,region\n1,,a,eu\n2,,b,eu\n3,,c,eu\n4,,d,eu\n5,,e,eu\n");
  const auto json = [](std::initializer_list<int> ids) {
    std::string text;
    for (int id : ids) text += StrCat("{\"id\": ", id, ", \"name\": \"j", id, "\"}\n");
    return text;
  };
  WriteText(dir_.Sub("b.jsonl"), json({6, 7, 8}));
  auto groups = InputGroups({dir_.Sub("a.csv"), dir_.Sub("b.jsonl")}, "", 2, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  ASSERT_EQ(groups->count, 5u);
  // What the groups hold is read when they are, not when InputGroups()
  // counted the rows: b's new rows are read, and a is never opened.
  WriteText(dir_.Sub("b.jsonl"), json({60, 70, 80}));
  std::filesystem::remove(dir_.Sub("a.csv"));
  auto last = ReadGroup(*groups, 4);  // decodes group 3 on the way
  ASSERT_THAT(last, IsOk());
  EXPECT_EQ(testing::RowsOf({*last}), (std::vector<testing::Row>{{80, std::nullopt, "j80"}}));
  auto before = ReadGroup(*groups, 3);
  ASSERT_THAT(before, IsOk());
  EXPECT_EQ(testing::RowsOf({*before}),
            (std::vector<testing::Row>{{60, std::nullopt, "j60"}, {70, std::nullopt, "j70"}}));
  EXPECT_THAT(ReadGroup(*groups, 0), IsError(ErrorKind::kNotFound));
}

TEST_F(InputFilesTest, ATextFileThatChangedItsRowCountIsAnError) {
  WriteText(dir_.Sub("a.csv"), "id\n1\n2\n");
  WriteText(dir_.Sub("b.jsonl"), "{\"id\": 1}\n\n  \n{\"id\": 2}\n");  // blank lines: no rows
  auto groups = InputGroups({dir_.Sub("a.csv"), dir_.Sub("b.jsonl")}, "", 10, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  ASSERT_EQ(groups->count, 2u);
  WriteText(dir_.Sub("a.csv"), "id\n1\n2\n3\n");
  WriteText(dir_.Sub("b.jsonl"), "{\"id\": 1}\n");
  EXPECT_THAT(ReadGroup(*groups, 0), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ReadGroup(*groups, 1), IsError(ErrorKind::kInvalidArgument));
}

// Review finding: a JSON object across two lines, or two on one, was
// reported as "changed while being read"; the error says what a JSON-lines
// record must be.
TEST_F(InputFilesTest, JsonRowsThatAreNotItsLinesAreExplained) {
  WriteText(dir_.Sub("across.jsonl"), "{\"id\": 1,\n \"name\": \"a\"}\n{\"id\": 2}\n");
  WriteText(dir_.Sub("two.jsonl"), "{\"id\": 1} {\"id\": 2}\n{\"id\": 3}\n");
  for (const char* name : {"across.jsonl", "two.jsonl"}) {
    auto groups = InputGroups({dir_.Sub(name)}, "", 10, *EventArrowSchema());
    ASSERT_THAT(groups, IsOk());
    EXPECT_THAT(
        ReadGroup(*groups, 0),
        IsErrorWithMessage(ErrorKind::kInvalidArgument, "each line must hold one whole JSON value"))
        << name;
  }
}

TEST_F(InputFilesTest, CsvGroupsReadConcurrentlyKeepTheRowOrder) {
  // 60000 rows (~1.6 MB): several reader blocks, groups not aligned to them.
  {
    auto out = arrow::io::FileOutputStream::Open(dir_.Sub("a.csv")).ValueOrDie();
    ASSERT_TRUE(arrow::csv::WriteCSV(*TableOf(testing::EventGroup(0, 60000, 3)),
                                     arrow::csv::WriteOptions::Defaults(), out.get())
                    .ok());
    ASSERT_TRUE(out->Close().ok());
  }
  auto groups = InputGroups({dir_.Sub("a.csv")}, "", 7000, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  ASSERT_EQ(groups->count, 9u);
  auto in_order = ReadConcurrently(*groups);
  ASSERT_THAT(in_order, IsOk());
  std::vector<int64_t> rows(8, 7000);
  rows.push_back(4000);
  EXPECT_EQ(RowCounts(*in_order), rows);
  EXPECT_EQ(testing::RowsOf(*in_order), testing::RowsOf(testing::EventGroups(1, 60000)));
}

TEST_F(InputFilesTest, ParquetSchemaComesFromTheFooter) {
  WriteParquet(dir_.Sub("a.parquet"), *TableOf(testing::EventGroup(0, 10)), 5);
  auto schema = ReadInputSchema(dir_.Sub("a.parquet"), InputFormat::kParquet);
  ASSERT_THAT(schema, IsOk());
  EXPECT_EQ((*schema)->num_fields(), 4);
  EXPECT_EQ((*schema)->field(0)->name(), "id");
  EXPECT_EQ((*schema)->field(0)->type()->id(), arrow::Type::INT64);
}

TEST_F(InputFilesTest, MissingOrUnreadableFilesAreErrors) {
  EXPECT_THAT(InputGroups({dir_.Sub("none.parquet")}, "", 10, *EventArrowSchema()),
              IsError(ErrorKind::kNotFound));
  WriteText(dir_.Sub("bad.parquet"), "not parquet at all");
  EXPECT_THAT(InputGroups({dir_.Sub("bad.parquet")}, "", 10, *EventArrowSchema()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(InputGroups({dir_.Sub("bad.parquet")}, "", 0, *EventArrowSchema()),
              IsError(ErrorKind::kInvalidArgument));
}

// Every row of every group of `groups`, read in order, as one table.
std::shared_ptr<arrow::Table> ReadAll(const GroupSource& groups) {
  RecordBatchGroup all;
  for (size_t i = 0; i < groups.count; ++i) {
    auto group = ReadGroup(groups, i);
    EXPECT_THAT(group, IsOk());
    if (!group) return nullptr;
    all.insert(all.end(), group->begin(), group->end());
  }
  return TableOf(all)->CombineChunks().ValueOrDie();
}

std::string Nested(int depth, std::string_view open, std::string_view close) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += open;
  for (int i = 0; i < depth; ++i) text += close;
  return text;
}

// Regression: Arrow's JSON builder recursed once per level and a line of
// 20,000 nested arrays crashed the ingest (stack overflow) whenever types
// were inferred (a created table, an unknown field).
TEST_F(InputFilesTest, JsonNestedDeeperThanTheLimitIsRefusedBeforeArrowReadsIt) {
  const auto table = arrow::schema({arrow::field("id", arrow::int64())});
  WriteText(dir_.Sub("deep.jsonl"),
            StrCat("{\"id\": 1}\n{\"id\": 9, \"zzz\": ", Nested(20000, "[", "]"), "}\n"));
  const std::string where = StrCat(dir_.Sub("deep.jsonl"), ": line 2: JSON nested deeper than 64");
  EXPECT_THAT(ReadInputSchema(dir_.Sub("deep.jsonl"), InputFormat::kJson),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, where));
  EXPECT_THAT(InputGroups({dir_.Sub("deep.jsonl")}, "", 10, *table),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, where));
  auto parse = [](const std::string& text) {
    return ParseTextRows(arrow::Buffer::FromString(text), InputFormat::kJson, {}, nullptr);
  };
  EXPECT_THAT(parse(StrCat("{\"a\": ", Nested(8000, "[", "]"), "}\n")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "deeper than 64"));
  EXPECT_THAT(parse(StrCat(Nested(20000, "{\"a\": ", "}"), "\n")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "deeper than 64"));
  // The line's object and 63 arrays are 64 levels; brackets in strings
  // (escaped quotes too) are text.
  EXPECT_THAT(parse(StrCat("{\"a\": ", Nested(63, "[", "]"), "}\n")), IsOk());
  EXPECT_THAT(parse(StrCat("{\"a\": ", Nested(64, "[", "]"), "}\n")),
              IsError(ErrorKind::kInvalidArgument));
  auto text = parse(StrCat("{\"s\": \"\\\"", std::string(100, '['), "\"}\n"));
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ((*text)->num_rows(), 1);
}

// Regression: Arrow's reader read a `null` line as a row of nulls, which the
// ingest committed; a line of another value failed with "Column() changed
// from object to number". A JSON-lines row is an object (a byte order mark
// may start a file, and only a file; blanks may start a line).
TEST_F(InputFilesTest, JsonLinesThatAreNotObjectsAreRefused) {
  auto parse = [](const std::string& text) {
    return ParseTextRows(arrow::Buffer::FromString(text), InputFormat::kJson, {}, nullptr);
  };
  for (const auto& [line, kind] :
       std::vector<std::pair<std::string, std::string>>{{"null", "null"},
                                                        {" -3", "a number"},
                                                        {"\"x\"", "a string"},
                                                        {"[{\"a\": 1}]", "an array"},
                                                        {"false", "a boolean"}}) {
    SCOPED_TRACE(line);
    EXPECT_THAT(
        parse(StrCat("{\"a\": 1}\n", line, "\n")),
        IsErrorWithMessage(ErrorKind::kInvalidArgument,
                           StrCat("each line must hold a JSON object ({...}), not ", kind)));
  }
  auto rows = parse("{\"a\": 1}\r\n\t {}\n\n  {\"a\": 2}");
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ((*rows)->num_rows(), 3);
  // In lines read from a stream a byte order mark is text (the stream takes
  // one off its first line), so the line fails alone, as in its batch.
  EXPECT_THAT(parse("\xEF\xBB\xBF{\"a\": 1}\n"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not text starting with byte 0xEF"));
  const auto table = arrow::schema({arrow::field("id", arrow::int64())});
  // A file's mark, a blank line after it too, counts as no row.
  WriteText(dir_.Sub("marked.jsonl"), "\xEF\xBB\xBF\n{\"id\": 1}\n{\"id\": 2}\n");
  auto marked = InputGroups({dir_.Sub("marked.jsonl")}, "", 10, *table);
  ASSERT_THAT(marked, IsOk());
  EXPECT_EQ(ReadAll(*marked)->num_rows(), 2);
  WriteText(dir_.Sub("nulls.jsonl"), "{\"id\": 1}\nnull\n");
  EXPECT_THAT(InputGroups({dir_.Sub("nulls.jsonl")}, "", 10, *table),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 StrCat(dir_.Sub("nulls.jsonl"), ": line 2: each line must hold")));
}

// Regression: quoted newlines (RFC 4180) lost the CSV reader's sync once a
// file was larger than one block (1 MiB).
TEST_F(InputFilesTest, CsvQuotedNewlinesAreReadInFilesOfManyBlocks) {
  std::string csv = "id,s,t\n";
  for (int i = 0; i < 100000; ++i) csv += StrCat(i, ",\"ab\ncd ", i, "\",x", i, "\n");
  WriteText(dir_.Sub("quoted.csv"), csv);
  auto inferred = ReadInputSchema(dir_.Sub("quoted.csv"), InputFormat::kCsv);
  ASSERT_THAT(inferred, IsOk());
  // A sample ends at a record's end, not at a newline inside a quoted value
  // (byte 27 is the one in row 1's).
  auto sampled = ReadInputSchema(dir_.Sub("quoted.csv"), InputFormat::kCsv, 30);
  ASSERT_THAT(sampled, IsOk());
  EXPECT_TRUE((*sampled)->Equals(**inferred)) << (*sampled)->ToString();
  auto groups = InputGroups({dir_.Sub("quoted.csv")}, "", 30000, **inferred);
  ASSERT_THAT(groups, IsOk());
  auto rows = ReadAll(*groups);
  ASSERT_NE(rows, nullptr);
  ASSERT_EQ(rows->num_rows(), 100000);
  auto s = std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("s")->chunk(0));
  EXPECT_EQ(s->GetView(99999), "ab\ncd 99999");
}

// Regression: a JSON line or CSV field over 1 MiB (Arrow's block) failed in
// a file ("straddles two block boundaries") though a stream takes 16 MiB.
TEST_F(InputFilesTest, RecordsUpToTheStreamLimitAreReadFromFiles) {
  const auto table =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8())});
  const std::string long_value(3 << 20, 'x');
  WriteText(dir_.Sub("long.jsonl"),
            StrCat("{\"id\": 1, \"s\": \"", long_value, "\"}\n{\"id\": 2}\n"));
  WriteText(dir_.Sub("long.csv"), StrCat("id,s\n1,", long_value, "\n2,\"", long_value, "\"\n"));
  for (const char* name : {"long.jsonl", "long.csv"}) {
    SCOPED_TRACE(name);
    auto groups = InputGroups({dir_.Sub(name)}, "", 10, *table);
    ASSERT_THAT(groups, IsOk());
    auto rows = ReadAll(*groups);
    ASSERT_NE(rows, nullptr);
    ASSERT_EQ(rows->num_rows(), 2);
    auto s = std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("s")->chunk(0));
    EXPECT_EQ(s->GetView(0).size(), long_value.size());
  }
  // Longer than a stream takes: an error naming the file and the limit.
  WriteText(dir_.Sub("too_long.jsonl"),
            StrCat("{\"id\": 1}\n{\"s\": \"", std::string(kMaxRecordBytes, 'x'), "\"}\n"));
  EXPECT_THAT(
      InputGroups({dir_.Sub("too_long.jsonl")}, "", 10, *table),
      IsErrorWithMessage(ErrorKind::kInvalidArgument,
                         StrCat(dir_.Sub("too_long.jsonl"), ": line 2: a line is longer than ",
                                kMaxRecordBytes, " bytes")));
}

TEST_F(InputFilesTest, IngestsFilesThroughThePipelines) {
  WriteParquet(dir_.Sub("a.parquet"), *TableOf(testing::EventGroup(0, 900, 3)), 250);
  auto groups = InputGroups({dir_.Sub("a.parquet")}, "", 300, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  IngestOptions options;
  options.files_per_commit = 2;
  auto result = IngestPipelinedOverlap(Create("events"), *groups, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.files, 3);
  EXPECT_EQ(result->stats.snapshots, 2);
  EXPECT_EQ(testing::CommittedRows(result->table), testing::RowsOf(testing::EventGroups(1, 900)));
}

TEST_F(InputFilesTest, AFileThatDoesNotFitTheTableCommitsNothing) {
  WriteParquet(dir_.Sub("ok.parquet"), *TableOf(testing::EventGroup(0, 10)), 10);
  arrow::StringBuilder ids;
  ASSERT_TRUE(ids.Append("not a number").ok());
  auto bad = arrow::Table::Make(arrow::schema({arrow::field("id", arrow::utf8())}),
                                {ids.Finish().ValueOrDie()});
  WriteParquet(dir_.Sub("bad.parquet"), *bad, 10);
  auto groups =
      InputGroups({dir_.Sub("ok.parquet"), dir_.Sub("bad.parquet")}, "", 100, *EventArrowSchema());
  ASSERT_THAT(groups, IsOk());
  table::Table table = Create("events");
  auto result = IngestPipelined(table, *groups);
  ASSERT_THAT(result, IsError(ErrorKind::kInvalidArgument));
  EXPECT_NE(result.error().message.find("id"), std::string::npos) << result.error().message;
  EXPECT_TRUE(table.Refresh()->metadata().snapshots.empty());
  EXPECT_TRUE(DataFilesOnDisk(table).empty());
}

}  // namespace
}  // namespace skade::ingest
