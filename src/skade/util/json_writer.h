// A small streaming JSON writer into a std::string.
//
// Not thread-safe; one writer per document. Commas and nesting are tracked for
// the caller; misuse (a value without a key inside an object) is a bug and is
// caught by assertions in debug builds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skade {

class JsonWriter {
 public:
  JsonWriter() = default;

  void StartObject();
  void EndObject();
  void StartArray();
  void EndArray();

  /// Writes an object key; the next call writes its value.
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Double(double value);
  void Bool(bool value);
  void Null();
  /// Writes `json` verbatim as one value; it must already be valid JSON.
  void Raw(std::string_view json);

  // Key-value shorthands for objects.
  void Field(std::string_view key, std::string_view value) { Key(key), String(value); }
  void Field(std::string_view key, const char* value) { Key(key), String(value); }
  void Field(std::string_view key, const std::string& value) { Key(key), String(value); }
  void Field(std::string_view key, int64_t value) { Key(key), Int(value); }
  void Field(std::string_view key, int32_t value) { Key(key), Int(value); }
  void Field(std::string_view key, bool value) { Key(key), Bool(value); }

  /// Makes room for `bytes` of output in all, so a large document grows
  /// without reallocating.
  void Reserve(size_t bytes) { out_.reserve(bytes); }

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

  /// Appends `value` to `out` as a quoted, escaped JSON string.
  static void AppendQuoted(std::string* out, std::string_view value);

 private:
  void BeforeValue();

  std::string out_;
  // One entry per open container: true once it holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace skade
