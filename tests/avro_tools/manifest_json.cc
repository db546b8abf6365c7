#include "avro_tools/manifest_json.h"

#include <cmath>
#include <variant>

#include "skade/util/strings.h"

namespace skade::avro_tool {

namespace {

using spec::Literal;
using spec::TypeId;

constexpr char kHexDigits[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decimals: big-endian two's complement (at most 16 bytes) ↔ text.
std::string DecimalToString(std::string_view bytes, int scale) {
  __int128 value = (!bytes.empty() && static_cast<uint8_t>(bytes[0]) >= 0x80) ? -1 : 0;
  for (char byte : bytes) value = (value << 8) | static_cast<uint8_t>(byte);
  bool negative = value < 0;
  unsigned __int128 magnitude = negative ? static_cast<unsigned __int128>(-(value + 1)) + 1
                                         : static_cast<unsigned __int128>(value);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale)) {
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

Result<std::string> DecimalFromString(std::string_view text, int scale) {
  bool negative = ConsumePrefix(&text, "-");
  size_t dot = text.find('.');
  std::string digits(text.substr(0, dot));
  std::string fraction = dot == std::string_view::npos ? "" : std::string(text.substr(dot + 1));
  if (fraction.size() > static_cast<size_t>(scale)) {
    return InvalidArgument("Decimal ", text, " has more than ", scale, " fraction digits");
  }
  digits += fraction + std::string(static_cast<size_t>(scale) - fraction.size(), '0');
  if (digits.empty() || digits.size() > 38) return InvalidArgument("Invalid decimal: ", text);
  __int128 value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return InvalidArgument("Invalid decimal: ", text);
    value = value * 10 + (c - '0');
  }
  if (negative) value = -value;
  std::string bytes(16, '\0');
  for (int i = 15; i >= 0; --i) {
    bytes[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(value & 0xFF));
    value >>= 8;
  }
  size_t start = 0;
  while (start + 1 < bytes.size()) {
    auto current = static_cast<uint8_t>(bytes[start]);
    auto next = static_cast<uint8_t>(bytes[start + 1]);
    if ((current == 0x00 && next < 0x80) || (current == 0xFF && next >= 0x80)) {
      ++start;
    } else {
      break;
    }
  }
  return bytes.substr(start);
}

std::string UuidToString(std::string_view bytes) {
  std::string hex = Hex(bytes);
  return StrCat(hex.substr(0, 8), "-", hex.substr(8, 4), "-", hex.substr(12, 4), "-",
                hex.substr(16, 4), "-", hex.substr(20));
}

template <typename T>
void WriteFloating(JsonWriter& writer, T value) {
  if (std::isnan(value)) {
    writer.String("NaN");
  } else if (std::isinf(value)) {
    writer.String(value > 0 ? "Infinity" : "-Infinity");
  } else {
    writer.Double(value);
  }
}

Result<double> FloatingFromJson(json::Element element) {
  std::string_view text;
  if (!element.get_string().get(text)) {
    if (text == "NaN") return std::nan("");
    if (text == "Infinity") return HUGE_VAL;
    if (text == "-Infinity") return -HUGE_VAL;
    return InvalidArgument("Invalid floating-point value: ", text);
  }
  double value;
  if (element.get_double().get(value)) return InvalidArgument("Expected a number");
  return value;
}

Result<std::string> HexFromJson(json::Element element, std::string_view what) {
  SKADE_ASSIGN_OR_RAISE(std::string text, json::ToString(element, what));
  return Unhex(text);
}

template <typename Value>
void WriteIdMap(JsonWriter& writer, std::string_view key, const std::map<int32_t, Value>& map) {
  writer.Key(key);
  writer.StartObject();
  for (const auto& [id, value] : map) {
    writer.Key(StrCat(id));
    if constexpr (std::is_same_v<Value, std::string>) {
      writer.String(Hex(value));
    } else {
      writer.Int(value);
    }
  }
  writer.EndObject();
}

template <typename Value>
Status IdMapFromJson(json::Object object, std::string_view key, std::map<int32_t, Value>* out) {
  auto element = json::Find(object, key);
  if (!element) return OkStatus();
  SKADE_ASSIGN_OR_RAISE(json::Object map, json::AsObject(*element, key));
  for (auto [id_text, value] : map) {
    auto id = ParseInt32(id_text);
    if (!id) return InvalidArgument("Invalid column id in ", key, ": ", id_text);
    if constexpr (std::is_same_v<Value, std::string>) {
      SKADE_ASSIGN_OR_RAISE((*out)[*id], HexFromJson(value, key));
    } else {
      SKADE_ASSIGN_OR_RAISE((*out)[*id], json::ToInt64(value, key));
    }
  }
  return OkStatus();
}

template <typename T>
void WriteOptionalInt(JsonWriter& writer, std::string_view key, const std::optional<T>& value) {
  writer.Key(key);
  if (value) {
    writer.Int(*value);
  } else {
    writer.Null();
  }
}

void WriteOptionalHex(JsonWriter& writer, std::string_view key,
                      const std::optional<std::string>& value) {
  writer.Key(key);
  if (value) {
    writer.String(Hex(*value));
  } else {
    writer.Null();
  }
}

Result<std::optional<std::string>> OptionalHex(json::Object object, std::string_view key) {
  auto element = json::Find(object, key);
  if (!element) return std::nullopt;
  SKADE_ASSIGN_OR_RAISE(std::string bytes, HexFromJson(*element, key));
  return bytes;
}

}  // namespace

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHexDigits[c >> 4]);
    out.push_back(kHexDigits[c & 0xF]);
  }
  return out;
}

Result<std::string> Unhex(std::string_view hex) {
  if (hex.size() % 2 != 0) return InvalidArgument("Odd-length hex string");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int high = HexValue(hex[i]);
    int low = HexValue(hex[i + 1]);
    if (high < 0 || low < 0) return InvalidArgument("Invalid hex string: ", hex);
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

void WriteLiteral(JsonWriter& writer, const Literal& value) {
  if (value.is_null()) {
    writer.Null();
    return;
  }
  const spec::Type& type = *value.type();
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          writer.Bool(v);
        } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
          writer.Int(v);
        } else if constexpr (std::is_floating_point_v<T>) {
          WriteFloating(writer, v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          switch (type.id()) {
            case TypeId::kString:
              writer.String(v);
              break;
            case TypeId::kUuid:
              writer.String(UuidToString(v));
              break;
            case TypeId::kDecimal:
              writer.String(DecimalToString(v, type.decimal_scale()));
              break;
            default:
              writer.String(Hex(v));
              break;
          }
        } else {
          writer.Null();
        }
      },
      value.value());
}

Result<Literal> LiteralFromJson(json::Element element, const spec::TypePtr& type) {
  if (element.is_null()) return Literal::Null(type);
  switch (type->id()) {
    case TypeId::kBoolean: {
      bool value;
      if (element.get_bool().get(value)) return InvalidArgument("Expected a boolean");
      return Literal(type, value);
    }
    case TypeId::kInt:
    case TypeId::kDate: {
      SKADE_ASSIGN_OR_RAISE(int32_t value, json::ToInt32(element, type->ToString()));
      return Literal(type, value);
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      SKADE_ASSIGN_OR_RAISE(int64_t value, json::ToInt64(element, type->ToString()));
      return Literal(type, value);
    }
    case TypeId::kFloat: {
      SKADE_ASSIGN_OR_RAISE(double value, FloatingFromJson(element));
      return Literal(type, static_cast<float>(value));
    }
    case TypeId::kDouble: {
      SKADE_ASSIGN_OR_RAISE(double value, FloatingFromJson(element));
      return Literal(type, value);
    }
    case TypeId::kString: {
      SKADE_ASSIGN_OR_RAISE(std::string value, json::ToString(element, "string"));
      return Literal(type, std::move(value));
    }
    case TypeId::kUuid: {
      SKADE_ASSIGN_OR_RAISE(std::string text, json::ToString(element, "uuid"));
      std::string hex;
      for (char c : text) {
        if (c != '-') hex.push_back(c);
      }
      SKADE_ASSIGN_OR_RAISE(std::string bytes, Unhex(hex));
      if (bytes.size() != 16) return InvalidArgument("Invalid uuid: ", text);
      return Literal(type, std::move(bytes));
    }
    case TypeId::kDecimal: {
      SKADE_ASSIGN_OR_RAISE(std::string text, json::ToString(element, "decimal"));
      SKADE_ASSIGN_OR_RAISE(std::string bytes, DecimalFromString(text, type->decimal_scale()));
      return Literal(type, std::move(bytes));
    }
    case TypeId::kBinary:
    case TypeId::kFixed: {
      SKADE_ASSIGN_OR_RAISE(std::string bytes, HexFromJson(element, type->ToString()));
      return Literal(type, std::move(bytes));
    }
    default:
      return InvalidArgument("Unsupported partition type ", type->ToString());
  }
}

void WriteDataFile(JsonWriter& writer, const spec::DataFile& file) {
  writer.StartObject();
  writer.Field("content", static_cast<int32_t>(file.content));
  writer.Field("file_path", file.file_path);
  writer.Field("file_format", spec::FileFormatName(file.file_format));
  writer.Field("spec_id", file.spec_id);
  writer.Key("partition");
  writer.StartArray();
  for (const Literal& value : file.partition) WriteLiteral(writer, value);
  writer.EndArray();
  writer.Field("record_count", file.record_count);
  writer.Field("file_size_in_bytes", file.file_size_in_bytes);
  WriteIdMap(writer, "column_sizes", file.column_sizes);
  WriteIdMap(writer, "value_counts", file.value_counts);
  WriteIdMap(writer, "null_value_counts", file.null_value_counts);
  WriteIdMap(writer, "nan_value_counts", file.nan_value_counts);
  WriteIdMap(writer, "lower_bounds", file.lower_bounds);
  WriteIdMap(writer, "upper_bounds", file.upper_bounds);
  WriteOptionalHex(writer, "key_metadata", file.key_metadata);
  writer.Key("split_offsets");
  writer.StartArray();
  for (int64_t offset : file.split_offsets) writer.Int(offset);
  writer.EndArray();
  writer.Key("equality_ids");
  writer.StartArray();
  for (int32_t id : file.equality_ids) writer.Int(id);
  writer.EndArray();
  WriteOptionalInt(writer, "sort_order_id", file.sort_order_id);
  WriteOptionalInt(writer, "first_row_id", file.first_row_id);
  writer.Key("referenced_data_file");
  if (file.referenced_data_file) {
    writer.String(*file.referenced_data_file);
  } else {
    writer.Null();
  }
  WriteOptionalInt(writer, "content_offset", file.content_offset);
  WriteOptionalInt(writer, "content_size_in_bytes", file.content_size_in_bytes);
  writer.EndObject();
}

Result<spec::DataFile> DataFileFromJson(json::Element element, const spec::Type& partition_type) {
  SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(element, "data_file"));
  spec::DataFile file;
  SKADE_ASSIGN_OR_RAISE(auto content, json::GetOptionalInt32(object, "content"));
  file.content = static_cast<spec::DataFileContent>(content.value_or(0));
  SKADE_ASSIGN_OR_RAISE(file.file_path, json::GetString(object, "file_path"));
  SKADE_ASSIGN_OR_RAISE(std::string format, json::GetString(object, "file_format"));
  SKADE_ASSIGN_OR_RAISE(file.file_format, spec::ParseFileFormat(format));
  SKADE_ASSIGN_OR_RAISE(auto spec_id, json::GetOptionalInt32(object, "spec_id"));
  file.spec_id = spec_id.value_or(0);
  if (auto partition = json::Find(object, "partition")) {
    SKADE_ASSIGN_OR_RAISE(json::Array values, json::AsArray(*partition, "partition"));
    size_t i = 0;
    for (json::Element value : values) {
      if (i >= partition_type.fields().size()) {
        return InvalidArgument("Too many partition values for ", file.file_path);
      }
      SKADE_ASSIGN_OR_RAISE(Literal literal,
                            LiteralFromJson(value, partition_type.fields()[i++].type));
      file.partition.push_back(std::move(literal));
    }
  }
  SKADE_ASSIGN_OR_RAISE(file.record_count, json::GetInt64(object, "record_count"));
  SKADE_ASSIGN_OR_RAISE(file.file_size_in_bytes, json::GetInt64(object, "file_size_in_bytes"));
  SKADE_RETURN_NOT_OK(IdMapFromJson(object, "column_sizes", &file.column_sizes));
  SKADE_RETURN_NOT_OK(IdMapFromJson(object, "value_counts", &file.value_counts));
  SKADE_RETURN_NOT_OK(IdMapFromJson(object, "null_value_counts", &file.null_value_counts));
  SKADE_RETURN_NOT_OK(IdMapFromJson(object, "nan_value_counts", &file.nan_value_counts));
  SKADE_RETURN_NOT_OK(IdMapFromJson(object, "lower_bounds", &file.lower_bounds));
  SKADE_RETURN_NOT_OK(IdMapFromJson(object, "upper_bounds", &file.upper_bounds));
  SKADE_ASSIGN_OR_RAISE(file.key_metadata, OptionalHex(object, "key_metadata"));
  if (json::Find(object, "split_offsets")) {
    SKADE_ASSIGN_OR_RAISE(file.split_offsets, json::GetInt64List(object, "split_offsets"));
  }
  if (json::Find(object, "equality_ids")) {
    SKADE_ASSIGN_OR_RAISE(file.equality_ids, json::GetInt32List(object, "equality_ids"));
  }
  SKADE_ASSIGN_OR_RAISE(file.sort_order_id, json::GetOptionalInt32(object, "sort_order_id"));
  SKADE_ASSIGN_OR_RAISE(file.first_row_id, json::GetOptionalInt64(object, "first_row_id"));
  SKADE_ASSIGN_OR_RAISE(file.referenced_data_file,
                        json::GetOptionalString(object, "referenced_data_file"));
  SKADE_ASSIGN_OR_RAISE(file.content_offset, json::GetOptionalInt64(object, "content_offset"));
  SKADE_ASSIGN_OR_RAISE(file.content_size_in_bytes,
                        json::GetOptionalInt64(object, "content_size_in_bytes"));
  return file;
}

void WriteManifestEntry(JsonWriter& writer, const spec::ManifestEntry& entry) {
  writer.StartObject();
  writer.Field("status", static_cast<int32_t>(entry.status));
  WriteOptionalInt(writer, "snapshot_id", entry.snapshot_id);
  WriteOptionalInt(writer, "sequence_number", entry.sequence_number);
  WriteOptionalInt(writer, "file_sequence_number", entry.file_sequence_number);
  writer.Key("data_file");
  WriteDataFile(writer, entry.data_file);
  writer.EndObject();
}

Result<spec::ManifestEntry> ManifestEntryFromJson(json::Element element,
                                                  const spec::Type& partition_type) {
  SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(element, "manifest entry"));
  spec::ManifestEntry entry;
  SKADE_ASSIGN_OR_RAISE(auto status, json::GetOptionalString(object, "status"));
  if (!status || *status == "added") {
    entry.status = spec::ManifestEntryStatus::kAdded;
  } else if (*status == "existing") {
    entry.status = spec::ManifestEntryStatus::kExisting;
  } else if (*status == "deleted") {
    entry.status = spec::ManifestEntryStatus::kDeleted;
  } else {
    return InvalidArgument("Invalid entry status: ", *status);
  }
  SKADE_ASSIGN_OR_RAISE(entry.snapshot_id, json::GetOptionalInt64(object, "snapshot_id"));
  SKADE_ASSIGN_OR_RAISE(entry.sequence_number, json::GetOptionalInt64(object, "sequence_number"));
  SKADE_ASSIGN_OR_RAISE(entry.file_sequence_number,
                        json::GetOptionalInt64(object, "file_sequence_number"));
  SKADE_ASSIGN_OR_RAISE(json::Element data_file, json::GetRequired(object, "data_file"));
  SKADE_ASSIGN_OR_RAISE(entry.data_file, DataFileFromJson(data_file, partition_type));
  return entry;
}

void WriteManifestFile(JsonWriter& writer, const spec::ManifestFile& manifest) {
  writer.StartObject();
  writer.Field("manifest_path", manifest.manifest_path);
  writer.Field("manifest_length", manifest.manifest_length);
  writer.Field("partition_spec_id", manifest.partition_spec_id);
  writer.Field("content", static_cast<int32_t>(manifest.content));
  writer.Field("sequence_number", manifest.sequence_number);
  writer.Field("min_sequence_number", manifest.min_sequence_number);
  writer.Field("added_snapshot_id", manifest.added_snapshot_id);
  writer.Field("added_files_count", manifest.added_files_count);
  writer.Field("existing_files_count", manifest.existing_files_count);
  writer.Field("deleted_files_count", manifest.deleted_files_count);
  writer.Field("added_rows_count", manifest.added_rows_count);
  writer.Field("existing_rows_count", manifest.existing_rows_count);
  writer.Field("deleted_rows_count", manifest.deleted_rows_count);
  writer.Key("partitions");
  writer.StartArray();
  for (const spec::PartitionFieldSummary& summary : manifest.partitions) {
    writer.StartObject();
    writer.Field("contains_null", summary.contains_null);
    writer.Key("contains_nan");
    if (summary.contains_nan) {
      writer.Bool(*summary.contains_nan);
    } else {
      writer.Null();
    }
    WriteOptionalHex(writer, "lower_bound", summary.lower_bound);
    WriteOptionalHex(writer, "upper_bound", summary.upper_bound);
    writer.EndObject();
  }
  writer.EndArray();
  WriteOptionalHex(writer, "key_metadata", manifest.key_metadata);
  WriteOptionalInt(writer, "first_row_id", manifest.first_row_id);
  writer.EndObject();
}

Result<spec::ManifestFile> ManifestFileFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(element, "manifest file"));
  spec::ManifestFile manifest;
  SKADE_ASSIGN_OR_RAISE(manifest.manifest_path, json::GetString(object, "manifest_path"));
  SKADE_ASSIGN_OR_RAISE(manifest.manifest_length, json::GetInt64(object, "manifest_length"));
  SKADE_ASSIGN_OR_RAISE(manifest.partition_spec_id, json::GetInt32(object, "partition_spec_id"));
  SKADE_ASSIGN_OR_RAISE(auto content, json::GetOptionalInt32(object, "content"));
  manifest.content = static_cast<spec::ManifestContent>(content.value_or(0));
  SKADE_ASSIGN_OR_RAISE(manifest.sequence_number, json::GetInt64(object, "sequence_number"));
  SKADE_ASSIGN_OR_RAISE(manifest.min_sequence_number,
                        json::GetInt64(object, "min_sequence_number"));
  SKADE_ASSIGN_OR_RAISE(manifest.added_snapshot_id, json::GetInt64(object, "added_snapshot_id"));
  SKADE_ASSIGN_OR_RAISE(manifest.added_files_count, json::GetInt32(object, "added_files_count"));
  SKADE_ASSIGN_OR_RAISE(manifest.existing_files_count,
                        json::GetInt32(object, "existing_files_count"));
  SKADE_ASSIGN_OR_RAISE(manifest.deleted_files_count,
                        json::GetInt32(object, "deleted_files_count"));
  SKADE_ASSIGN_OR_RAISE(manifest.added_rows_count, json::GetInt64(object, "added_rows_count"));
  SKADE_ASSIGN_OR_RAISE(manifest.existing_rows_count,
                        json::GetInt64(object, "existing_rows_count"));
  SKADE_ASSIGN_OR_RAISE(manifest.deleted_rows_count, json::GetInt64(object, "deleted_rows_count"));
  if (auto partitions = json::Find(object, "partitions")) {
    SKADE_ASSIGN_OR_RAISE(json::Array array, json::AsArray(*partitions, "partitions"));
    for (json::Element item : array) {
      SKADE_ASSIGN_OR_RAISE(json::Object summary_object, json::AsObject(item, "field summary"));
      spec::PartitionFieldSummary summary;
      SKADE_ASSIGN_OR_RAISE(summary.contains_null, json::GetBool(summary_object, "contains_null"));
      SKADE_ASSIGN_OR_RAISE(summary.contains_nan,
                            json::GetOptionalBool(summary_object, "contains_nan"));
      SKADE_ASSIGN_OR_RAISE(summary.lower_bound, OptionalHex(summary_object, "lower_bound"));
      SKADE_ASSIGN_OR_RAISE(summary.upper_bound, OptionalHex(summary_object, "upper_bound"));
      manifest.partitions.push_back(std::move(summary));
    }
  }
  SKADE_ASSIGN_OR_RAISE(manifest.key_metadata, OptionalHex(object, "key_metadata"));
  SKADE_ASSIGN_OR_RAISE(manifest.first_row_id, json::GetOptionalInt64(object, "first_row_id"));
  return manifest;
}

}  // namespace skade::avro_tool
