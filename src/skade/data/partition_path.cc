#include "skade/data/partition_path.h"

#include <cstdio>

#include "skade/spec/literal_json.h"
#include "skade/spec/temporal_internal.h"
#include "skade/util/strings.h"

namespace skade::data {

namespace {

using spec::FloorDiv;
using spec::FloorMod;
using spec::IsoDateString;
using spec::TransformKind;
using spec::TypeId;

std::string Padded(int64_t value, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%0*lld", width, static_cast<long long>(value));
  return buffer;
}

// java.time.LocalTime#toString: seconds and fractions only when non-zero,
// fractions in groups of three digits.
std::string IsoTime(int64_t nanos_of_day) {
  int64_t seconds = nanos_of_day / 1'000'000'000;
  int64_t nanos = nanos_of_day % 1'000'000'000;
  std::string out = StrCat(Padded(seconds / 3600, 2), ":", Padded(seconds / 60 % 60, 2));
  if (seconds % 60 != 0 || nanos != 0) {
    StrAppend(&out, ":", Padded(seconds % 60, 2));
    if (nanos % 1'000'000 == 0 && nanos != 0) {
      StrAppend(&out, ".", Padded(nanos / 1'000'000, 3));
    } else if (nanos % 1000 == 0 && nanos != 0) {
      StrAppend(&out, ".", Padded(nanos / 1000, 6));
    } else if (nanos != 0) {
      StrAppend(&out, ".", Padded(nanos, 9));
    }
  }
  return out;
}

std::string IsoTimestamp(int64_t value, int64_t units_per_second, bool zoned) {
  int64_t units_per_day = units_per_second * 86400;
  int64_t days = FloorDiv(value, units_per_day);
  int64_t nanos_of_day = FloorMod(value, units_per_day) * (1'000'000'000 / units_per_second);
  return StrCat(IsoDateString(days), "T", IsoTime(nanos_of_day), zoned ? "Z" : "");
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                 (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(n >> shift) & 63]);
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// A value of the source type, as identity and truncate partitions show it.
std::string SourceValueString(const spec::Type& type, const spec::Literal& value) {
  const auto& v = value.value();
  switch (type.id()) {
    case TypeId::kDate:
      return IsoDateString(std::get<int32_t>(v));
    case TypeId::kTime:
      return IsoTime(std::get<int64_t>(v) * 1000);
    case TypeId::kTimestamp:
      return IsoTimestamp(std::get<int64_t>(v), 1'000'000, false);
    case TypeId::kTimestampTz:
      return IsoTimestamp(std::get<int64_t>(v), 1'000'000, true);
    case TypeId::kTimestampNs:
      return IsoTimestamp(std::get<int64_t>(v), 1'000'000'000, false);
    case TypeId::kTimestampTzNs:
      return IsoTimestamp(std::get<int64_t>(v), 1'000'000'000, true);
    case TypeId::kBinary:
    case TypeId::kFixed:
      return Base64(std::get<std::string>(v));
    case TypeId::kUuid:
      return spec::UuidString(std::get<std::string>(v));
    case TypeId::kDecimal:
      return spec::DecimalString(std::get<std::string>(v), type.decimal_scale());
    default:
      return value.ToString();
  }
}

// java.net.URLEncoder with UTF-8.
std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    auto byte = static_cast<uint8_t>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    }
  }
  return out;
}

}  // namespace

std::string PartitionValueToHumanString(const spec::Transform& transform, const spec::Type& source,
                                        const spec::Literal& value) {
  if (value.is_null()) return "null";
  switch (transform.kind()) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
      return SourceValueString(source, value);
    case TransformKind::kYear:
      return Padded(1970 + static_cast<int64_t>(std::get<int32_t>(value.value())), 4);
    case TransformKind::kMonth: {
      int64_t months = std::get<int32_t>(value.value());
      return StrCat(Padded(1970 + FloorDiv(months, 12), 4), "-",
                    Padded(FloorMod(months, 12) + 1, 2));
    }
    case TransformKind::kDay:
      return IsoDateString(std::get<int32_t>(value.value()));
    case TransformKind::kHour: {
      int64_t hours = std::get<int32_t>(value.value());
      return StrCat(IsoDateString(FloorDiv(hours, 24)), "-", Padded(FloorMod(hours, 24), 2));
    }
    default:
      return value.ToString();
  }
}

Result<std::string> PartitionPath(const spec::PartitionSpec& spec, const spec::Schema& schema,
                                  const std::vector<spec::Literal>& partition) {
  if (partition.size() != spec.fields.size()) {
    return InvalidArgument("Partition tuple has ", partition.size(), " values, the spec ",
                           spec.fields.size(), " fields");
  }
  std::string path;
  for (size_t i = 0; i < partition.size(); ++i) {
    const auto& field = spec.fields[i];
    const spec::NestedField* source = schema.FindFieldById(field.source_id);
    if (source == nullptr) {
      return InvalidArgument("Partition field '", field.name, "' has no source column");
    }
    if (i > 0) path.push_back('/');
    StrAppend(&path, UrlEncode(field.name), "=",
              UrlEncode(PartitionValueToHumanString(field.transform, *source->type, partition[i])));
  }
  return path;
}

}  // namespace skade::data
