// skade_avro_tool: reads and writes Iceberg manifests and manifest lists with
// skade's avro module, as JSON, for the interop tests
// (tests/interop/test_avro_interop.py).
//
//   read-manifest FILE [--inherit-from LIST]   entries (+ inheritance) as JSON
//   read-manifest-list FILE                    manifests as JSON
//   write-manifest INPUT.json OUT              writes a manifest, prints its summary
//   write-manifest-list INPUT.json OUT         writes a manifest list, prints it
//   avro-schema FILE                           the file's Avro schema as skade writes it
//
// The JSON forms are in manifest_json.h; the inputs are described at each
// command below. Errors go to stderr with exit status 1.
#include <CLI/CLI.hpp>
#include <iostream>

#include "avro_tools/manifest_json.h"
#include "skade/avro/container_reader.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/avro/manifest_reader.h"
#include "skade/avro/manifest_writer.h"
#include "skade/io/file_io.h"
#include "skade/spec/json_serde.h"

namespace skade::avro_tool {
namespace {

using avro::Codec;

Result<Codec> CodecFromJson(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto name, json::GetOptionalString(object, "codec"));
  return avro::ParseCodec(name.value_or("deflate"));
}

void WriteTypeFields(JsonWriter& writer, const spec::Type& struct_type) {
  writer.StartArray();
  for (const spec::NestedField& field : struct_type.fields()) {
    writer.StartObject();
    writer.Field("id", field.id);
    writer.Field("name", field.name);
    writer.Field("type", field.type->ToString());
    writer.EndObject();
  }
  writer.EndArray();
}

Result<std::string> ReadManifestCommand(io::FileIO& io, const std::string& path,
                                        const std::string& inherit_from) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(path));
  SKADE_ASSIGN_OR_RAISE(avro::Manifest manifest, avro::ReadManifest(bytes));
  if (!inherit_from.empty()) {
    SKADE_ASSIGN_OR_RAISE(std::string list_bytes, io.ReadFile(inherit_from));
    SKADE_ASSIGN_OR_RAISE(avro::ManifestList list, avro::ReadManifestList(list_bytes));
    SKADE_ASSIGN_OR_RAISE(std::string local_path, io::LocalPath(path));
    const spec::ManifestFile* listed = nullptr;
    for (const spec::ManifestFile& candidate : list.manifests) {
      auto candidate_path = io::LocalPath(candidate.manifest_path);
      if (candidate_path && *candidate_path == local_path) listed = &candidate;
    }
    if (listed == nullptr) return InvalidArgument(path, " is not in ", inherit_from);
    SKADE_RETURN_NOT_OK(avro::InheritFromManifestFile(*listed, &manifest.entries));
  }
  JsonWriter writer;
  writer.StartObject();
  writer.Key("metadata");
  writer.StartObject();
  const avro::ManifestMetadata& metadata = manifest.metadata;
  writer.Field("format_version", metadata.format_version);
  writer.Field("content", metadata.content == spec::ManifestContent::kData ? "data" : "deletes");
  writer.Field("partition_spec_id", metadata.partition_spec_id);
  writer.Key("schema_id");
  if (metadata.schema_id) {
    writer.Int(*metadata.schema_id);
  } else {
    writer.Null();
  }
  writer.Key("schema");
  writer.Raw(metadata.schema_json.empty() ? "null" : metadata.schema_json);
  writer.Key("partition_spec");
  writer.Raw(metadata.partition_spec_json.empty() ? "null" : metadata.partition_spec_json);
  writer.EndObject();
  writer.Key("partition_type");
  WriteTypeFields(writer, *manifest.partition_type);
  writer.Key("entries");
  writer.StartArray();
  for (const spec::ManifestEntry& entry : manifest.entries) WriteManifestEntry(writer, entry);
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

Result<std::string> ReadManifestListCommand(io::FileIO& io, const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(path));
  SKADE_ASSIGN_OR_RAISE(avro::ManifestList list, avro::ReadManifestList(bytes));
  JsonWriter writer;
  writer.StartObject();
  writer.Key("metadata");
  writer.StartObject();
  writer.Field("format_version", list.metadata.format_version);
  auto optional = [&](std::string_view key, const std::optional<int64_t>& value) {
    writer.Key(key);
    if (value) {
      writer.Int(*value);
    } else {
      writer.Null();
    }
  };
  optional("snapshot_id", list.metadata.snapshot_id);
  optional("parent_snapshot_id", list.metadata.parent_snapshot_id);
  optional("sequence_number", list.metadata.sequence_number);
  optional("first_row_id", list.metadata.first_row_id);
  writer.EndObject();
  writer.Key("manifests");
  writer.StartArray();
  for (const spec::ManifestFile& manifest : list.manifests) WriteManifestFile(writer, manifest);
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

// Input: {"format_version", "snapshot_id", "content": "data"|"deletes",
// "codec", "schema": <table schema JSON>, "partition_spec": <spec JSON>,
// "first_row_id"?, "entries": [<entry JSON>]}. Added entries with a
// sequence_number keep it; others inherit.
Result<std::string> WriteManifestCommand(io::FileIO& io, const std::string& input,
                                         const std::string& out) {
  SKADE_ASSIGN_OR_RAISE(std::string text, io.ReadFile(input));
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(json::Element root, json::Parse(parser, text));
  SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(root, "input"));
  SKADE_ASSIGN_OR_RAISE(json::Element schema_json, json::GetRequired(object, "schema"));
  SKADE_ASSIGN_OR_RAISE(spec::SchemaPtr schema, spec::SchemaFromJson(schema_json));
  SKADE_ASSIGN_OR_RAISE(json::Element spec_json, json::GetRequired(object, "partition_spec"));
  SKADE_ASSIGN_OR_RAISE(spec::PartitionSpecPtr partition_spec,
                        spec::PartitionSpecFromJson(spec_json));

  avro::ManifestWriterOptions options;
  SKADE_ASSIGN_OR_RAISE(options.format_version, json::GetInt32(object, "format_version"));
  SKADE_ASSIGN_OR_RAISE(options.snapshot_id, json::GetInt64(object, "snapshot_id"));
  SKADE_ASSIGN_OR_RAISE(auto content, json::GetOptionalString(object, "content"));
  if (content == "deletes") options.content = spec::ManifestContent::kDeletes;
  SKADE_ASSIGN_OR_RAISE(options.first_row_id, json::GetOptionalInt64(object, "first_row_id"));
  SKADE_ASSIGN_OR_RAISE(options.avro.codec, CodecFromJson(object));
  SKADE_ASSIGN_OR_RAISE(auto writer, avro::ManifestWriter::Make(schema, partition_spec, options));

  SKADE_ASSIGN_OR_RAISE(json::Array entries, json::GetArray(object, "entries"));
  for (json::Element element : entries) {
    SKADE_ASSIGN_OR_RAISE(spec::ManifestEntry entry,
                          ManifestEntryFromJson(element, *writer->partition_type()));
    switch (entry.status) {
      case spec::ManifestEntryStatus::kAdded:
        if (entry.sequence_number) {
          SKADE_RETURN_NOT_OK(writer->Add(entry.data_file, *entry.sequence_number));
        } else {
          SKADE_RETURN_NOT_OK(writer->Add(entry.data_file));
        }
        break;
      case spec::ManifestEntryStatus::kExisting:
        SKADE_RETURN_NOT_OK(writer->Existing(entry));
        break;
      case spec::ManifestEntryStatus::kDeleted:
        SKADE_RETURN_NOT_OK(writer->Delete(entry));
        break;
    }
  }
  SKADE_ASSIGN_OR_RAISE(spec::ManifestFile manifest, writer->WriteTo(io, out, false));
  JsonWriter json_writer;
  WriteManifestFile(json_writer, manifest);
  return json_writer.Take();
}

// Input: {"format_version", "snapshot_id", "parent_snapshot_id"?,
// "sequence_number"?, "first_row_id"?, "codec", "manifests": [<manifest file
// JSON>]}. Prints {"manifests": [as written], "next_row_id"}.
Result<std::string> WriteManifestListCommand(io::FileIO& io, const std::string& input,
                                             const std::string& out) {
  SKADE_ASSIGN_OR_RAISE(std::string text, io.ReadFile(input));
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(json::Element root, json::Parse(parser, text));
  SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(root, "input"));
  avro::ManifestListWriterOptions options;
  SKADE_ASSIGN_OR_RAISE(options.format_version, json::GetInt32(object, "format_version"));
  SKADE_ASSIGN_OR_RAISE(options.snapshot_id, json::GetInt64(object, "snapshot_id"));
  SKADE_ASSIGN_OR_RAISE(options.parent_snapshot_id,
                        json::GetOptionalInt64(object, "parent_snapshot_id"));
  SKADE_ASSIGN_OR_RAISE(auto sequence_number, json::GetOptionalInt64(object, "sequence_number"));
  options.sequence_number = sequence_number.value_or(0);
  SKADE_ASSIGN_OR_RAISE(auto first_row_id, json::GetOptionalInt64(object, "first_row_id"));
  options.first_row_id = first_row_id.value_or(0);
  SKADE_ASSIGN_OR_RAISE(options.avro.codec, CodecFromJson(object));
  SKADE_ASSIGN_OR_RAISE(auto writer, avro::ManifestListWriter::Make(options));
  SKADE_ASSIGN_OR_RAISE(json::Array manifests, json::GetArray(object, "manifests"));
  for (json::Element element : manifests) {
    SKADE_ASSIGN_OR_RAISE(spec::ManifestFile manifest, ManifestFileFromJson(element));
    SKADE_RETURN_NOT_OK(writer->Add(manifest));
  }
  std::vector<spec::ManifestFile> written = writer->manifests();
  SKADE_RETURN_NOT_OK(writer->WriteTo(io, out, false));
  JsonWriter json_writer;
  json_writer.StartObject();
  json_writer.Key("manifests");
  json_writer.StartArray();
  for (const spec::ManifestFile& manifest : written) WriteManifestFile(json_writer, manifest);
  json_writer.EndArray();
  json_writer.Field("next_row_id", writer->next_row_id());
  json_writer.EndObject();
  return json_writer.Take();
}

Result<std::string> AvroSchemaCommand(io::FileIO& io, const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(path));
  SKADE_ASSIGN_OR_RAISE(auto reader, avro::ContainerReader::Open(bytes));
  return avro::SchemaToJson(*reader->schema());
}

int Run(int argc, char** argv) {
  CLI::App app{"Reads and writes Iceberg manifests with skade's avro module"};
  app.require_subcommand(1);
  std::string file, input, out, inherit_from;
  auto* read_manifest = app.add_subcommand("read-manifest", "Print a manifest's entries");
  read_manifest->add_option("file", file)->required();
  read_manifest->add_option("--inherit-from", inherit_from,
                            "Apply inheritance from this manifest list's entry");
  auto* read_list = app.add_subcommand("read-manifest-list", "Print a manifest list");
  read_list->add_option("file", file)->required();
  auto* write_manifest = app.add_subcommand("write-manifest", "Write a manifest");
  write_manifest->add_option("input", input)->required();
  write_manifest->add_option("out", out)->required();
  auto* write_list = app.add_subcommand("write-manifest-list", "Write a manifest list");
  write_list->add_option("input", input)->required();
  write_list->add_option("out", out)->required();
  auto* avro_schema = app.add_subcommand("avro-schema", "Print a file's Avro schema");
  avro_schema->add_option("file", file)->required();
  CLI11_PARSE(app, argc, argv);

  auto io = io::NewLocalFileIO();
  Result<std::string> output = InternalError("no command");
  if (*read_manifest) output = ReadManifestCommand(*io, file, inherit_from);
  if (*read_list) output = ReadManifestListCommand(*io, file);
  if (*write_manifest) output = WriteManifestCommand(*io, input, out);
  if (*write_list) output = WriteManifestListCommand(*io, input, out);
  if (*avro_schema) output = AvroSchemaCommand(*io, file);
  if (!output) {
    std::cerr << output.error().ToString() << "\n";
    return 1;
  }
  std::cout << *output << "\n";
  return 0;
}

}  // namespace
}  // namespace skade::avro_tool

int main(int argc, char** argv) { return skade::avro_tool::Run(argc, argv); }
