#include "skade/spec/literal_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "skade/spec/decimal_internal.h"
#include "skade/spec/temporal_internal.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"
#include "skade/util/uuid.h"

namespace skade::spec {

namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;

std::string Padded(int64_t value, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%0*lld", width, static_cast<long long>(value));
  return buffer;
}

// "HH:MM:SS.ffffff" with `digits` fraction digits of a time of day in units
// of 10^-digits seconds.
std::string TimeString(int64_t units_of_day, int digits, int64_t units_per_second) {
  int64_t seconds = units_of_day / units_per_second;
  return StrCat(Padded(seconds / 3600, 2), ":", Padded(seconds / 60 % 60, 2), ":",
                Padded(seconds % 60, 2), ".", Padded(units_of_day % units_per_second, digits));
}

std::string TimestampString(int64_t value, int digits, int64_t units_per_second, bool zoned) {
  int64_t units_per_day = units_per_second * 86400;
  return StrCat(IsoDateString(FloorDiv(value, units_per_day)), "T",
                TimeString(FloorMod(value, units_per_day), digits, units_per_second),
                zoned ? "+00:00" : "");
}

std::string Int128String(Int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  auto magnitude =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  return negative ? "-" + digits : digits;
}

std::string HexString(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> FromHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    int high = HexDigit(text[i]), low = HexDigit(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

// "[-+]digits[.digits]" as an unscaled value of `scale`, exactly.
std::optional<Int128> ParseDecimal(std::string_view text, int32_t precision, int32_t scale) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::string_view integer = text, fraction;
  if (size_t dot = text.find('.'); dot != std::string_view::npos) {
    integer = text.substr(0, dot);
    fraction = text.substr(dot + 1);
  }
  if (integer.empty() && fraction.empty()) return std::nullopt;
  if (scale < 0) return std::nullopt;
  // Fraction digits beyond the scale must be zeros: the value is exact.
  while (fraction.size() > static_cast<size_t>(scale)) {
    if (fraction.back() != '0') return std::nullopt;
    fraction.remove_suffix(1);
  }
  std::string digits = StrCat(integer, fraction, std::string(scale - fraction.size(), '0'));
  Int128 value = 0;
  int significant = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value != 0 || c != '0') ++significant;
    if (significant > precision) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

// A timestamp in `units_per_second` (10^6 or 10^9), or nullopt when the text
// is not one of `zoned`'s forms or the value does not fit.
std::optional<int64_t> ParseTimestamp(std::string_view text, bool zoned, int64_t units_per_second) {
  auto parts = ParseIsoDateTime(text);
  if (!parts) return std::nullopt;
  // A local time cannot carry a zone; a zoned one without an offset is UTC,
  // as PyIceberg writes a timestamptz literal (naive ISO-8601 of the UTC time).
  if (!zoned && parts->offset_minutes.has_value()) return std::nullopt;
  Int128 value = static_cast<Int128>(parts->days) * 86400 * units_per_second +
                 parts->nanos_of_day / (kNanosPerSecond / units_per_second) -
                 static_cast<Int128>(parts->offset_minutes.value_or(0)) * 60 * units_per_second;
  if (parts->nanos_of_day % (kNanosPerSecond / units_per_second) != 0) return std::nullopt;
  if (value > INT64_MAX || value < INT64_MIN) return std::nullopt;
  return static_cast<int64_t>(value);
}

}  // namespace

std::string IsoDateString(int64_t days) {
  CivilDate date = CivilFromDays(days);
  std::string year;
  if (date.year < 0 && date.year > -1000) {
    year = "-" + Padded(-date.year, 4);
  } else if (date.year > 9999) {
    year = "+" + std::to_string(date.year);
  } else {
    year = Padded(date.year, 4);
  }
  return StrCat(year, "-", Padded(date.month, 2), "-", Padded(date.day, 2));
}

std::string UuidString(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[static_cast<uint8_t>(bytes[i]) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(bytes[i]) & 0xF]);
  }
  return out;
}

std::string DecimalString(std::string_view unscaled_bytes, int32_t scale) {
  std::string digits = Int128String(FromBigEndian(unscaled_bytes));
  if (scale < 0) return StrCat(digits, "E+", -static_cast<int64_t>(scale));
  bool negative = digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale)) {
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

std::string LiteralJsonText(const Literal& value) {
  if (value.is_null() || !value.type()) return "null";
  const auto& v = value.value();
  switch (value.type()->id()) {
    case TypeId::kDate:
      return IsoDateString(std::get<int32_t>(v));
    case TypeId::kTime:
      return TimeString(std::get<int64_t>(v), 6, 1'000'000);
    case TypeId::kTimestamp:
      return TimestampString(std::get<int64_t>(v), 6, 1'000'000, false);
    case TypeId::kTimestampTz:
      return TimestampString(std::get<int64_t>(v), 6, 1'000'000, true);
    case TypeId::kTimestampNs:
      return TimestampString(std::get<int64_t>(v), 9, kNanosPerSecond, false);
    case TypeId::kTimestampTzNs:
      return TimestampString(std::get<int64_t>(v), 9, kNanosPerSecond, true);
    case TypeId::kUuid:
      return UuidString(std::get<std::string>(v));
    case TypeId::kDecimal:
      return DecimalString(std::get<std::string>(v), value.type()->decimal_scale());
    case TypeId::kBinary:
    case TypeId::kFixed:
      return HexString(std::get<std::string>(v));
    default:
      return value.ToString();
  }
}

void WriteLiteralJson(const Literal& value, JsonWriter& writer) {
  if (value.is_null() || !value.type()) return writer.Null();
  const auto& v = value.value();
  if (const auto* b = std::get_if<bool>(&v)) return writer.Bool(*b);
  const auto* f = std::get_if<float>(&v);
  const auto* d = std::get_if<double>(&v);
  if (f != nullptr || d != nullptr) {
    double number = f != nullptr ? *f : *d;
    // JSON has no NaN or infinity; Jackson's names for them, as strings.
    if (std::isnan(number)) return writer.String("NaN");
    if (std::isinf(number)) return writer.String(number > 0 ? "Infinity" : "-Infinity");
    // With a point or exponent, so that readers see a floating-point number
    // ("1.0", not "1").
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), number);
    std::string text(buffer, end);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return writer.Raw(text);
  }
  switch (value.type()->id()) {
    case TypeId::kInt:
    case TypeId::kLong:
      return writer.Int(std::holds_alternative<int32_t>(v) ? std::get<int32_t>(v)
                                                           : std::get<int64_t>(v));
    default:
      return writer.String(LiteralJsonText(value));
  }
}

Result<Literal> LiteralFromJsonString(const TypePtr& type, std::string_view text) {
  auto invalid = [&]() {
    return InvalidArgument("Invalid ", type->ToString(), " value '", text, "'");
  };
  switch (type->id()) {
    case TypeId::kString:
      return Literal(type, std::string(text));
    case TypeId::kDate: {
      auto parts = ParseIsoDateTime(text);
      if (!parts || parts->has_time) return invalid();
      if (parts->days < INT32_MIN || parts->days > INT32_MAX) return invalid();
      return Literal(type, static_cast<int32_t>(parts->days));
    }
    case TypeId::kTime: {
      auto nanos = ParseIsoTimeOfDay(text);
      if (!nanos || *nanos % 1000 != 0) return invalid();
      return Literal(type, *nanos / 1000);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      bool zoned = type->id() == TypeId::kTimestampTz || type->id() == TypeId::kTimestampTzNs;
      bool nanos = type->id() == TypeId::kTimestampNs || type->id() == TypeId::kTimestampTzNs;
      auto value = ParseTimestamp(text, zoned, nanos ? kNanosPerSecond : 1'000'000);
      if (!value) return invalid();
      return Literal(type, *value);
    }
    case TypeId::kUuid: {
      if (!IsUuid(text)) return invalid();
      std::string hex;
      for (char c : text) {
        if (c != '-') hex.push_back(c);
      }
      return Literal(type, *FromHex(hex));
    }
    case TypeId::kDecimal: {
      auto unscaled = ParseDecimal(text, type->decimal_precision(), type->decimal_scale());
      if (!unscaled) return invalid();
      return Literal(type, MinimalBigEndian(*unscaled));
    }
    case TypeId::kBinary:
    case TypeId::kFixed: {
      auto bytes = FromHex(text);
      if (!bytes) return invalid();
      if (type->id() == TypeId::kFixed &&
          bytes->size() != static_cast<size_t>(type->fixed_length())) {
        return invalid();
      }
      return Literal(type, std::move(*bytes));
    }
    default:
      return InvalidArgument("A ", type->ToString(), " value is not written as a string: '", text,
                             "'");
  }
}

}  // namespace skade::spec
