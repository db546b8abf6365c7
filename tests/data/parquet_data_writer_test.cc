#include "skade/data/parquet_data_writer.h"

#include <arrow/api.h>
#include <gtest/gtest.h>
#include <parquet/column_page.h>
#include <parquet/column_reader.h>
#include <parquet/schema.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include "data_test_util.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/conform_batch.h"
#include "skade/data/rolling_data_writer.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/spec/table_properties.h"
#include "skade/spec/truncation.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsError;
using skade::testing::IsOk;
using spec::Literal;
using spec::Type;
using testing::BatchFromJson;
using testing::MakeSchema;
using testing::Optional;
using testing::ReadBytes;
using testing::ReadFooter;
using testing::ReadTable;
using testing::Required;
using testing::TempDir;

spec::SchemaPtr WideSchema() {
  return MakeSchema({
      Required(1, "id", Type::Long()),
      Optional(2, "name", Type::String()),
      Optional(3, "price", Type::Double()),
      Optional(4, "ratio", Type::Float()),
      Optional(5, "flag", Type::Boolean()),
      Optional(6, "day", Type::Date()),
      Optional(7, "ts", Type::TimestampTz()),
      Optional(8, "amount", Type::Decimal(9, 2)),
      Optional(9, "big", Type::Decimal(38, 4)),
      Optional(10, "uid", Type::Uuid()),
      Optional(11, "code", Type::Fixed(3)),
      Optional(12, "blob", Type::Binary()),
      Optional(
          13, "point",
          Type::Struct({Optional(14, "x", Type::Double()), Optional(15, "label", Type::String())})),
      Optional(16, "tags", Type::List(Optional(17, "element", Type::String()))),
      Optional(18, "props",
               Type::Map(Required(19, "key", Type::String()), Optional(20, "value", Type::Long()))),
      Optional(21, "t", Type::Time()),
      Optional(22, "tsn", Type::TimestampNs()),
  });
}

// Random rows for WideSchema, plus what the metrics must say about them.
struct WideData {
  std::shared_ptr<arrow::RecordBatch> batch;
  int64_t rows = 0;
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  std::vector<std::optional<double>> prices;
  std::vector<std::optional<float>> ratios;
  std::vector<std::optional<int32_t>> days;
  std::vector<std::optional<int64_t>> amounts;  // unscaled
  std::vector<std::optional<double>> xs;        // point.x, null when point is null
};

WideData MakeWideData(int64_t rows, uint32_t seed) {
  std::mt19937 random(seed);
  auto chance = [&](int percent) { return static_cast<int>(random() % 100) < percent; };
  const char* words[] = {"alpha",
                         "\xc3\xbc"
                         "ber",
                         "\xe2\x82\xac"
                         "uro",
                         "\xf0\x9f\x98\x80"
                         "smile",
                         "a-very-long-name-that-is-longer-than-sixteen-code-points",
                         "zeta"};
  WideData data;
  data.rows = rows;
  std::string json = "[";
  for (int64_t i = 0; i < rows; ++i) {
    int64_t id = static_cast<int64_t>(random() % 100000) - 50000;
    data.ids.push_back(id);
    std::optional<std::string> name;
    if (!chance(10)) name = std::string(words[random() % 6]) + std::to_string(random() % 50);
    data.names.push_back(name);
    std::optional<double> price;
    std::string price_json = "null";
    if (!chance(10)) {
      if (chance(10)) {
        price = std::nan("");
        price_json = "NaN";
      } else {
        price = static_cast<double>(static_cast<int64_t>(random() % 20000) - 10000) / 8.0;
        price_json = std::to_string(*price);
      }
    }
    data.prices.push_back(price);
    std::optional<float> ratio;
    std::string ratio_json = "null";
    if (!chance(5)) {
      if (chance(5)) {
        ratio = std::nanf("");
        ratio_json = "NaN";
      } else {
        ratio = static_cast<float>(random() % 1000) / 4.0F;
        ratio_json = std::to_string(*ratio);
      }
    }
    data.ratios.push_back(ratio);
    std::optional<int32_t> day;
    if (!chance(10)) day = static_cast<int32_t>(random() % 40000) - 20000;
    data.days.push_back(day);
    std::optional<int64_t> amount;
    if (!chance(10)) amount = static_cast<int64_t>(random() % 2000000) - 1000000;
    data.amounts.push_back(amount);
    bool point_null = chance(10);
    std::optional<double> x;
    if (!point_null && !chance(10)) x = static_cast<double>(random() % 1000) - 500.5;
    data.xs.push_back(x);

    auto quoted = [](const std::optional<std::string>& s) {
      return s ? "\"" + *s + "\"" : std::string("null");
    };
    auto number = [](const auto& v) { return v ? std::to_string(*v) : std::string("null"); };
    auto decimal = [](std::optional<int64_t> unscaled, int scale) -> std::string {
      if (!unscaled) return "null";
      std::string digits = std::to_string(std::llabs(*unscaled));
      while (static_cast<int>(digits.size()) <= scale) digits.insert(0, "0");
      digits.insert(digits.size() - scale, ".");
      return std::string("\"") + (*unscaled < 0 ? "-" : "") + digits + "\"";
    };
    if (i > 0) json += ",";
    json +=
        "{\"id\":" + std::to_string(id) + ",\"name\":" + quoted(name) + ",\"price\":" + price_json +
        ",\"ratio\":" + ratio_json +
        ",\"flag\":" + (chance(20) ? "null" : (chance(50) ? "true" : "false")) +
        ",\"day\":" + number(day) + ",\"ts\":" + std::to_string(id * 1000003) +
        ",\"amount\":" + decimal(amount, 2) +
        ",\"big\":" + decimal(amount ? std::optional<int64_t>(*amount * 7919) : std::nullopt, 4) +
        ",\"uid\":" + (chance(10) ? "null" : "\"" + std::string(16, 'a' + random() % 26) + "\"") +
        ",\"code\":\"" + std::string(3, 'A' + random() % 26) + "\"" +
        ",\"blob\":" + (chance(10) ? "null" : "\"b" + std::to_string(random() % 1000) + "\"") +
        ",\"point\":" +
        (point_null ? std::string("null")
                    : "{\"x\":" + number(x) + ",\"label\":" + quoted(name) + "}") +
        ",\"tags\":" + (chance(10) ? "null" : "[\"t1\", null, \"t" + std::to_string(i) + "\"]") +
        ",\"props\":" + (chance(10) ? "null" : "[[\"k\"," + std::to_string(i) + "]]") +
        ",\"t\":" + std::to_string(random() % 86400000000LL) +
        ",\"tsn\":" + std::to_string(id * 1000000007LL) + "}";
  }
  json += "]";
  // JSON cannot build arrow.uuid values: build fixed_size_binary(16) and let
  // ConformBatch retag it.
  auto arrow_schema = ToArrowSchema(*WideSchema()).value();
  int uid = arrow_schema->GetFieldIndex("uid");
  arrow_schema =
      arrow_schema->SetField(uid, arrow_schema->field(uid)->WithType(arrow::fixed_size_binary(16)))
          .ValueOrDie();
  data.batch = ConformBatch(BatchFromJson(arrow_schema, json), *WideSchema()).value();
  return data;
}

Result<spec::DataFile> WriteFile(const std::string& path, const spec::SchemaPtr& schema,
                                 const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                                 const std::map<std::string, std::string>& properties = {}) {
  auto io = io::NewLocalFileIO();
  SKADE_ASSIGN_OR_RAISE(auto options, DataWriterOptions::FromProperties(properties));
  SKADE_ASSIGN_OR_RAISE(auto writer, ParquetDataWriter::Open(*io, path, schema, options));
  for (const auto& batch : batches) SKADE_RETURN_NOT_OK(writer->Write(batch));
  return writer->Close();
}

template <typename T>
T Decode(const std::string& bytes) {
  T value;
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

TEST(ParquetDataWriterTest, EveryParquetColumnCarriesItsFieldId) {
  TempDir dir;
  auto schema = WideSchema();
  auto data = MakeWideData(10, 1);
  ASSERT_THAT(WriteFile(dir.Path("f.parquet"), schema, {data.batch}), IsOk());
  auto footer = ReadFooter(dir.Path("f.parquet"));
  const parquet::SchemaDescriptor& parquet_schema = *footer->schema();
  for (int c = 0; c < parquet_schema.num_columns(); ++c) {
    std::string path = parquet_schema.Column(c)->path()->ToDotString();
    int32_t id = parquet_schema.Column(c)->schema_node()->field_id();
    const spec::NestedField* field = schema->FindFieldById(id);
    ASSERT_NE(field, nullptr) << path;
    EXPECT_TRUE(path.ends_with(field->name)) << path << " has id " << id;
  }
  // Groups: struct, list and map carry their ids too.
  const auto& root = *parquet_schema.group_node();
  for (int i = 0; i < root.field_count(); ++i) {
    const spec::NestedField* field = schema->FindFieldById(root.field(i)->field_id());
    ASSERT_NE(field, nullptr) << root.field(i)->name();
    EXPECT_EQ(field->name, root.field(i)->name());
  }
  EXPECT_EQ(footer->created_by(), kParquetCreatedBy);
}

TEST(ParquetDataWriterTest, ReadsBackRowForRow) {
  TempDir dir;
  auto schema = WideSchema();
  auto data = MakeWideData(500, 2);
  ASSERT_THAT(
      WriteFile(dir.Path("f.parquet"), schema, {data.batch->Slice(0, 200), data.batch->Slice(200)}),
      IsOk());
  auto table = ReadTable(dir.Path("f.parquet"));
  auto expected = testing::AsTable(data.batch);
  ASSERT_TRUE(table->schema()->Equals(*expected->schema(), /*check_metadata=*/false))
      << table->schema()->ToString();
  EXPECT_TRUE(testing::SameRows(*table, *expected));
}

TEST(ParquetDataWriterTest, MetricsMatchTheData) {
  TempDir dir;
  auto schema = WideSchema();
  auto data = MakeWideData(2000, 3);
  // Several row groups, so bounds and counts combine across chunks.
  auto file = WriteFile(dir.Path("f.parquet"), schema, {data.batch},
                        {{spec::kParquetRowGroupSizeBytes, "32768"}});
  ASSERT_THAT(file, IsOk());
  auto footer = ReadFooter(dir.Path("f.parquet"));
  ASSERT_GT(footer->num_row_groups(), 2);

  EXPECT_EQ(file->file_format, spec::FileFormat::kParquet);
  EXPECT_EQ(file->record_count, data.rows);
  EXPECT_EQ(file->file_size_in_bytes,
            static_cast<int64_t>(ReadBytes(dir.Path("f.parquet")).size()));

  // Column sizes: every leaf, list and map elements included.
  std::map<int32_t, int64_t> sizes;
  std::vector<int64_t> starts;
  for (int r = 0; r < footer->num_row_groups(); ++r) {
    auto row_group = footer->RowGroup(r);
    auto first = row_group->ColumnChunk(0);
    starts.push_back(first->has_dictionary_page() ? first->dictionary_page_offset()
                                                  : first->data_page_offset());
    for (int c = 0; c < row_group->num_columns(); ++c) {
      sizes[footer->schema()->Column(c)->schema_node()->field_id()] +=
          row_group->ColumnChunk(c)->total_compressed_size();
    }
  }
  EXPECT_EQ(file->column_sizes, sizes);
  EXPECT_EQ(file->split_offsets, starts);

  // Counts.
  auto count_nulls = [](const auto& values) {
    return static_cast<int64_t>(std::count(values.begin(), values.end(), std::nullopt));
  };
  EXPECT_EQ(file->value_counts.at(1), data.rows);
  EXPECT_EQ(file->null_value_counts.at(1), 0);
  EXPECT_EQ(file->value_counts.at(2), data.rows);
  EXPECT_EQ(file->null_value_counts.at(2), count_nulls(data.names));
  EXPECT_EQ(file->null_value_counts.at(3), count_nulls(data.prices));
  EXPECT_EQ(file->null_value_counts.at(14), count_nulls(data.xs));
  int64_t price_nans = std::count_if(data.prices.begin(), data.prices.end(),
                                     [](auto p) { return p && std::isnan(*p); });
  int64_t ratio_nans = std::count_if(data.ratios.begin(), data.ratios.end(),
                                     [](auto p) { return p && std::isnan(*p); });
  ASSERT_GT(price_nans, 0);
  EXPECT_EQ(file->nan_value_counts.at(3), price_nans);
  EXPECT_EQ(file->nan_value_counts.at(4), ratio_nans);
  EXPECT_EQ(file->nan_value_counts.at(14), 0);
  EXPECT_EQ(file->nan_value_counts.count(1), 0U);  // only float and double
  // Nothing but sizes inside lists and maps.
  for (int32_t id : {17, 19, 20}) {
    EXPECT_EQ(file->value_counts.count(id), 0U) << id;
    EXPECT_EQ(file->lower_bounds.count(id), 0U) << id;
    EXPECT_GT(file->column_sizes.count(id), 0U) << id;
  }

  // Bounds.
  EXPECT_EQ(Decode<int64_t>(file->lower_bounds.at(1)),
            *std::min_element(data.ids.begin(), data.ids.end()));
  EXPECT_EQ(Decode<int64_t>(file->upper_bounds.at(1)),
            *std::max_element(data.ids.begin(), data.ids.end()));
  double min_price = INFINITY, max_price = -INFINITY;
  for (auto p : data.prices) {
    if (p && !std::isnan(*p))
      min_price = std::min(min_price, *p), max_price = std::max(max_price, *p);
  }
  EXPECT_EQ(Decode<double>(file->lower_bounds.at(3)), min_price);
  EXPECT_EQ(Decode<double>(file->upper_bounds.at(3)), max_price);
  double min_x = INFINITY, max_x = -INFINITY;
  for (auto x : data.xs) {
    if (x) min_x = std::min(min_x, *x), max_x = std::max(max_x, *x);
  }
  EXPECT_EQ(Decode<double>(file->lower_bounds.at(14)), min_x);
  EXPECT_EQ(Decode<double>(file->upper_bounds.at(14)), max_x);
  int32_t min_day = INT32_MAX, max_day = INT32_MIN;
  for (auto d : data.days) {
    if (d) min_day = std::min(min_day, *d), max_day = std::max(max_day, *d);
  }
  EXPECT_EQ(Decode<int32_t>(file->lower_bounds.at(6)), min_day);
  EXPECT_EQ(Decode<int32_t>(file->upper_bounds.at(6)), max_day);
  int64_t min_amount = INT64_MAX, max_amount = INT64_MIN;
  for (auto a : data.amounts) {
    if (a) min_amount = std::min(min_amount, *a), max_amount = std::max(max_amount, *a);
  }
  auto decimal_bound = [&](const std::string& bytes) {
    auto literal = Literal::FromBytes(Type::Decimal(9, 2), bytes).value();
    const std::string& be = std::get<std::string>(literal.value());
    int64_t value = static_cast<int8_t>(be[0]);
    for (size_t i = 1; i < be.size(); ++i) value = value * 256 + static_cast<uint8_t>(be[i]);
    return value;
  };
  EXPECT_EQ(decimal_bound(file->lower_bounds.at(8)), min_amount);
  EXPECT_EQ(decimal_bound(file->upper_bounds.at(8)), max_amount);
  // Strings: truncated to 16 code points, upper incremented.
  std::string min_name, max_name;
  bool first = true;
  for (const auto& n : data.names) {
    if (!n) continue;
    if (first || *n < min_name) min_name = *n;
    if (first || *n > max_name) max_name = *n;
    first = false;
  }
  EXPECT_EQ(file->lower_bounds.at(2), spec::TruncateUtf8(min_name, 16));
  EXPECT_EQ(file->upper_bounds.at(2), spec::TruncateUtf8UpperBound(max_name, 16).value());
  EXPECT_LE(file->lower_bounds.at(2), min_name);
  EXPECT_GE(file->upper_bounds.at(2), max_name);
  // Every bound decodes as its column's type.
  for (const auto& [id, bytes] : file->lower_bounds) {
    EXPECT_THAT(Literal::FromBytes(schema->FindFieldById(id)->type, bytes), IsOk()) << id;
  }
  for (const auto& [id, bytes] : file->upper_bounds) {
    EXPECT_THAT(Literal::FromBytes(schema->FindFieldById(id)->type, bytes), IsOk()) << id;
  }
}

}  // namespace
}  // namespace skade::data

namespace skade::data {
namespace {

spec::SchemaPtr StringsSchema() {
  return MakeSchema({Optional(1, "s", Type::String()), Optional(2, "b", Type::Binary()),
                     Optional(3, "f", Type::Double()),
                     Optional(4, "p", Type::Struct({Optional(5, "q", Type::String())}))});
}

std::shared_ptr<arrow::RecordBatch> StringsBatch(const std::string& rows) {
  return BatchFromJson(ToArrowSchema(*StringsSchema()).value(), rows);
}

TEST(ParquetDataWriterTest, TruncatedUpperBoundCarriesOrIsDropped) {
  TempDir dir;
  // s: the max is 'a' + 20 x U+10FFFF, so the 16-code-point prefix can only
  // be bounded by incrementing the 'a'. b: the max's first 16 bytes are all
  // 0xFF, so it has no upper bound at all.
  std::string max_code_points;
  for (int i = 0; i < 20; ++i) max_code_points += "\\udbff\\udfff";
  auto json = StringsBatch(R"([{"s": "a)" + max_code_points + R"(", "f": NaN,
                                 "p": {"q": "abcdefghijklmnopqrstuvwxyz"}},
                                {"s": "Zebra", "f": NaN, "p": null}])");
  // JSON strings are UTF-8, so raw 0xFF bytes need a builder.
  arrow::BinaryBuilder bytes;
  ASSERT_TRUE(bytes.Append(std::string(20, '\xff')).ok());
  ASSERT_TRUE(bytes.Append("short").ok());
  auto batch =
      json->SetColumn(1, json->schema()->field(1), bytes.Finish().ValueOrDie()).ValueOrDie();
  auto file = WriteFile(dir.Path("f.parquet"), StringsSchema(), {batch});
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->lower_bounds.at(1), "Zebra");
  EXPECT_EQ(file->upper_bounds.at(1), "b");
  EXPECT_EQ(file->lower_bounds.at(2), "short");
  EXPECT_EQ(file->upper_bounds.count(2), 0U);
  // Only NaNs: counted, but no bounds.
  EXPECT_EQ(file->nan_value_counts.at(3), 2);
  EXPECT_EQ(file->lower_bounds.count(3), 0U);
  EXPECT_EQ(file->upper_bounds.count(3), 0U);
  // Struct fields get bounds (only lists and maps do not).
  EXPECT_EQ(file->lower_bounds.at(5), "abcdefghijklmnop");
  EXPECT_EQ(file->upper_bounds.at(5), "abcdefghijklmnoq");
  EXPECT_EQ(file->null_value_counts.at(5), 1);
}

TEST(ParquetDataWriterTest, AllNullColumnHasCountsButNoBounds) {
  TempDir dir;
  auto file = WriteFile(dir.Path("f.parquet"), StringsSchema(),
                        {StringsBatch(R"([{"s": null}, {"s": null}, {"s": null}])")});
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->value_counts.at(1), 3);
  EXPECT_EQ(file->null_value_counts.at(1), 3);
  EXPECT_EQ(file->nan_value_counts.at(3), 0);
  EXPECT_TRUE(file->lower_bounds.empty());
  EXPECT_TRUE(file->upper_bounds.empty());
}

TEST(ParquetDataWriterTest, MetricsModesFromProperties) {
  TempDir dir;
  auto batch = StringsBatch(R"([{"s": "abcdefghijklmnopqrstuvwxyz", "b": "x", "f": 1.5,
                                  "p": {"q": "0123456789abcdefghij"}}])");
  auto none = WriteFile(dir.Path("none.parquet"), StringsSchema(), {batch},
                        {{spec::kMetricsDefault, "none"}});
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->column_sizes.empty());
  EXPECT_TRUE(none->value_counts.empty());
  EXPECT_TRUE(none->nan_value_counts.empty());
  EXPECT_TRUE(none->lower_bounds.empty());
  EXPECT_EQ(none->record_count, 1);

  auto counts = WriteFile(dir.Path("counts.parquet"), StringsSchema(), {batch},
                          {{spec::kMetricsDefault, "counts"}});
  ASSERT_THAT(counts, IsOk());
  EXPECT_EQ(counts->value_counts.size(), 4U);
  EXPECT_EQ(counts->nan_value_counts.at(3), 0);
  EXPECT_TRUE(counts->lower_bounds.empty());

  auto full = WriteFile(dir.Path("full.parquet"), StringsSchema(), {batch},
                        {{spec::kMetricsDefault, "full"}});
  ASSERT_THAT(full, IsOk());
  EXPECT_EQ(full->upper_bounds.at(1), "abcdefghijklmnopqrstuvwxyz");

  auto truncate4 = WriteFile(dir.Path("t4.parquet"), StringsSchema(), {batch},
                             {{spec::kMetricsDefault, "truncate(4)"}});
  ASSERT_THAT(truncate4, IsOk());
  EXPECT_EQ(truncate4->lower_bounds.at(1), "abcd");
  EXPECT_EQ(truncate4->upper_bounds.at(1), "abce");
  // Non-string columns are never truncated.
  EXPECT_EQ(Decode<double>(truncate4->upper_bounds.at(3)), 1.5);

  auto per_column = WriteFile(dir.Path("col.parquet"), StringsSchema(), {batch},
                              {{spec::kMetricsDefault, "none"},
                               {std::string(spec::kMetricsColumnPrefix) + "s", "full"},
                               {std::string(spec::kMetricsColumnPrefix) + "p.q", "counts"}});
  ASSERT_THAT(per_column, IsOk());
  EXPECT_EQ(per_column->upper_bounds.at(1), "abcdefghijklmnopqrstuvwxyz");
  EXPECT_EQ(per_column->value_counts.count(2), 0U);
  EXPECT_EQ(per_column->value_counts.at(5), 1);
  EXPECT_EQ(per_column->lower_bounds.count(5), 0U);

  EXPECT_THAT(WriteFile(dir.Path("bad.parquet"), StringsSchema(), {batch},
                        {{spec::kMetricsDefault, "truncate(0)"}}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(ParquetDataWriterTest, SameInputGivesIdenticalBytes) {
  TempDir dir;
  auto data = MakeWideData(3000, 4);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {
      data.batch->Slice(0, 1000), data.batch->Slice(1000, 1500), data.batch->Slice(2500)};
  std::map<std::string, std::string> properties = {{spec::kParquetRowGroupSizeBytes, "65536"}};
  auto first = WriteFile(dir.Path("a.parquet"), WideSchema(), batches, properties);
  auto second = WriteFile(dir.Path("b.parquet"), WideSchema(), batches, properties);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_GT(ReadFooter(dir.Path("a.parquet"))->num_row_groups(), 1);
  std::string a = ReadBytes(dir.Path("a.parquet"));
  EXPECT_EQ(a, ReadBytes(dir.Path("b.parquet")));
  first->file_path = second->file_path;
  EXPECT_EQ(*first, *second);
}

TEST(ParquetDataWriterTest, CompressionCodecFromProperties) {
  TempDir dir;
  auto data = MakeWideData(200, 5);
  const std::pair<const char*, parquet::Compression::type> codecs[] = {
      {"zstd", parquet::Compression::ZSTD},
      {"snappy", parquet::Compression::SNAPPY},
      {"gzip", parquet::Compression::GZIP},
      {"lz4", parquet::Compression::LZ4},
      {"UNCOMPRESSED", parquet::Compression::UNCOMPRESSED},
  };
  for (const auto& [name, codec] : codecs) {
    std::string path = dir.Path(std::string(name) + ".parquet");
    ASSERT_THAT(WriteFile(path, WideSchema(), {data.batch}, {{spec::kParquetCompression, name}}),
                IsOk())
        << name;
    auto footer = ReadFooter(path);
    for (int c = 0; c < footer->num_columns(); ++c) {
      EXPECT_EQ(footer->RowGroup(0)->ColumnChunk(c)->compression(), codec) << name;
    }
    EXPECT_TRUE(testing::SameRows(*ReadTable(path), *testing::AsTable(data.batch))) << name;
  }
  // zstd is the default.
  ASSERT_THAT(WriteFile(dir.Path("default.parquet"), WideSchema(), {data.batch}), IsOk());
  EXPECT_EQ(ReadFooter(dir.Path("default.parquet"))->RowGroup(0)->ColumnChunk(0)->compression(),
            parquet::Compression::ZSTD);
  EXPECT_THAT(WriteFile(dir.Path("x.parquet"), WideSchema(), {data.batch},
                        {{spec::kParquetCompression, "lzo"}}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(ParquetDataWriterTest, CompressionLevelFromProperties) {
  TempDir dir;
  auto data = MakeWideData(3000, 6);
  ASSERT_THAT(
      WriteFile(dir.Path("fast.parquet"), WideSchema(), {data.batch},
                {{spec::kParquetCompression, "zstd"}, {spec::kParquetCompressionLevel, "1"}}),
      IsOk());
  ASSERT_THAT(
      WriteFile(dir.Path("small.parquet"), WideSchema(), {data.batch},
                {{spec::kParquetCompression, "zstd"}, {spec::kParquetCompressionLevel, "19"}}),
      IsOk());
  std::string fast = ReadBytes(dir.Path("fast.parquet"));
  std::string small = ReadBytes(dir.Path("small.parquet"));
  EXPECT_NE(fast, small);
  EXPECT_LT(small.size(), fast.size());
}

std::shared_ptr<arrow::RecordBatch> NumbersBatch(int64_t rows, uint32_t seed) {
  std::mt19937_64 random(seed);
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_TRUE(ids.Append(static_cast<int64_t>(random())).ok());
    EXPECT_TRUE(names.Append("name-" + std::to_string(random() % 1000000)).ok());
  }
  auto schema = ToArrowSchema(*MakeSchema({Required(1, "id", Type::Long()),
                                           Optional(2, "name", Type::String())}))
                    .value();
  return arrow::RecordBatch::Make(schema, rows,
                                  {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

spec::SchemaPtr NumbersSchema() {
  return MakeSchema({Required(1, "id", Type::Long()), Optional(2, "name", Type::String())});
}

TEST(ParquetDataWriterTest, RowGroupSizeBytesFromProperties) {
  TempDir dir;
  constexpr int64_t kTarget = 64 * 1024;
  auto batch = NumbersBatch(100000, 7);  // about 2 MB
  auto file = WriteFile(dir.Path("f.parquet"), NumbersSchema(), {batch},
                        {{spec::kParquetRowGroupSizeBytes, std::to_string(kTarget)},
                         {spec::kParquetCompression, "uncompressed"}});
  ASSERT_THAT(file, IsOk());
  auto footer = ReadFooter(dir.Path("f.parquet"));
  ASSERT_GT(footer->num_row_groups(), 10);
  EXPECT_EQ(static_cast<int>(file->split_offsets.size()), footer->num_row_groups());
  int64_t rows = 0;
  for (int r = 0; r < footer->num_row_groups(); ++r) {
    auto row_group = footer->RowGroup(r);
    rows += row_group->num_rows();
    int64_t size = 0;
    for (int c = 0; c < row_group->num_columns(); ++c) {
      size += row_group->ColumnChunk(c)->total_compressed_size();
    }
    EXPECT_LE(size, kTarget * 3 / 2) << "row group " << r;
    if (r > 0 && r + 1 < footer->num_row_groups()) {
      EXPECT_GE(size, kTarget / 2) << "row group " << r;
    }
  }
  EXPECT_EQ(rows, 100000);
  // With the default (128 MB) it is one row group.
  ASSERT_THAT(WriteFile(dir.Path("one.parquet"), NumbersSchema(), {batch}), IsOk());
  EXPECT_EQ(ReadFooter(dir.Path("one.parquet"))->num_row_groups(), 1);
}

int CountDataPages(const std::string& path) {
  auto reader = parquet::ParquetFileReader::OpenFile(path);
  auto pages = reader->RowGroup(0)->GetColumnPageReader(0);
  int count = 0;
  while (auto page = pages->NextPage()) {
    if (page->type() == parquet::PageType::DATA_PAGE ||
        page->type() == parquet::PageType::DATA_PAGE_V2) {
      ++count;
    }
  }
  return count;
}

TEST(ParquetDataWriterTest, PageSizeBytesFromProperties) {
  TempDir dir;
  auto batch = NumbersBatch(50000, 8);
  ASSERT_THAT(WriteFile(dir.Path("small.parquet"), NumbersSchema(), {batch},
                        {{spec::kParquetPageSizeBytes, "8192"}}),
              IsOk());
  ASSERT_THAT(WriteFile(dir.Path("default.parquet"), NumbersSchema(), {batch}), IsOk());
  // 50000 random longs are written plain (a dictionary would not shrink
  // them), 400 KB: dozens of 8 KB pages. With 1 MB pages the 20000-row page
  // limit decides.
  EXPECT_GE(CountDataPages(dir.Path("small.parquet")), 10);
  EXPECT_EQ(CountDataPages(dir.Path("default.parquet")), 3);
}

TEST(ParquetDataWriterTest, ColumnsThatADictionaryWouldNotShrinkAreWrittenPlain) {
  TempDir dir;
  // Random longs and near-unique names: neither shrinks under a dictionary.
  auto unique = NumbersBatch(30000, 10);
  // The same 30000 rows with names drawn from 50: the names keep theirs.
  arrow::StringBuilder names;
  for (int64_t i = 0; i < unique->num_rows(); ++i) {
    ASSERT_TRUE(names.Append("name-" + std::to_string(i % 50)).ok());
  }
  auto repeated = arrow::RecordBatch::Make(unique->schema(), unique->num_rows(),
                                           {unique->column(0), names.Finish().ValueOrDie()});
  ASSERT_THAT(WriteFile(dir.Path("f.parquet"), NumbersSchema(), {repeated, unique}), IsOk());
  auto footer = ReadFooter(dir.Path("f.parquet"));
  auto row_group = footer->RowGroup(0);
  EXPECT_FALSE(row_group->ColumnChunk(0)->has_dictionary_page());
  EXPECT_TRUE(row_group->ColumnChunk(1)->has_dictionary_page());
  // The first batch decides for the whole file.
  ASSERT_THAT(WriteFile(dir.Path("g.parquet"), NumbersSchema(), {unique, repeated}), IsOk());
  EXPECT_FALSE(
      ReadFooter(dir.Path("g.parquet"))->RowGroup(0)->ColumnChunk(1)->has_dictionary_page());
  auto both = arrow::Table::FromRecordBatches({unique, repeated}).ValueOrDie();
  EXPECT_TRUE(ReadTable(dir.Path("g.parquet"))->Equals(*both));
}

TEST(ParquetDataWriterTest, FileWithoutRowsIsAValidParquetFile) {
  TempDir dir;
  auto file = WriteFile(dir.Path("empty.parquet"), NumbersSchema(), {NumbersBatch(0, 1)});
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->record_count, 0);
  EXPECT_EQ(ReadFooter(dir.Path("empty.parquet"))->num_rows(), 0);
  EXPECT_EQ(ReadTable(dir.Path("empty.parquet"))->num_rows(), 0);
}

TEST(ParquetDataWriterTest, RollingWriterHonoursTargetFileSize) {
  TempDir dir;
  constexpr int64_t kTarget = 256 * 1024;
  auto batch = NumbersBatch(200000, 9);
  auto io = io::NewLocalFileIO();
  auto options =
      DataWriterOptions::FromProperties({{spec::kTargetFileSizeBytes, std::to_string(kTarget)},
                                         {spec::kParquetRowGroupSizeBytes, "65536"}})
          .value();
  int next = 0;
  RollingDataWriter writer(
      io, NumbersSchema(), options,
      [&]() -> Result<std::string> {
        return dir.Path("part-" + std::to_string(next++) + ".parquet");
      },
      {Literal::Int(7)}, 3);
  for (int64_t offset = 0; offset < batch->num_rows(); offset += 30000) {
    ASSERT_THAT(writer.Write(batch->Slice(offset, 30000)), IsOk());
  }
  auto files = writer.Close();
  ASSERT_THAT(files, IsOk());
  ASSERT_GE(files->size(), 4U);
  int64_t records = 0;
  std::vector<std::shared_ptr<arrow::Table>> tables;
  for (size_t i = 0; i < files->size(); ++i) {
    const auto& file = (*files)[i];
    EXPECT_EQ(file.file_path, dir.Path("part-" + std::to_string(i) + ".parquet"));
    EXPECT_EQ(file.partition, std::vector<Literal>{Literal::Int(7)});
    EXPECT_EQ(file.spec_id, 3);
    EXPECT_LE(file.file_size_in_bytes, kTarget * 3 / 2) << i;
    if (i + 1 < files->size()) {
      EXPECT_GE(file.file_size_in_bytes, kTarget / 2) << i;
    }
    records += file.record_count;
    tables.push_back(ReadTable(file.file_path));
  }
  EXPECT_EQ(records, batch->num_rows());
  auto all = arrow::ConcatenateTables(tables).ValueOrDie();
  EXPECT_TRUE(all->Equals(*arrow::Table::FromRecordBatches({batch}).ValueOrDie()));
}

TEST(ParquetDataWriterTest, RollingWriterWithoutRowsWritesNoFile) {
  TempDir dir;
  RollingDataWriter writer(io::NewLocalFileIO(), NumbersSchema(), DataWriterOptions(),
                           [&]() -> Result<std::string> { return dir.Path("never.parquet"); });
  ASSERT_THAT(writer.Write(NumbersBatch(0, 1)), IsOk());
  auto files = writer.Close();
  ASSERT_THAT(files, IsOk());
  EXPECT_TRUE(files->empty());
  EXPECT_FALSE(std::filesystem::exists(dir.Path("never.parquet")));
}

TEST(ParquetDataWriterTest, AbandonedWriterRemovesItsFile) {
  TempDir dir;
  auto io = io::NewLocalFileIO();
  {
    auto writer =
        ParquetDataWriter::Open(*io, dir.Path("f.parquet"), NumbersSchema(), DataWriterOptions());
    ASSERT_THAT(writer, IsOk());
    ASSERT_THAT((*writer)->Write(NumbersBatch(10, 1)), IsOk());
  }
  EXPECT_FALSE(std::filesystem::exists(dir.Path("f.parquet")));
}

TEST(ParquetDataWriterTest, ErrorsAreReported) {
  TempDir dir;
  auto io = io::NewLocalFileIO();
  ASSERT_THAT(WriteFile(dir.Path("f.parquet"), NumbersSchema(), {NumbersBatch(1, 1)}), IsOk());
  // Never overwrites.
  EXPECT_THAT(ParquetDataWriter::Open(*io, dir.Path("f.parquet"), NumbersSchema(), {}),
              IsError(ErrorKind::kAlreadyExists));
  auto writer = ParquetDataWriter::Open(*io, dir.Path("g.parquet"), NumbersSchema(), {}).value();
  auto wrong =
      BatchFromJson(arrow::schema({arrow::field("id", arrow::utf8())}), R"([{"id": "x"}])");
  EXPECT_THAT(writer->Write(wrong), IsError(ErrorKind::kInvalidArgument));
  ASSERT_THAT(writer->Close(), IsOk());
  EXPECT_THAT(writer->Write(NumbersBatch(1, 1)), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(writer->Close(), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::data

namespace skade::data {
namespace {

// Local files whose writes fail once `budget` bytes have been written: a
// full disk in the middle of a Parquet file.
class FullDiskFileIO : public io::ForwardingFileIO {
 public:
  explicit FullDiskFileIO(int64_t budget)
      : ForwardingFileIO(io::NewLocalFileIO()), budget_(budget) {}

  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location,
                                                        bool durable) override {
    SKADE_ASSIGN_OR_RAISE(auto file, inner().NewOutputFile(location, durable));
    return std::unique_ptr<io::OutputFile>(new FullDiskFile(std::move(file), budget_));
  }

 private:
  class FullDiskFile : public io::OutputFile {
   public:
    FullDiskFile(std::unique_ptr<io::OutputFile> file, int64_t budget)
        : file_(std::move(file)), budget_(budget) {}
    Status Write(std::string_view data) override {
      if (file_->BytesWritten() + static_cast<int64_t>(data.size()) > budget_) {
        return IoError("No space left on device (injected)");
      }
      return file_->Write(data);
    }
    int64_t BytesWritten() const override { return file_->BytesWritten(); }
    Status Close() override { return file_->Close(); }

   private:
    std::unique_ptr<io::OutputFile> file_;
    int64_t budget_;
  };

  int64_t budget_;
};

TEST(ParquetDataWriterTest, FileIoErrorsKeepTheirKindAndMessage) {
  TempDir dir;
  auto batch = NumbersBatch(200000, 10);
  auto io = std::make_shared<FullDiskFileIO>(100000);
  auto options =
      DataWriterOptions::FromProperties({{spec::kParquetRowGroupSizeBytes, "65536"}}).value();
  auto writer = ParquetDataWriter::Open(*io, dir.Path("f.parquet"), NumbersSchema(), options);
  ASSERT_THAT(writer, IsOk());
  Status written = (*writer)->Write(batch);
  Result<spec::DataFile> closed = written ? (*writer)->Close() : Result<spec::DataFile>();
  Error error = written ? closed.error() : written.error();
  EXPECT_EQ(error.kind, ErrorKind::kIo);
  EXPECT_NE(error.message.find("No space left on device (injected)"), std::string::npos)
      << error.message;
  writer->reset();
  EXPECT_FALSE(std::filesystem::exists(dir.Path("f.parquet")));
}

TEST(ParquetDataWriterTest, LocationErrorsFailTheWrite) {
  RollingDataWriter writer(io::NewLocalFileIO(), NumbersSchema(), DataWriterOptions(),
                           []() -> Result<std::string> { return InvalidArgument("no location"); });
  EXPECT_THAT(writer.Write(NumbersBatch(1, 1)), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::data
