// skade_data_tool: drives the data/ module from the command line for the
// interop tests (tests/interop/test_data_interop.py).
//
//   skade_data_tool schema IN
//       The Iceberg schema skade derives from IN's Arrow schema, as JSON.
//   skade_data_tool write-parquet IN OUT [--schema-json JSON] [--partition-by COL:TRANSFORM]...
//                                        [--property KEY=VALUE]...
//       Writes IN's rows with skade; prints {"schema": …, "files": [DataFile…]}. Unpartitioned
//       output goes to OUT (rolled files to OUT-1.parquet, …); partitioned output to
//       OUT/<partition path>/part-N.parquet.
//   skade_data_tool transform IN COLUMN TRANSFORM
//       Prints TRANSFORM applied to every value of COLUMN as a JSON array.
//
// IN is an Arrow IPC file (.arrow) or a Parquet file (.parquet). Errors go to
// stderr with exit status 1.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <parquet/arrow/reader.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_literal.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/conform_batch.h"
#include "skade/data/data_writer_options.h"
#include "skade/data/fanout_data_writer.h"
#include "skade/data/partition_path.h"
#include "skade/data/transform_array.h"
#include "skade/io/file_io.h"
#include "skade/util/strings.h"
#include "tool_json.h"

namespace skade::data_tools {
namespace {

using data::FromArrowResult;
using data::FromArrowStatus;

struct Input {
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
};

Result<Input> ReadInput(const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(auto file, FromArrowResult(arrow::io::ReadableFile::Open(path), path));
  Input input;
  if (std::string_view(path).ends_with(".parquet")) {
    SKADE_ASSIGN_OR_RAISE(
        auto reader,
        FromArrowResult(parquet::arrow::OpenFile(file, arrow::default_memory_pool()), path));
    SKADE_ASSIGN_OR_RAISE(auto table, FromArrowResult(reader->ReadTable(), path));
    input.schema = table->schema();
    arrow::TableBatchReader batches(*table);
    SKADE_ASSIGN_OR_RAISE(input.batches, FromArrowResult(batches.ToRecordBatches(), path));
    return input;
  }
  SKADE_ASSIGN_OR_RAISE(auto reader,
                        FromArrowResult(arrow::ipc::RecordBatchFileReader::Open(file), path));
  input.schema = reader->schema();
  for (int i = 0; i < reader->num_record_batches(); ++i) {
    SKADE_ASSIGN_OR_RAISE(auto batch, FromArrowResult(reader->ReadRecordBatch(i), path));
    input.batches.push_back(std::move(batch));
  }
  return input;
}

Result<spec::PartitionSpecPtr> ParsePartitionSpec(const std::vector<std::string>& fields,
                                                  const spec::Schema& schema) {
  auto spec = std::make_shared<spec::PartitionSpec>();
  for (const auto& text : fields) {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) return InvalidArgument("Expected COLUMN:TRANSFORM, got ", text);
    std::string column = text.substr(0, colon);
    const spec::NestedField* source = schema.FindFieldByName(column);
    if (source == nullptr) return InvalidArgument("No column ", column);
    spec::PartitionField field;
    field.source_id = source->id;
    field.field_id =
        spec::PartitionSpec::kPartitionDataIdStart + static_cast<int32_t>(spec->fields.size());
    SKADE_ASSIGN_OR_RAISE(field.transform, spec::Transform::Parse(text.substr(colon + 1)));
    field.name = spec::DefaultPartitionFieldName(field.transform, column);
    spec->fields.push_back(std::move(field));
  }
  return spec;
}

Result<std::string> SchemaCommand(const std::string& in) {
  SKADE_ASSIGN_OR_RAISE(auto input, ReadInput(in));
  SKADE_ASSIGN_OR_RAISE(auto schema, data::FromArrowSchema(*input.schema));
  JsonWriter writer;
  WriteSchemaJson(writer, *schema);
  return writer.Take();
}

Result<std::string> WriteCommand(const std::string& in, const std::string& out,
                                 const std::string& schema_json,
                                 const std::vector<std::string>& partition_by,
                                 const std::vector<std::string>& property_args) {
  SKADE_ASSIGN_OR_RAISE(auto input, ReadInput(in));
  spec::SchemaPtr schema;
  if (schema_json.empty()) {
    SKADE_ASSIGN_OR_RAISE(schema, data::FromArrowSchema(*input.schema));
  } else {
    SKADE_ASSIGN_OR_RAISE(schema, ParseSchemaJson(schema_json));
  }
  SKADE_ASSIGN_OR_RAISE(auto spec, ParsePartitionSpec(partition_by, *schema));
  std::map<std::string, std::string> properties;
  for (const auto& arg : property_args) {
    auto equals = arg.find('=');
    if (equals == std::string::npos) return InvalidArgument("Expected KEY=VALUE, got ", arg);
    properties[arg.substr(0, equals)] = arg.substr(equals + 1);
  }
  SKADE_ASSIGN_OR_RAISE(auto options, data::DataWriterOptions::FromProperties(properties));

  int files = 0;
  data::NextLocation next_location;
  if (spec->fields.empty()) {
    next_location = [&](const std::vector<spec::Literal>&) -> Result<std::string> {
      std::string_view stem = out;
      ConsumeSuffix(&stem, ".parquet");
      return files++ == 0 ? out : StrCat(stem, "-", files - 1, ".parquet");
    };
  } else {
    next_location = [&](const std::vector<spec::Literal>& partition) -> Result<std::string> {
      SKADE_ASSIGN_OR_RAISE(auto path, data::PartitionPath(*spec, *schema, partition));
      return JoinLocation(JoinLocation(out, path), StrCat("part-", files++, ".parquet"));
    };
  }
  SKADE_ASSIGN_OR_RAISE(auto writer, data::FanoutDataWriter::Make(io::NewLocalFileIO(), schema,
                                                                  spec, options, next_location));
  for (const auto& batch : input.batches) SKADE_RETURN_NOT_OK(writer->Write(batch));
  SKADE_ASSIGN_OR_RAISE(auto data_files, writer->Close());

  JsonWriter json;
  json.StartObject();
  json.Key("schema");
  WriteSchemaJson(json, *schema);
  json.Key("files");
  json.StartArray();
  for (const auto& file : data_files) WriteDataFileJson(json, file);
  json.EndArray();
  json.EndObject();
  return json.Take();
}

Result<std::string> TransformCommand(const std::string& in, const std::string& column,
                                     const std::string& transform_text) {
  SKADE_ASSIGN_OR_RAISE(auto input, ReadInput(in));
  SKADE_ASSIGN_OR_RAISE(auto schema, data::FromArrowSchema(*input.schema));
  const spec::NestedField* field = schema->FindFieldByName(column);
  if (field == nullptr) return InvalidArgument("No column ", column);
  SKADE_ASSIGN_OR_RAISE(auto transform, spec::Transform::Parse(transform_text));
  SKADE_ASSIGN_OR_RAISE(auto result_type, transform.ResultType(field->type));
  int index = input.schema->GetFieldIndex(column);
  JsonWriter json;
  json.StartArray();
  for (const auto& batch : input.batches) {
    SKADE_ASSIGN_OR_RAISE(auto conformed, data::ConformBatch(batch, *schema));
    SKADE_ASSIGN_OR_RAISE(auto values,
                          data::ApplyTransform(transform, field->type, conformed->column(index)));
    for (int64_t row = 0; row < values->length(); ++row) {
      SKADE_ASSIGN_OR_RAISE(auto literal, data::LiteralFromArrow(*values, row, result_type));
      WriteLiteralJson(json, literal);
    }
  }
  json.EndArray();
  return json.Take();
}

int Run(int argc, char** argv) {
  CLI::App app{"skade data-plane test tool"};
  app.require_subcommand(1);

  std::string in, out, column, transform, schema_json;
  std::vector<std::string> partition_by, properties;
  auto* schema_cmd = app.add_subcommand("schema", "Print the Iceberg schema of IN");
  schema_cmd->add_option("IN", in)->required();
  auto* write_cmd = app.add_subcommand("write-parquet", "Write IN as Iceberg data files");
  write_cmd->add_option("IN", in)->required();
  write_cmd->add_option("OUT", out)->required();
  write_cmd->add_option("--schema-json", schema_json, "Iceberg schema JSON (default: from IN)");
  write_cmd->add_option("--partition-by", partition_by, "COLUMN:TRANSFORM, repeatable");
  write_cmd->add_option("--property", properties, "table property KEY=VALUE, repeatable");
  auto* transform_cmd = app.add_subcommand("transform", "Apply a partition transform");
  transform_cmd->add_option("IN", in)->required();
  transform_cmd->add_option("COLUMN", column)->required();
  transform_cmd->add_option("TRANSFORM", transform)->required();
  CLI11_PARSE(app, argc, argv);

  Result<std::string> result;
  if (*schema_cmd) {
    result = SchemaCommand(in);
  } else if (*write_cmd) {
    result = WriteCommand(in, out, schema_json, partition_by, properties);
  } else {
    result = TransformCommand(in, column, transform);
  }
  if (!result) {
    std::cerr << result.error().ToString() << "\n";
    return 1;
  }
  std::cout << *result << "\n";
  return 0;
}

}  // namespace
}  // namespace skade::data_tools

int main(int argc, char** argv) { return skade::data_tools::Run(argc, argv); }
