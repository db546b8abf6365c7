// Avro binary encoding (Avro 1.11 spec: "Binary Encoding"), appended to a
// caller-owned string.
//
// int and long are zig-zag varints; float and double are little-endian IEEE
// 754; bytes and string are a long length then the bytes; fixed is the bytes
// alone; a union is the branch index (a long) then the value. Arrays and maps
// are written as at most one block of items followed by the zero count.
//
// An Encoder borrows its output string, which must outlive it. Not
// thread-safe; never fails.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace skade::avro {

/// The largest encoding of a zig-zag varint long, in bytes.
inline constexpr size_t kMaxVarintLength = 10;

/// Writes the zig-zag varint form of `value` to `out` (which has room for
/// kMaxVarintLength bytes); returns the number of bytes written.
inline size_t EncodeZigZag(int64_t value, uint8_t* out) {
  uint64_t n = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  size_t i = 0;
  while (n >= 0x80) {
    out[i++] = static_cast<uint8_t>(n | 0x80);
    n >>= 7;
  }
  out[i++] = static_cast<uint8_t>(n);
  return i;
}

class Encoder {
 public:
  explicit Encoder(std::string* out) : out_(out) {}

  void WriteBoolean(bool value) { out_->push_back(value ? '\x01' : '\x00'); }
  void WriteInt(int32_t value) { WriteLong(value); }
  void WriteLong(int64_t value) {
    uint8_t buf[kMaxVarintLength];
    size_t n = EncodeZigZag(value, buf);
    out_->append(reinterpret_cast<const char*>(buf), n);
  }
  void WriteFloat(float value) { AppendLittleEndian(value); }
  void WriteDouble(double value) { AppendLittleEndian(value); }
  void WriteBytes(std::string_view value) {
    WriteLong(static_cast<int64_t>(value.size()));
    out_->append(value);
  }
  void WriteString(std::string_view value) { WriteBytes(value); }
  /// The caller guarantees `value` has the schema's fixed size.
  void WriteFixed(std::string_view value) { out_->append(value); }
  void WriteUnionIndex(int64_t index) { WriteLong(index); }
  /// Starts an array or map block of `count` items (count > 0); after the
  /// items, call WriteEndOfBlocks(). An empty array or map is just
  /// WriteEndOfBlocks().
  void WriteBlockCount(int64_t count) { WriteLong(count); }
  void WriteEndOfBlocks() { out_->push_back('\x00'); }

  std::string* output() const { return out_; }

 private:
  template <typename T>
  void AppendLittleEndian(T value) {
    static_assert(std::endian::native == std::endian::little);
    char buf[sizeof(T)];
    std::memcpy(buf, &value, sizeof(T));
    out_->append(buf, sizeof(T));
  }

  std::string* out_;
};

}  // namespace skade::avro
