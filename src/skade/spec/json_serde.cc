#include "skade/spec/json_serde.h"

#include "skade/spec/json_serde_internal.h"
#include "skade/util/json_parser.h"

namespace skade::spec {

namespace internal {

Result<json::Element> ParseDocument(std::string_view text) {
  // Keeps the buffers of the largest document the thread parsed: only for
  // TableMetadataFromJson, whose callers (tools, fuzzers) parse a document or
  // two. What a client can make large goes through a JsonParser.
  thread_local simdjson::dom::parser parser;
  return json::Parse(parser, text);
}

std::string Snippet(json::Element element) {
  constexpr size_t kMaxLength = 120;
  std::string text = json::Minify(element);
  if (text.size() > kMaxLength) {
    text.resize(kMaxLength);
    text += "...";
  }
  return text;
}

void WriteStringMap(JsonWriter& writer, std::string_view key,
                    const std::map<std::string, std::string>& map) {
  writer.Key(key);
  writer.StartObject();
  for (const auto& [name, value] : map) writer.Field(name, value);
  writer.EndObject();
}

void WriteSourceIds(JsonWriter& writer, int32_t source_id, const std::vector<int32_t>& source_ids) {
  if (source_ids.size() > 1) {
    writer.Key("source-ids");
    writer.StartArray();
    for (int32_t id : source_ids) writer.Int(id);
    writer.EndArray();
  } else {
    writer.Field("source-id", source_id);
  }
}

Status ReadSourceIds(json::Object object, int32_t* source_id, std::vector<int32_t>* source_ids) {
  SKADE_ASSIGN_OR_RAISE(auto single, json::GetOptionalInt32(object, "source-id"));
  source_ids->clear();
  if (json::Find(object, "source-ids")) {
    SKADE_ASSIGN_OR_RAISE(*source_ids, json::GetInt32List(object, "source-ids"));
    if (source_ids->empty()) return InvalidArgument("Cannot parse empty list: source-ids");
  }
  if (single) {
    *source_id = *single;
  } else if (!source_ids->empty()) {
    *source_id = source_ids->front();
  } else {
    return InvalidArgument("Cannot parse missing int: source-id");
  }
  if (source_ids->size() == 1) {
    if (source_ids->front() != *source_id) {
      return InvalidArgument("Cannot parse conflicting source-id ", *source_id, " and source-ids [",
                             source_ids->front(), "]");
    }
    source_ids->clear();
  }
  return OkStatus();
}

}  // namespace internal

std::string SchemaToJson(const Schema& schema) {
  JsonWriter writer;
  WriteSchema(writer, schema);
  return writer.Take();
}

Result<SchemaPtr> SchemaFromJsonString(std::string_view text) {
  JsonParser parser(JsonParser::WhenBusy::kWait);
  SKADE_ASSIGN_OR_RAISE(auto element, parser.Parse(text));
  return SchemaFromJson(element);
}

std::string PartitionSpecToJson(const PartitionSpec& spec) {
  JsonWriter writer;
  WritePartitionSpec(writer, spec);
  return writer.Take();
}

Result<PartitionSpecPtr> PartitionSpecFromJsonString(std::string_view text) {
  JsonParser parser(JsonParser::WhenBusy::kWait);
  SKADE_ASSIGN_OR_RAISE(auto element, parser.Parse(text));
  return PartitionSpecFromJson(element);
}

std::string SortOrderToJson(const SortOrder& order) {
  JsonWriter writer;
  WriteSortOrder(writer, order);
  return writer.Take();
}

Result<SortOrderPtr> SortOrderFromJsonString(std::string_view text) {
  JsonParser parser(JsonParser::WhenBusy::kWait);
  SKADE_ASSIGN_OR_RAISE(auto element, parser.Parse(text));
  return SortOrderFromJson(element);
}

}  // namespace skade::spec
