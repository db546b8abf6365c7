#include "skade/avro/literal_codec.h"

#include <variant>

#include "skade/avro/value_reader.h"
#include "skade/util/uuid.h"

namespace skade::avro {

namespace {

using spec::Literal;
using spec::Type;
using spec::TypeId;

// Drops redundant sign bytes: 0x00 before a byte with the top bit clear,
// 0xFF before one with it set.
std::string MinimalTwosComplement(std::string_view bytes) {
  if (bytes.empty()) return std::string(1, '\0');
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
  return std::string(bytes.substr(start));
}

Result<std::string> SignExtend(std::string_view bytes, size_t size) {
  std::string minimal = MinimalTwosComplement(bytes);
  if (minimal.size() > size) {
    return InvalidArgument("Decimal value needs ", minimal.size(), " bytes but the field has ",
                           size);
  }
  char fill = static_cast<uint8_t>(minimal[0]) >= 0x80 ? '\xFF' : '\x00';
  return std::string(size - minimal.size(), fill) + minimal;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

Result<std::string> UuidBytes(std::string_view value) {
  if (value.size() == 16) return std::string(value);
  if (!IsUuid(value)) return Corruption("Invalid UUID value of ", value.size(), " bytes");
  std::string bytes;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '-') continue;
    bytes.push_back(static_cast<char>(HexValue(value[i]) * 16 + HexValue(value[i + 1])));
    ++i;
  }
  return bytes;
}

tl::unexpected<Error> WrongRepresentation(const Type& type, const Literal& value) {
  return InvalidArgument("Value ", value.ToString(), " cannot be written as ", type.ToString());
}

template <typename T>
const T* Get(const Literal& value) {
  return std::get_if<T>(&value.value());
}

}  // namespace

Status EncodeLiteral(Encoder& encoder, const Node& node, const Type& type, const Literal& value) {
  const Node* target = &node;
  if (node.type == AvroType::kUnion) {
    int null_index = node.NullBranchIndex();
    target = node.NonNullBranch();
    if (value.is_null()) {
      if (null_index < 0) return InvalidArgument("Null value for a required Avro union");
      encoder.WriteUnionIndex(null_index);
      return OkStatus();
    }
    if (target == nullptr) return InvalidArgument("Unsupported Avro union for a value");
    encoder.WriteUnionIndex(1 - null_index);
  } else if (value.is_null()) {
    if (node.type == AvroType::kNull) return OkStatus();
    return InvalidArgument("Null value for required ", type.ToString());
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      if (const bool* v = Get<bool>(value)) {
        encoder.WriteBoolean(*v);
        return OkStatus();
      }
      break;
    case TypeId::kInt:
    case TypeId::kDate:
      if (const int32_t* v = Get<int32_t>(value)) {
        encoder.WriteInt(*v);
        return OkStatus();
      }
      break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (const int64_t* v = Get<int64_t>(value)) {
        encoder.WriteLong(*v);
        return OkStatus();
      }
      break;
    case TypeId::kFloat:
      if (const float* v = Get<float>(value)) {
        encoder.WriteFloat(*v);
        return OkStatus();
      }
      break;
    case TypeId::kDouble:
      if (const double* v = Get<double>(value)) {
        encoder.WriteDouble(*v);
        return OkStatus();
      }
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      if (const std::string* v = Get<std::string>(value)) {
        encoder.WriteBytes(*v);
        return OkStatus();
      }
      break;
    case TypeId::kUuid:
    case TypeId::kFixed:
      if (const std::string* v = Get<std::string>(value)) {
        if (target->type != AvroType::kFixed ||
            v->size() != static_cast<size_t>(target->fixed_size)) {
          return InvalidArgument("Value of ", v->size(), " bytes for ", type.ToString());
        }
        encoder.WriteFixed(*v);
        return OkStatus();
      }
      break;
    case TypeId::kDecimal:
      if (const std::string* v = Get<std::string>(value)) {
        SKADE_ASSIGN_OR_RAISE(std::string bytes,
                              SignExtend(*v, static_cast<size_t>(target->fixed_size)));
        encoder.WriteFixed(bytes);
        return OkStatus();
      }
      break;
    default:
      return InvalidArgument("Cannot write a value of type ", type.ToString(), " to Avro");
  }
  return WrongRepresentation(type, value);
}

Result<Literal> DecodeLiteral(Decoder& decoder, const Node& node, const spec::TypePtr& type) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  if (actual->type == AvroType::kNull) return Literal::Null(type);
  auto wrap = [&](auto optional_value) -> Result<Literal> {
    if (!optional_value) return Literal::Null(type);
    return Literal(type, *optional_value);
  };
  switch (type->id()) {
    case TypeId::kBoolean: {
      SKADE_ASSIGN_OR_RAISE(auto v, ReadOptionalBoolean(decoder, *actual));
      return wrap(v);
    }
    case TypeId::kInt:
    case TypeId::kDate: {
      SKADE_ASSIGN_OR_RAISE(auto v, ReadOptionalInt(decoder, *actual));
      return wrap(v);
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      SKADE_ASSIGN_OR_RAISE(auto v, ReadOptionalLong(decoder, *actual));
      return wrap(v);
    }
    case TypeId::kFloat: {
      SKADE_ASSIGN_OR_RAISE(auto v, ReadOptionalFloat(decoder, *actual));
      return wrap(v);
    }
    case TypeId::kDouble: {
      SKADE_ASSIGN_OR_RAISE(auto v, ReadOptionalDouble(decoder, *actual));
      return wrap(v);
    }
    default:
      break;
  }
  SKADE_ASSIGN_OR_RAISE(auto bytes, ReadOptionalBytes(decoder, *actual));
  if (!bytes) return Literal::Null(type);
  switch (type->id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return Literal(type, std::string(*bytes));
    case TypeId::kFixed:
      if (bytes->size() != static_cast<size_t>(type->fixed_length())) {
        return Corruption("Value of ", bytes->size(), " bytes for ", type->ToString());
      }
      return Literal(type, std::string(*bytes));
    case TypeId::kUuid: {
      SKADE_ASSIGN_OR_RAISE(std::string uuid, UuidBytes(*bytes));
      return Literal(type, std::move(uuid));
    }
    case TypeId::kDecimal:
      return Literal(type, MinimalTwosComplement(*bytes));
    default:
      return Corruption("Cannot read a value of type ", type->ToString(), " from Avro");
  }
}

}  // namespace skade::avro
