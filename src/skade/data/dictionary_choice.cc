#include "skade/data/dictionary_choice.h"

#include <absl/container/flat_hash_set.h>
#include <arrow/api.h>
#include <arrow/extension_type.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <string_view>

namespace skade::data {

namespace {

// Plain and dictionary-page bytes of a column's sample, as parquet-java
// counts them: fixed-width values at their physical width, byte arrays as
// a 4-byte length plus the bytes.
struct Sizes {
  int64_t plain = 0;
  int64_t dictionary = 0;
  int64_t distinct = 0;
};

// Physical width of the Parquet type Iceberg maps this Arrow type to; 0 for
// types left to Arrow's default (booleans, decimals, nested, unknown).
int64_t FixedWidth(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT32:
    case arrow::Type::FLOAT:
    case arrow::Type::DATE32:
      return 4;
    case arrow::Type::INT64:
    case arrow::Type::DOUBLE:
    case arrow::Type::TIME64:
    case arrow::Type::TIMESTAMP:
      return 8;
    case arrow::Type::FIXED_SIZE_BINARY:
      return static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width();
    default:
      return 0;
  }
}

template <typename ArrayType>
int64_t ByteArrayBytes(const arrow::Array& array) {
  const auto& binary = static_cast<const ArrayType&>(array);
  return binary.total_values_length() + 4 * (binary.length() - binary.null_count());
}

std::optional<int64_t> PlainBytes(const arrow::Array& array) {
  const int64_t values = array.length() - array.null_count();
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return ByteArrayBytes<arrow::BinaryArray>(array);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return ByteArrayBytes<arrow::LargeBinaryArray>(array);
    default:
      if (int64_t width = FixedWidth(*array.type()); width > 0) return values * width;
      return std::nullopt;
  }
}

// The distinct non-null values of `array` (a type PlainBytes sizes) and
// the plain bytes of one of each: a dictionary page. By their bytes, with a
// hash set of views into the array: Arrow's Unique kernel costs tens of
// microseconds a call before the first value, which every small file of the
// coalescing committer paid once per column.
Sizes DistinctValues(const arrow::Array& array) {
  Sizes sizes;
  absl::flat_hash_set<std::string_view> seen;
  seen.reserve(static_cast<size_t>(array.length() - array.null_count()));
  auto add = [&](std::string_view value, int64_t plain) {
    if (seen.insert(value).second) sizes.dictionary += plain;
  };
  auto add_byte_arrays = [&](const auto& binary) {
    for (int64_t i = 0; i < binary.length(); ++i) {
      if (binary.IsNull(i)) continue;
      std::string_view value = binary.GetView(i);
      add(value, 4 + static_cast<int64_t>(value.size()));
    }
  };
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      add_byte_arrays(static_cast<const arrow::BinaryArray&>(array));
      break;
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      add_byte_arrays(static_cast<const arrow::LargeBinaryArray&>(array));
      break;
    default: {
      const int64_t width = FixedWidth(*array.type());
      const uint8_t* values = array.data()->buffers[1]->data();
      for (int64_t i = 0; i < array.length(); ++i) {
        if (array.IsNull(i)) continue;
        const auto* value = values + (array.offset() + i) * width;
        add(std::string_view(reinterpret_cast<const char*>(value), static_cast<size_t>(width)),
            width);
      }
    }
  }
  sizes.distinct = static_cast<int64_t>(seen.size());
  return sizes;
}

std::optional<Sizes> SampleSizes(const std::shared_ptr<arrow::Array>& column) {
  // Extension types (uuid) are judged on their storage.
  std::shared_ptr<arrow::Array> storage = column;
  if (column->type_id() == arrow::Type::EXTENSION) {
    storage = static_cast<const arrow::ExtensionArray&>(*column).storage();
  }
  auto plain = PlainBytes(*storage);
  if (!plain || storage->length() == storage->null_count()) return std::nullopt;
  Sizes sizes = DistinctValues(*storage);
  sizes.plain = *plain;
  return sizes;
}

// Dictionary indices are bit-packed at the width of the largest index.
int64_t IndexBytes(int64_t values, int64_t distinct) {
  const auto bits = static_cast<int64_t>(std::bit_width(static_cast<uint64_t>(distinct - 1)));
  return (values * std::max<int64_t>(bits, 1) + 7) / 8;
}

}  // namespace

std::vector<std::string> PlainColumns(const arrow::RecordBatch& batch, int64_t page_rows) {
  std::vector<std::string> plain;
  const int64_t rows = std::min(batch.num_rows(), std::max<int64_t>(page_rows, 1));
  for (int i = 0; i < batch.num_columns(); ++i) {
    auto sample = batch.column(i)->Slice(0, rows);
    auto sizes = SampleSizes(sample);
    if (!sizes) continue;
    const int64_t values = sample->length() - sample->null_count();
    if (sizes->dictionary + IndexBytes(values, sizes->distinct) >= sizes->plain) {
      plain.push_back(batch.schema()->field(i)->name());
    }
  }
  return plain;
}

}  // namespace skade::data
