// Typed access to the values of conformed Arrow arrays, shared by the
// transforms, partition literals and NaN counting.
#pragma once

#include <arrow/array.h>
#include <arrow/extension_type.h>

#include <string_view>

namespace skade::data {

/// The storage array of an extension array (arrow.uuid); `array` otherwise.
inline const arrow::Array& StorageOf(const arrow::Array& array) {
  if (array.type_id() == arrow::Type::EXTENSION) {
    return *static_cast<const arrow::ExtensionArray&>(array).storage();
  }
  return array;
}

/// Random access to the bytes of a string, binary (and large variants) or
/// fixed-size binary array. Borrows the array, which must outlive it.
class BinaryValues {
 public:
  /// `array` after StorageOf; valid() is false for other types.
  explicit BinaryValues(const arrow::Array& array) : array_(&array), id_(array.type_id()) {}

  bool valid() const {
    return id_ == arrow::Type::STRING || id_ == arrow::Type::BINARY ||
           id_ == arrow::Type::LARGE_STRING || id_ == arrow::Type::LARGE_BINARY ||
           id_ == arrow::Type::FIXED_SIZE_BINARY;
  }

  std::string_view operator[](int64_t i) const {
    switch (id_) {
      case arrow::Type::STRING:
      case arrow::Type::BINARY:
        return static_cast<const arrow::BinaryArray&>(*array_).GetView(i);
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY:
        return static_cast<const arrow::LargeBinaryArray&>(*array_).GetView(i);
      default:
        return static_cast<const arrow::FixedSizeBinaryArray&>(*array_).GetView(i);
    }
  }

 private:
  const arrow::Array* array_;
  arrow::Type::type id_;
};

}  // namespace skade::data
