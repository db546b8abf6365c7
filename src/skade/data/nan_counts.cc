#include <arrow/api.h>

#include <cmath>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/nan_counts_internal.h"

namespace skade::data {

namespace {

template <typename T>
int64_t CountNans(const arrow::Array& array) {
  const T* values = array.data()->GetValues<T>(1);
  int64_t nans = 0;
  for (int64_t i = 0; i < array.length(); ++i) {
    if (std::isnan(values[i]) && array.IsValid(i)) ++nans;
  }
  return nans;
}

Status AddField(const arrow::Array& array, const spec::NestedField& field,
                std::map<int32_t, int64_t>* counts) {
  switch (field.type->id()) {
    case spec::TypeId::kFloat:
      (*counts)[field.id] += CountNans<float>(array);
      return OkStatus();
    case spec::TypeId::kDouble:
      (*counts)[field.id] += CountNans<double>(array);
      return OkStatus();
    case spec::TypeId::kStruct: {
      const auto& fields = field.type->fields();
      const auto& struct_array = static_cast<const arrow::StructArray&>(array);
      for (size_t i = 0; i < fields.size(); ++i) {
        spec::TypeId kind = fields[i].type->id();
        if (kind != spec::TypeId::kStruct && kind != spec::TypeId::kFloat &&
            kind != spec::TypeId::kDouble) {
          continue;
        }
        // Flattening folds the struct's nulls into the child's.
        SKADE_ASSIGN_OR_RAISE_ARROW(auto child,
                                    struct_array.GetFlattenedField(static_cast<int>(i)));
        SKADE_RETURN_NOT_OK(AddField(*child, fields[i], counts));
      }
      return OkStatus();
    }
    default:
      return OkStatus();
  }
}

}  // namespace

Status AddNanCounts(const arrow::RecordBatch& batch, const spec::Schema& schema,
                    std::map<int32_t, int64_t>* counts) {
  const auto& fields = schema.fields();
  if (static_cast<size_t>(batch.num_columns()) != fields.size()) {
    return InternalError("NaN counting needs a batch conformed to the schema");
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    SKADE_RETURN_NOT_OK(AddField(*batch.column(static_cast<int>(i)), fields[i], counts));
  }
  return OkStatus();
}

}  // namespace skade::data
