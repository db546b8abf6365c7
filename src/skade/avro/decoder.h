// Avro binary decoding over a borrowed byte range (Avro 1.11 spec: "Binary
// Encoding").
//
// Every read is bounded by the bytes that remain: a length, count or varint
// that runs past the end, an over-long varint, an int that does not fit in
// 32 bits or a boolean byte other than 0 or 1 is kCorruption naming the
// offset. Nothing is allocated: bytes, strings and fixed values are views
// into the input, which must outlive them. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "skade/util/result.h"

namespace skade::avro {

class Decoder {
 public:
  explicit Decoder(std::string_view data) : data_(data) {}

  Result<bool> ReadBoolean();
  Result<int32_t> ReadInt();
  Result<int64_t> ReadLong();
  Result<float> ReadFloat();
  Result<double> ReadDouble();
  /// A length-prefixed byte string (Avro bytes or string).
  Result<std::string_view> ReadBytes();
  Result<std::string_view> ReadString() { return ReadBytes(); }
  Result<std::string_view> ReadFixed(size_t size);
  /// A union branch index, checked against the number of branches.
  Result<size_t> ReadUnionIndex(size_t branch_count);

  /// The item count of the next array or map block (0 ends the value). A
  /// negative count's byte size is read and checked. Each item takes at least
  /// one byte in the schemas Iceberg writes, so a count larger than the bytes
  /// left is kCorruption: that bounds every loop over items.
  Result<int64_t> ReadBlockCount();

  Status Skip(size_t size);

  size_t position() const { return position_; }
  size_t remaining() const { return data_.size() - position_; }
  bool at_end() const { return position_ == data_.size(); }

 private:
  tl::unexpected<Error> Truncated(std::string_view what) const;

  std::string_view data_;
  size_t position_ = 0;
};

}  // namespace skade::avro
