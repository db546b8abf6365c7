#include "skade/avro/value_reader.h"

#include "skade/util/strings.h"

namespace skade::avro {

namespace {

template <typename T>
Result<std::optional<T>> AsOptional(Result<T> value) {
  if (!value) return tl::unexpected(std::move(value).error());
  return std::optional<T>(std::move(*value));
}

tl::unexpected<Error> Mismatch(const Node& actual, std::string_view wanted) {
  return Corruption("Cannot read an Avro ", AvroTypeName(actual.type), " value as ", wanted);
}

// Reads the items of an array (after its branch is resolved), calling
// `read_item` for each.
template <typename ReadItem>
Status ForEachArrayItem(Decoder& decoder, ReadItem&& read_item) {
  while (true) {
    SKADE_ASSIGN_OR_RAISE(int64_t count, decoder.ReadBlockCount());
    if (count == 0) return OkStatus();
    for (int64_t i = 0; i < count; ++i) SKADE_RETURN_NOT_OK(read_item());
  }
}

template <typename Value, typename ReadValue>
Result<bool> ReadIntKeyedMap(Decoder& decoder, const Node& node, DecodeBudget& budget,
                             std::map<int32_t, Value>* out, ReadValue&& read_value) {
  out->clear();
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  if (actual->type == AvroType::kNull) return false;
  if (actual->type == AvroType::kMap) {
    SKADE_RETURN_NOT_OK(ForEachArrayItem(decoder, [&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(std::string_view key_text, decoder.ReadString());
      auto key = ParseInt32(key_text);
      if (!key) return Corruption("Map key is not an integer: ", key_text);
      SKADE_ASSIGN_OR_RAISE(auto value, read_value(*actual->values));
      if (!value) return OkStatus();
      SKADE_RETURN_NOT_OK(budget.ChargeMapNode<Value>());
      out->insert_or_assign(out->end(), *key, std::move(*value));
      return OkStatus();
    }));
    return true;
  }
  if (actual->type != AvroType::kArray || actual->items->type != AvroType::kRecord) {
    return Mismatch(*actual, "a map with int keys");
  }
  const Node& entry = *actual->items;
  int key_index = -1;
  int value_index = -1;
  for (size_t i = 0; i < entry.fields.size(); ++i) {
    if (entry.fields[i].name == "key") key_index = static_cast<int>(i);
    if (entry.fields[i].name == "value") value_index = static_cast<int>(i);
  }
  if (key_index < 0 || value_index < 0) {
    return Corruption("Map entry record ", entry.name, " lacks a key or value field");
  }
  // Writers emit keys in order, so appending at the end is the common case.
  SKADE_RETURN_NOT_OK(ForEachArrayItem(decoder, [&]() -> Status {
    std::optional<int32_t> key;
    std::optional<Value> value;
    for (size_t i = 0; i < entry.fields.size(); ++i) {
      const Node& field_type = *entry.fields[i].type;
      if (static_cast<int>(i) == key_index) {
        SKADE_ASSIGN_OR_RAISE(key, ReadOptionalInt(decoder, field_type));
      } else if (static_cast<int>(i) == value_index) {
        SKADE_ASSIGN_OR_RAISE(value, read_value(field_type));
      } else {
        SKADE_RETURN_NOT_OK(SkipValue(decoder, field_type));
      }
    }
    if (!key) return Corruption("Null key in map ", entry.name);
    if (!value) return OkStatus();
    SKADE_RETURN_NOT_OK(budget.ChargeMapNode<Value>());
    out->insert_or_assign(out->end(), *key, std::move(*value));
    return OkStatus();
  }));
  return true;
}

template <typename Item, typename ReadItem>
Result<bool> ReadList(Decoder& decoder, const Node& node, DecodeBudget& budget,
                      std::vector<Item>* out, ReadItem&& read_item) {
  out->clear();
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  if (actual->type == AvroType::kNull) return false;
  if (actual->type != AvroType::kArray) return Mismatch(*actual, "a list");
  SKADE_RETURN_NOT_OK(ForEachArrayItem(decoder, [&]() -> Status {
    SKADE_ASSIGN_OR_RAISE(auto item, read_item(decoder, *actual->items));
    if (!item) return Corruption("Null element in a list of required elements");
    SKADE_RETURN_NOT_OK(budget.Reserve(out, 1));
    out->push_back(*item);
    return OkStatus();
  }));
  return true;
}

}  // namespace

Status SkipValue(Decoder& decoder, const Node& node) {
  switch (node.type) {
    case AvroType::kNull:
      return OkStatus();
    case AvroType::kBoolean:
      return decoder.ReadBoolean().map([](bool) {});
    case AvroType::kInt:
    case AvroType::kLong:
    case AvroType::kEnum:
      return decoder.ReadLong().map([](int64_t) {});
    case AvroType::kFloat:
      return decoder.Skip(sizeof(float));
    case AvroType::kDouble:
      return decoder.Skip(sizeof(double));
    case AvroType::kBytes:
    case AvroType::kString:
      return decoder.ReadBytes().map([](std::string_view) {});
    case AvroType::kFixed:
      return decoder.Skip(static_cast<size_t>(node.fixed_size));
    case AvroType::kRecord:
      for (const Field& field : node.fields) SKADE_RETURN_NOT_OK(SkipValue(decoder, *field.type));
      return OkStatus();
    case AvroType::kArray:
      return ForEachArrayItem(decoder, [&] { return SkipValue(decoder, *node.items); });
    case AvroType::kMap:
      return ForEachArrayItem(decoder, [&]() -> Status {
        SKADE_RETURN_NOT_OK(decoder.ReadBytes());
        return SkipValue(decoder, *node.values);
      });
    case AvroType::kUnion: {
      SKADE_ASSIGN_OR_RAISE(size_t index, decoder.ReadUnionIndex(node.branches.size()));
      return SkipValue(decoder, *node.branches[index]);
    }
  }
  return InternalError("Unknown Avro type");
}

Result<const Node*> ResolveBranch(Decoder& decoder, const Node& node) {
  if (node.type != AvroType::kUnion) return &node;
  SKADE_ASSIGN_OR_RAISE(size_t index, decoder.ReadUnionIndex(node.branches.size()));
  const Node* branch = node.branches[index].get();
  if (branch->type == AvroType::kUnion) return Corruption("Avro union nested in a union");
  return branch;
}

Result<std::optional<bool>> ReadOptionalBoolean(Decoder& decoder, const Node& node) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  if (actual->type == AvroType::kNull) return std::nullopt;
  if (actual->type != AvroType::kBoolean) return Mismatch(*actual, "boolean");
  return AsOptional(decoder.ReadBoolean());
}

Result<std::optional<int32_t>> ReadOptionalInt(Decoder& decoder, const Node& node) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  if (actual->type == AvroType::kNull) return std::nullopt;
  if (actual->type != AvroType::kInt) return Mismatch(*actual, "int");
  return AsOptional(decoder.ReadInt());
}

Result<std::optional<int64_t>> ReadOptionalLong(Decoder& decoder, const Node& node) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  if (actual->type == AvroType::kNull) return std::nullopt;
  if (actual->type != AvroType::kInt && actual->type != AvroType::kLong) {
    return Mismatch(*actual, "long");
  }
  return AsOptional(decoder.ReadLong());
}

Result<std::optional<float>> ReadOptionalFloat(Decoder& decoder, const Node& node) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  switch (actual->type) {
    case AvroType::kNull:
      return std::nullopt;
    case AvroType::kFloat:
      return AsOptional(decoder.ReadFloat());
    case AvroType::kInt:
    case AvroType::kLong: {
      SKADE_ASSIGN_OR_RAISE(int64_t value, decoder.ReadLong());
      return static_cast<float>(value);
    }
    default:
      return Mismatch(*actual, "float");
  }
}

Result<std::optional<double>> ReadOptionalDouble(Decoder& decoder, const Node& node) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  switch (actual->type) {
    case AvroType::kNull:
      return std::nullopt;
    case AvroType::kDouble:
      return AsOptional(decoder.ReadDouble());
    case AvroType::kFloat: {
      SKADE_ASSIGN_OR_RAISE(float value, decoder.ReadFloat());
      return static_cast<double>(value);
    }
    case AvroType::kInt:
    case AvroType::kLong: {
      SKADE_ASSIGN_OR_RAISE(int64_t value, decoder.ReadLong());
      return static_cast<double>(value);
    }
    default:
      return Mismatch(*actual, "double");
  }
}

Result<std::optional<std::string_view>> ReadOptionalBytes(Decoder& decoder, const Node& node) {
  SKADE_ASSIGN_OR_RAISE(const Node* actual, ResolveBranch(decoder, node));
  switch (actual->type) {
    case AvroType::kNull:
      return std::nullopt;
    case AvroType::kBytes:
    case AvroType::kString:
      return AsOptional(decoder.ReadBytes());
    case AvroType::kFixed:
      return AsOptional(decoder.ReadFixed(static_cast<size_t>(actual->fixed_size)));
    default:
      return Mismatch(*actual, "bytes");
  }
}

Result<bool> ReadLongList(Decoder& decoder, const Node& node, DecodeBudget& budget,
                          std::vector<int64_t>* out) {
  return ReadList(decoder, node, budget, out, ReadOptionalLong);
}

Result<bool> ReadIntList(Decoder& decoder, const Node& node, DecodeBudget& budget,
                         std::vector<int32_t>* out) {
  // Some writers store int lists (equality_ids) with long items.
  return ReadList(decoder, node, budget, out,
                  [](Decoder& d, const Node& item) -> Result<std::optional<int32_t>> {
                    SKADE_ASSIGN_OR_RAISE(auto value, ReadOptionalLong(d, item));
                    if (value && (*value < INT32_MIN || *value > INT32_MAX)) {
                      return Corruption("List element out of int range: ", *value);
                    }
                    if (!value) return std::nullopt;
                    return static_cast<int32_t>(*value);
                  });
}

Result<bool> ReadIntLongMap(Decoder& decoder, const Node& node, DecodeBudget& budget,
                            std::map<int32_t, int64_t>* out) {
  return ReadIntKeyedMap(decoder, node, budget, out,
                         [&](const Node& value) { return ReadOptionalLong(decoder, value); });
}

Result<bool> ReadIntBytesMap(Decoder& decoder, const Node& node, DecodeBudget& budget,
                             std::map<int32_t, std::string>* out) {
  return ReadIntKeyedMap(decoder, node, budget, out,
                         [&](const Node& value) -> Result<std::optional<std::string>> {
                           SKADE_ASSIGN_OR_RAISE(auto bytes, ReadOptionalBytes(decoder, value));
                           if (!bytes) return std::nullopt;
                           SKADE_RETURN_NOT_OK(budget.ChargeString(bytes->size()));
                           return std::string(*bytes);
                         });
}

}  // namespace skade::avro
