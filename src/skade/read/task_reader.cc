#include <arrow/array.h>
#include <arrow/buffer.h>
#include <arrow/buffer_builder.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <map>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/metrics_config.h"
#include "skade/data/parquet_metrics.h"
#include "skade/expr/metrics_evaluator.h"
#include "skade/read/file_projection_internal.h"
#include "skade/read/page_index_filter_internal.h"
#include "skade/read/residual_filter_internal.h"
#include "skade/read/selected_rows_reader_internal.h"
#include "skade/read/task_reader_internal.h"

namespace skade::read {

namespace {

using Columns = std::vector<std::shared_ptr<arrow::Array>>;

void AddUnique(int32_t id, std::vector<int32_t>* ids) {
  if (std::find(ids->begin(), ids->end(), id) == ids->end()) ids->push_back(id);
}

// Values of identity-partitioned columns, for files that lack the column
// (files added from a Hive-style layout carry it only in their path).
std::map<int32_t, spec::Literal> PartitionConstants(const scan::FileScanTask& task,
                                                    const spec::Schema& schema) {
  std::map<int32_t, spec::Literal> constants;
  if (task.spec == nullptr) return constants;
  const auto& fields = task.spec->fields;
  for (size_t i = 0; i < fields.size() && i < task.data_file.partition.size(); ++i) {
    if (fields[i].transform.kind() != spec::TransformKind::kIdentity) continue;
    const spec::NestedField* source = schema.FindFieldById(fields[i].source_id);
    const spec::Literal& value = task.data_file.partition[i];
    if (source == nullptr || !spec::TypeEquals(source->type, value.type())) continue;
    constants.emplace(fields[i].source_id, value);
  }
  return constants;
}

// The row groups to decode: those with rows whose statistics leave the
// residual possible (the checks of expr::MetricsEvaluator, on each row
// group's metrics as the writer would report them for a file of its own).
Result<std::vector<int>> RowGroupsToRead(ParquetFile& file,
                                         const expr::BoundExpressionPtr& residual,
                                         const spec::Schema& schema) {
  std::vector<int> row_groups;
  // Without ids in the file, statistics cannot be tied to columns.
  bool prune = !residual->IsTrue() && file.has_field_ids();
  std::optional<expr::MetricsEvaluator> evaluator;
  if (prune) evaluator.emplace(residual, schema);
  for (int rg = 0; rg < file.num_row_groups(); ++rg) {
    if (file.row_group_rows(rg) == 0) continue;
    if (prune) {
      auto metrics = data::CatchArrowExceptions(file.location(), [&]() -> Result<spec::DataFile> {
        return data::DataFileFromParquetFooter(*file.metadata().Subset({rg}), schema,
                                               data::MetricsConfig(), nullptr);
      });
      if (!metrics) return tl::unexpected(metrics.error());
      if (!evaluator->MayMatch(*metrics)) continue;
    }
    row_groups.push_back(rg);
  }
  return row_groups;
}

// Clears keep[i] for the rows at positions [start, start + keep.size()) in
// `deleted` (sorted).
void ApplyPositionDeletes(const std::vector<int64_t>& deleted, int64_t start,
                          std::vector<uint8_t>* keep) {
  int64_t end = start + static_cast<int64_t>(keep->size());
  for (auto it = std::lower_bound(deleted.begin(), deleted.end(), start);
       it != deleted.end() && *it < end; ++it) {
    (*keep)[*it - start] = 0;
  }
}

// Reads batches of one task; state shared by its row groups.
class TaskReader {
 public:
  TaskReader(const ScanContext& context, const scan::FileScanTask& task, PageIndexStats* stats)
      : context_(context),
        task_(task),
        stats_(stats),
        schema_(*context.plan->schema),
        residual_(task.residual ? task.residual : expr::BoundExpression::True()) {}

  Status Run(const BatchSink& sink) {
    if (residual_->IsFalse()) return OkStatus();
    const std::string& location = task_.data_file.file_path;
    if (task_.data_file.file_format != spec::FileFormat::kParquet) {
      return Unsupported("Data file ", location, " is not Parquet");
    }
    SKADE_ASSIGN_OR_RAISE(
        auto file, ParquetFile::Open(*context_.io, location, context_.parquet, context_.mapping));
    SKADE_ASSIGN_OR_RAISE(deleted_, context_.deletes->DeletedPositions(location, task_.deletes));
    SKADE_ASSIGN_OR_RAISE(equality_, context_.deletes->EqualityDeletes(task_.deletes));
    // Projected columns first; then what only the filter and deletes need.
    std::vector<int32_t> ids = context_.plan->projected_field_ids;
    output_columns_ = ids.size();
    for (int32_t id : residual_->ReferencedFieldIds()) AddUnique(TopLevelId(schema_, id), &ids);
    for (const auto& set : equality_) {
      for (int32_t id : set->field_ids) AddUnique(TopLevelId(schema_, id), &ids);
    }
    ids_ = ids;
    SKADE_ASSIGN_OR_RAISE(projection_,
                          FileProjection::Make(*file->schema(), schema_, ids,
                                               PartitionConstants(task_, schema_), location));
    filters_ = !deleted_.empty() || !equality_.empty() || !residual_->IsTrue();
    SKADE_ASSIGN_OR_RAISE(auto row_groups, RowGroupsToRead(*file, residual_, schema_));
    PageIndexFilter pages(*file, residual_, schema_);
    for (int rg : row_groups) {
      int64_t position = file->row_group_start(rg);
      if (!projection_->file_fields().empty()) {
        int64_t rows = file->row_group_rows(rg);
        RowRanges selected = pages.RowsToRead(rg);
        if (selected.empty()) {
          stats_->rows_skipped += rows;
          stats_->pages_skipped +=
              pages.DataPages(rg, file->LeafColumns(projection_->file_fields()));
          continue;
        }
        if (selected.row_count() < rows) {
          SKADE_ASSIGN_OR_RAISE(
              auto reader, SelectedRowsReader::Make(*file, rg, projection_->file_fields(), selected,
                                                    context_.parquet.batch_rows));
          if (reader != nullptr) {
            stats_->rows_skipped += rows - selected.row_count();
            stats_->pages_skipped += reader->pages_skipped();
            for (;;) {
              int64_t first = 0;
              SKADE_ASSIGN_OR_RAISE(auto batch, reader->ReadNext(&first));
              if (batch == nullptr) break;
              SKADE_ASSIGN_OR_RAISE(bool more,
                                    Emit(batch.get(), batch->num_rows(), position + first, sink));
              if (!more) return OkStatus();
            }
            continue;
          }
        }
      }
      if (projection_->file_fields().empty()) {
        // Nothing to decode: the rows are all constants.
        int64_t rows = file->row_group_rows(rg);
        for (int64_t done = 0; done < rows;) {
          int64_t n = std::min(context_.parquet.batch_rows, rows - done);
          SKADE_ASSIGN_OR_RAISE(bool more, Emit(nullptr, n, position + done, sink));
          if (!more) return OkStatus();
          done += n;
        }
        continue;
      }
      SKADE_ASSIGN_OR_RAISE(auto batches, file->ReadRowGroup(rg, projection_->file_fields()));
      for (;;) {
        std::shared_ptr<arrow::RecordBatch> batch;
        SKADE_RETURN_NOT_OK(data::CatchArrowExceptions(
            location, [&] { return data::FromArrowStatus(batches->ReadNext(&batch), location); }));
        if (batch == nullptr) break;
        SKADE_ASSIGN_OR_RAISE(bool more, Emit(batch.get(), batch->num_rows(), position, sink));
        if (!more) return OkStatus();
        position += batch->num_rows();
      }
    }
    return OkStatus();
  }

 private:
  // Converts, filters and hands on one decoded batch of `rows` rows at file
  // position `position`. False when the sink wants no more.
  Result<bool> Emit(const arrow::RecordBatch* batch, int64_t rows, int64_t position,
                    const BatchSink& sink) {
    SKADE_ASSIGN_OR_RAISE(Columns columns, projection_->Convert(batch, rows));
    Columns output(columns.begin(), columns.begin() + static_cast<ptrdiff_t>(output_columns_));
    auto out = arrow::RecordBatch::Make(context_.output_schema, rows, std::move(output));
    if (!filters_) return sink(std::move(out));

    std::vector<uint8_t> keep(static_cast<size_t>(rows), 1);
    ApplyPositionDeletes(deleted_, position, &keep);
    std::map<int32_t, std::shared_ptr<arrow::Array>> by_id;
    for (size_t c = 0; c < ids_.size(); ++c) by_id.emplace(ids_[c], columns[c]);
    SKADE_RETURN_NOT_OK(ApplyEqualityDeletes(by_id, &keep));
    if (!residual_->IsTrue()) {
      std::vector<uint8_t> matches;
      SKADE_RETURN_NOT_OK(EvaluateFilter(
          *residual_, [&](int32_t id) { return FieldColumn(schema_, id, by_id); }, rows, &matches));
      for (int64_t i = 0; i < rows; ++i) keep[i] &= matches[i];
    }
    int64_t kept = std::count(keep.begin(), keep.end(), 1);
    if (kept == 0) return true;
    if (kept == rows) return sink(std::move(out));
    arrow::TypedBufferBuilder<bool> selection;
    SKADE_RETURN_NOT_OK_ARROW(selection.Reserve(rows));
    for (uint8_t k : keep) selection.UnsafeAppend(k != 0);
    SKADE_ASSIGN_OR_RAISE_ARROW(auto bits, selection.Finish());
    auto mask = std::make_shared<arrow::BooleanArray>(rows, std::move(bits));
    SKADE_ASSIGN_OR_RAISE_ARROW(auto filtered,
                                arrow::compute::Filter(arrow::Datum(out), arrow::Datum(mask)));
    return sink(filtered.record_batch());
  }

  Status ApplyEqualityDeletes(const std::map<int32_t, std::shared_ptr<arrow::Array>>& by_id,
                              std::vector<uint8_t>* keep) const {
    std::string key;
    for (const auto& set : equality_) {
      Columns columns;
      std::vector<spec::TypePtr> types;
      for (int32_t id : set->field_ids) {
        SKADE_ASSIGN_OR_RAISE(auto column, FieldColumn(schema_, id, by_id));
        columns.push_back(std::move(column));
        types.push_back(schema_.FindFieldById(id)->type);
      }
      for (size_t i = 0; i < keep->size(); ++i) {
        if (!(*keep)[i]) continue;
        key.clear();
        SKADE_RETURN_NOT_OK(AppendEqualityKey(columns, types, static_cast<int64_t>(i), &key));
        if (set->keys.contains(key)) (*keep)[i] = 0;
      }
    }
    return OkStatus();
  }

  const ScanContext& context_;
  const scan::FileScanTask& task_;
  PageIndexStats* stats_;
  const spec::Schema& schema_;
  const expr::BoundExpressionPtr residual_;
  std::vector<int64_t> deleted_;
  std::vector<std::shared_ptr<const EqualityDeleteSet>> equality_;
  std::vector<int32_t> ids_;
  size_t output_columns_ = 0;
  std::optional<FileProjection> projection_;
  bool filters_ = false;
};

}  // namespace

Status ReadTask(const ScanContext& context, const scan::FileScanTask& task, const BatchSink& sink,
                PageIndexStats* stats) {
  PageIndexStats ignored;
  return TaskReader(context, task, stats != nullptr ? stats : &ignored).Run(sink);
}

}  // namespace skade::read
