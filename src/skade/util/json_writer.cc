#include "skade/util/json_writer.h"

#include <cassert>
#include <charconv>
#include <cmath>

namespace skade {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) out_.push_back(',');
    has_element_.back() = true;
  }
}

void JsonWriter::StartObject() {
  BeforeValue();
  out_.push_back('{');
  has_element_.push_back(false);
}

void JsonWriter::EndObject() {
  assert(!has_element_.empty());
  has_element_.pop_back();
  out_.push_back('}');
}

void JsonWriter::StartArray() {
  BeforeValue();
  out_.push_back('[');
  has_element_.push_back(false);
}

void JsonWriter::EndArray() {
  assert(!has_element_.empty());
  has_element_.pop_back();
  out_.push_back(']');
}

void JsonWriter::Key(std::string_view key) {
  assert(!after_key_);
  BeforeValue();
  AppendQuoted(&out_, key);
  out_.push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendQuoted(&out_, value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out_.append(buf, end);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    // JSON has no NaN or infinity; callers that need them encode them as strings.
    out_.append("null");
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out_.append(buf, end);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_.append(value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_.append("null");
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_.append(json);
}

void JsonWriter::AppendQuoted(std::string* out, std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto needs_escape = [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  };
  out->push_back('"');
  // Copy the runs between escapes whole: most strings have no escape at all.
  size_t run = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (!needs_escape(c)) continue;
    out->append(value.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default: {
        auto u = static_cast<unsigned char>(c);
        const char escaped[] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 0xF]};
        out->append(escaped, sizeof(escaped));
      }
    }
  }
  out->append(value.data() + run, value.size() - run);
  out->push_back('"');
}

}  // namespace skade
