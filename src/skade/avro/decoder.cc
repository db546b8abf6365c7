#include "skade/avro/decoder.h"

#include <bit>
#include <cstring>

namespace skade::avro {

namespace {

int64_t ZigZagDecode(uint64_t n) {
  return static_cast<int64_t>(n >> 1) ^ -static_cast<int64_t>(n & 1);
}

}  // namespace

tl::unexpected<Error> Decoder::Truncated(std::string_view what) const {
  return Corruption("Truncated Avro data: ", what, " at offset ", position_, " needs more than ",
                    remaining(), " remaining bytes");
}

Result<int64_t> Decoder::ReadLong() {
  uint64_t n = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (position_ == data_.size()) return Truncated("varint");
    uint8_t byte = static_cast<uint8_t>(data_[position_++]);
    // The tenth byte may only carry the top bit of a 64-bit value.
    if (shift == 63 && byte > 1) {
      return Corruption("Avro varint longer than 64 bits at offset ", position_ - 1);
    }
    n |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return ZigZagDecode(n);
  }
  return Corruption("Avro varint longer than 10 bytes at offset ", position_);
}

Result<int32_t> Decoder::ReadInt() {
  size_t start = position_;
  SKADE_ASSIGN_OR_RAISE(int64_t value, ReadLong());
  if (value < INT32_MIN || value > INT32_MAX) {
    return Corruption("Avro int out of 32-bit range at offset ", start, ": ", value);
  }
  return static_cast<int32_t>(value);
}

Result<bool> Decoder::ReadBoolean() {
  if (position_ == data_.size()) return Truncated("boolean");
  uint8_t byte = static_cast<uint8_t>(data_[position_]);
  if (byte > 1) {
    return Corruption("Invalid Avro boolean byte ", static_cast<int>(byte), " at offset ",
                      position_);
  }
  ++position_;
  return byte == 1;
}

Result<float> Decoder::ReadFloat() {
  static_assert(std::endian::native == std::endian::little);
  if (remaining() < sizeof(float)) return Truncated("float");
  float value;
  std::memcpy(&value, data_.data() + position_, sizeof(float));
  position_ += sizeof(float);
  return value;
}

Result<double> Decoder::ReadDouble() {
  if (remaining() < sizeof(double)) return Truncated("double");
  double value;
  std::memcpy(&value, data_.data() + position_, sizeof(double));
  position_ += sizeof(double);
  return value;
}

Result<std::string_view> Decoder::ReadBytes() {
  size_t start = position_;
  SKADE_ASSIGN_OR_RAISE(int64_t length, ReadLong());
  if (length < 0) return Corruption("Negative Avro byte length at offset ", start, ": ", length);
  if (static_cast<uint64_t>(length) > remaining()) {
    return Corruption("Avro byte length ", length, " at offset ", start, " exceeds the ",
                      remaining(), " remaining bytes");
  }
  std::string_view value = data_.substr(position_, static_cast<size_t>(length));
  position_ += static_cast<size_t>(length);
  return value;
}

Result<std::string_view> Decoder::ReadFixed(size_t size) {
  if (size > remaining()) return Truncated("fixed");
  std::string_view value = data_.substr(position_, size);
  position_ += size;
  return value;
}

Result<size_t> Decoder::ReadUnionIndex(size_t branch_count) {
  size_t start = position_;
  SKADE_ASSIGN_OR_RAISE(int64_t index, ReadLong());
  if (index < 0 || static_cast<uint64_t>(index) >= branch_count) {
    return Corruption("Avro union index ", index, " at offset ", start, " is not below ",
                      branch_count);
  }
  return static_cast<size_t>(index);
}

Result<int64_t> Decoder::ReadBlockCount() {
  size_t start = position_;
  SKADE_ASSIGN_OR_RAISE(int64_t count, ReadLong());
  if (count < 0) {
    if (count == INT64_MIN) return Corruption("Invalid Avro block count at offset ", start);
    count = -count;
    SKADE_ASSIGN_OR_RAISE(int64_t byte_size, ReadLong());
    if (byte_size < 0 || static_cast<uint64_t>(byte_size) > remaining()) {
      return Corruption("Invalid Avro block byte size ", byte_size, " at offset ", start);
    }
  }
  if (static_cast<uint64_t>(count) > remaining()) {
    return Corruption("Avro block count ", count, " at offset ", start, " exceeds the ",
                      remaining(), " remaining bytes");
  }
  return count;
}

Status Decoder::Skip(size_t size) {
  if (size > remaining()) return Truncated("skipped value");
  position_ += size;
  return OkStatus();
}

}  // namespace skade::avro
