#include "skade/spec/truncation.h"

#include <vector>

#include "skade/util/utf8.h"

namespace skade::spec {

namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// The byte length of the UTF-8 sequence starting at `text[pos]`, or 1 for a
// byte that does not start a well-formed sequence.
size_t SequenceLength(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  uint8_t lead = byte(pos);
  size_t length = lead < 0x80           ? 1
                  : (lead >> 5) == 0x6  ? 2
                  : (lead >> 4) == 0xE  ? 3
                  : (lead >> 3) == 0x1E ? 4
                                        : 0;
  if (length == 0 || pos + length > text.size()) return 1;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 1;
  }
  return length;
}

// Decodes a well-formed sequence of `length` bytes; nullopt for a lone byte
// that is not ASCII.
std::optional<uint32_t> Decode(std::string_view text, size_t pos, size_t length) {
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(text[i])); };
  switch (length) {
    case 1:
      if (byte(pos) >= 0x80) return std::nullopt;
      return byte(pos);
    case 2:
      return ((byte(pos) & 0x1F) << 6) | (byte(pos + 1) & 0x3F);
    case 3:
      return ((byte(pos) & 0x0F) << 12) | ((byte(pos + 1) & 0x3F) << 6) | (byte(pos + 2) & 0x3F);
    default:
      return ((byte(pos) & 0x07) << 18) | ((byte(pos + 1) & 0x3F) << 12) |
             ((byte(pos + 2) & 0x3F) << 6) | (byte(pos + 3) & 0x3F);
  }
}

}  // namespace

std::string_view TruncateUtf8(std::string_view text, int32_t code_points) {
  size_t pos = 0;
  for (int32_t n = 0; n < code_points && pos < text.size(); ++n) {
    pos += SequenceLength(text, pos);
  }
  return text.substr(0, pos);
}

std::optional<std::string> TruncateUtf8UpperBound(std::string_view text, int32_t code_points) {
  std::string_view prefix = TruncateUtf8(text, code_points);
  if (prefix.size() == text.size()) return std::string(text);
  std::vector<size_t> starts;
  for (size_t pos = 0; pos < prefix.size(); pos += SequenceLength(prefix, pos)) {
    starts.push_back(pos);
  }
  // Increment the last code point that can be; drop everything after it.
  for (size_t i = starts.size(); i-- > 0;) {
    size_t start = starts[i];
    size_t end = i + 1 < starts.size() ? starts[i + 1] : prefix.size();
    auto code_point = Decode(prefix, start, end - start);
    if (!code_point) return std::nullopt;  // not UTF-8: no sound increment
    if (*code_point == kMaxCodePoint) continue;
    uint32_t next = *code_point == 0xD7FF ? 0xE000 : *code_point + 1;
    std::string out(prefix.substr(0, start));
    AppendUtf8(next, &out);
    return out;
  }
  return std::nullopt;
}

std::string_view TruncateBinary(std::string_view bytes, int32_t length) {
  return bytes.substr(0, std::min(bytes.size(), static_cast<size_t>(length)));
}

std::optional<std::string> TruncateBinaryUpperBound(std::string_view bytes, int32_t length) {
  if (bytes.size() <= static_cast<size_t>(length)) return std::string(bytes);
  std::string out(bytes.substr(0, static_cast<size_t>(length)));
  while (!out.empty()) {
    auto last = static_cast<uint8_t>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

}  // namespace skade::spec
