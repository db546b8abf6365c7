// FileProjection: how the columns of one data file map onto the read
// schema, by field id (spec: "Column Projection").
//
// For each wanted top-level field: the file column with its id (whatever
// its name now), converted to the read type — int→long, float→double,
// decimal precision widened, other spellings of the same Arrow type
// (timestamp units, UTC names, dictionary-encoded values, large and view
// strings and binaries, large, view and fixed-size lists) cast, structs,
// lists and maps matched field by field by id — or, when the file lacks the
// id, a constant column: the identity partition value the task's partition
// tuple holds, else the field's initial default, else null. A required field
// with none of those is kInvalidArgument. Output arrays have exactly
// ToArrowType(field type).
// Conversions are zero-copy except real casts.
//
// Immutable after Make; thread-safe.
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/type.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "skade/spec/literal.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::read {

class FileProjection {
 public:
  /// `file_schema` carries the file's field ids; `ids` are top-level fields
  /// of `read_schema`, in the order wanted; `constants` are values by field
  /// id for fields the file lacks (identity partition values).
  static Result<FileProjection> Make(const arrow::Schema& file_schema,
                                     const spec::Schema& read_schema,
                                     const std::vector<int32_t>& ids,
                                     const std::map<int32_t, spec::Literal>& constants,
                                     const std::string& location);

  /// The top-level file fields to read, ascending (indices into
  /// file_schema): a batch passed to Convert has exactly these columns.
  const std::vector<int>& file_fields() const { return file_fields_; }

  /// The wanted columns of `batch` (read with file_fields(); null when
  /// there are none to read), `rows` long, in the order of `ids`.
  Result<std::vector<std::shared_ptr<arrow::Array>>> Convert(const arrow::RecordBatch* batch,
                                                             int64_t rows) const;

 private:
  struct Column {
    const spec::NestedField* field = nullptr;
    std::shared_ptr<arrow::DataType> type;  // the output type
    int batch_column = -1;                  // -1: a constant
    std::shared_ptr<arrow::Field> file_field;
    std::optional<spec::Literal> constant;  // absent: null
  };

  std::vector<int> file_fields_;
  std::vector<Column> columns_;
  std::string location_;
};

/// `literal` (of a primitive type, not null) as an Arrow scalar of `type`,
/// ToArrowType of the literal's type. kUnsupported for other types.
Result<std::shared_ptr<arrow::Scalar>> ScalarFromLiteral(
    const spec::Literal& literal, const std::shared_ptr<arrow::DataType>& type);

/// The initial default of `field` as a literal of its type (null when it has
/// none). kUnsupported for defaults of nested, binary and fixed fields.
Result<spec::Literal> InitialDefault(const spec::NestedField& field);

}  // namespace skade::read

namespace skade::read {

/// The column of field `id` of `schema` (a top-level field, or one inside
/// structs) from the converted top-level columns `top_level` (by id): the
/// struct children flattened, so a null parent reads as null.
/// kInvalidArgument for a field under a list or map or not in `top_level`.
Result<std::shared_ptr<arrow::Array>> FieldColumn(
    const spec::Schema& schema, int32_t id,
    const std::map<int32_t, std::shared_ptr<arrow::Array>>& top_level);

/// The top-level ancestor of field `id` of `schema` (itself when top-level).
int32_t TopLevelId(const spec::Schema& schema, int32_t id);

}  // namespace skade::read
