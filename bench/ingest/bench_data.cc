#include "ingest/bench_data.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include "skade/data/arrow_schema.h"
#include "skade/util/strings.h"

namespace skade::bench {

namespace {

constexpr int64_t kBaseMicros = 1793491200LL * 1000000;  // 2026-11-01T00:00:00

template <typename Builder>
std::shared_ptr<arrow::Array> Finish(Builder& builder) {
  return builder.Finish().ValueOrDie();
}

}  // namespace

spec::SchemaPtr IngestBenchSchema() {
  using spec::Type;
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", Type::Long(), true, {}, {}, {}},
             {2, "ts", Type::Timestamp(), false, {}, {}, {}},
             {3, "category", Type::String(), false, {}, {}, {}},
             {4, "name", Type::String(), false, {}, {}, {}},
             {5, "score", Type::Double(), false, {}, {}, {}},
             {6, "qty", Type::Int(), false, {}, {}, {}},
             {7, "flag", Type::Boolean(), false, {}, {}, {}},
         });
}

std::vector<ingest::RecordBatchGroup> IngestBenchData(int files, int64_t rows_per_file) {
  auto schema = data::ToArrowSchema(*IngestBenchSchema()).value();
  std::vector<ingest::RecordBatchGroup> groups;
  for (int file = 0; file < files; ++file) {
    arrow::Int64Builder id;
    arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO),
                               arrow::default_memory_pool());
    arrow::StringBuilder category;
    arrow::StringBuilder name;
    arrow::DoubleBuilder score;
    arrow::Int32Builder qty;
    arrow::BooleanBuilder flag;
    for (int64_t j = 0; j < rows_per_file; ++j) {
      int64_t i = file * rows_per_file + j;
      (void)id.Append(i);
      (void)ts.Append(kBaseMicros + i * 1000);
      (void)category.Append(StrCat("cat-", i % 16));
      (void)name.Append(StrCat("name-", (i * 7919) % 100003));
      (void)score.Append(static_cast<double>(i % 1000) * 0.5);
      (void)qty.Append(static_cast<int32_t>(i % 97));
      (void)flag.Append(i % 3 == 0);
    }
    groups.push_back(
        {arrow::RecordBatch::Make(schema, rows_per_file,
                                  {Finish(id), Finish(ts), Finish(category), Finish(name),
                                   Finish(score), Finish(qty), Finish(flag)})});
  }
  return groups;
}

int64_t ArrowBytes(const std::vector<ingest::RecordBatchGroup>& groups) {
  int64_t bytes = 0;
  for (const auto& group : groups) {
    for (const auto& batch : group) bytes += arrow::util::TotalBufferSize(*batch);
  }
  return bytes;
}

}  // namespace skade::bench
