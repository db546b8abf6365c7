#include "skade/rest/rest_messages.h"

#include <algorithm>
#include <cstddef>
#include <variant>

#include "skade/expr/expression_json.h"
#include "skade/spec/json_serde.h"
#include "skade/spec/table_requirement.h"
#include "skade/spec/table_update.h"
#include "skade/util/json_parser.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"

namespace skade::rest {

namespace {

// Parses one request body; what it returns lives as long as it does. A
// large body is refused (503 with Retry-After) while the server parses its
// fill of large documents, not waited for: some routes run on I/O threads.
class BodyParser {
 public:
  Result<json::Object> Parse(std::string_view body, std::string_view what) {
    if (body.empty()) return InvalidArgument("Invalid ", what, ": empty request body");
    SKADE_ASSIGN_OR_RAISE(auto element, parser_.Parse(body));
    SKADE_RETURN_NOT_OK(json::CheckUniqueKeys(element));
    return json::AsObject(element, what);
  }

 private:
  JsonParser parser_{JsonParser::WhenBusy::kRefuse};
};

Result<spec::Namespace> NamespaceFromJson(json::Element element, std::string_view what) {
  SKADE_ASSIGN_OR_RAISE(auto array, json::AsArray(element, what));
  spec::Namespace ns;
  for (auto level : array) {
    SKADE_ASSIGN_OR_RAISE(auto name, json::ToString(level, what));
    ns.push_back(std::move(name));
  }
  SKADE_RETURN_NOT_OK(spec::ValidateNamespace(ns));
  return ns;
}

Result<spec::TableIdentifier> IdentifierFromJson(json::Element element, std::string_view what) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, what));
  spec::TableIdentifier identifier;
  SKADE_ASSIGN_OR_RAISE(auto ns, json::GetRequired(object, "namespace"));
  SKADE_ASSIGN_OR_RAISE(identifier.ns, NamespaceFromJson(ns, "namespace"));
  SKADE_ASSIGN_OR_RAISE(identifier.name, json::GetString(object, "name"));
  SKADE_RETURN_NOT_OK(spec::ValidateName(identifier.name, "table name"));
  return identifier;
}

Result<catalog::CommitTableRequest> CommitFromObject(json::Object object) {
  catalog::CommitTableRequest request;
  SKADE_ASSIGN_OR_RAISE(auto requirements, json::GetRequired(object, "requirements"));
  SKADE_ASSIGN_OR_RAISE(request.requirements, spec::TableRequirementsFromJson(requirements));
  SKADE_ASSIGN_OR_RAISE(auto updates, json::GetRequired(object, "updates"));
  SKADE_ASSIGN_OR_RAISE(request.updates, spec::TableUpdatesFromJson(updates));
  if (request.updates.size() > kMaxUpdatesPerCommit) {
    return InvalidArgument("A commit holds at most ", kMaxUpdatesPerCommit, " updates, not ",
                           request.updates.size());
  }
  const auto adds_structure = [](const spec::TableUpdate& update) {
    return std::holds_alternative<spec::AddSchema>(update.value()) ||
           std::holds_alternative<spec::AddPartitionSpec>(update.value()) ||
           std::holds_alternative<spec::AddSortOrder>(update.value());
  };
  const auto structures =
      std::count_if(request.updates.begin(), request.updates.end(), adds_structure);
  if (static_cast<size_t>(structures) > kMaxAddedSchemasSpecsAndOrdersPerCommit) {
    return InvalidArgument("A commit adds at most ", kMaxAddedSchemasSpecsAndOrdersPerCommit,
                           " schemas, partition specs and sort orders, not ", structures);
  }
  return request;
}

void WriteNamespaceArray(JsonWriter& writer, const spec::Namespace& ns) {
  writer.StartArray();
  for (const auto& level : ns) writer.String(level);
  writer.EndArray();
}

void WriteStringMap(JsonWriter& writer, const catalog::Properties& properties) {
  writer.StartObject();
  for (const auto& [key, value] : properties) writer.Field(key, value);
  writer.EndObject();
}

void WriteIdentifier(JsonWriter& writer, const spec::TableIdentifier& identifier) {
  writer.StartObject();
  writer.Key("namespace");
  WriteNamespaceArray(writer, identifier.ns);
  writer.Field("name", identifier.name);
  writer.EndObject();
}

// A resolve item as the request has it; the answer's items extend it.
void StartSnapshotKey(JsonWriter& writer, const catalog::SnapshotKey& key) {
  writer.StartObject();
  writer.Key("identifier");
  WriteIdentifier(writer, key.table);
  writer.Field("snapshot-id", key.snapshot_id);
}

void WriteStringArray(JsonWriter& writer, const std::vector<std::string>& values) {
  writer.StartArray();
  for (const auto& value : values) writer.String(value);
  writer.EndArray();
}

}  // namespace

Result<CreateNamespaceBody> ParseCreateNamespace(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "create namespace request"));
  CreateNamespaceBody out;
  SKADE_ASSIGN_OR_RAISE(auto ns, json::GetRequired(object, "namespace"));
  SKADE_ASSIGN_OR_RAISE(out.ns, NamespaceFromJson(ns, "namespace"));
  SKADE_ASSIGN_OR_RAISE(out.properties, json::GetStringMap(object, "properties"));
  return out;
}

Result<UpdatePropertiesBody> ParseUpdateProperties(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "update properties request"));
  UpdatePropertiesBody out;
  if (json::Find(object, "removals")) {
    SKADE_ASSIGN_OR_RAISE(out.removals, json::GetStringList(object, "removals"));
  }
  SKADE_ASSIGN_OR_RAISE(out.updates, json::GetStringMap(object, "updates"));
  return out;
}

Result<catalog::CreateTableRequest> ParseCreateTable(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "create table request"));
  catalog::CreateTableRequest request;
  SKADE_ASSIGN_OR_RAISE(request.name, json::GetString(object, "name"));
  SKADE_ASSIGN_OR_RAISE(auto schema, json::GetRequired(object, "schema"));
  SKADE_ASSIGN_OR_RAISE(request.schema, spec::SchemaFromJson(schema));
  if (auto spec = json::Find(object, "partition-spec")) {
    SKADE_ASSIGN_OR_RAISE(request.partition_spec, spec::RequestedPartitionSpecFromJson(*spec));
  }
  if (auto order = json::Find(object, "write-order")) {
    SKADE_ASSIGN_OR_RAISE(request.write_order, spec::SortOrderFromJson(*order));
  }
  SKADE_ASSIGN_OR_RAISE(auto location, json::GetOptionalString(object, "location"));
  if (location && !location->empty()) request.location = std::move(*location);
  SKADE_ASSIGN_OR_RAISE(request.properties, json::GetStringMap(object, "properties"));
  SKADE_ASSIGN_OR_RAISE(auto stage, json::GetOptionalBool(object, "stage-create"));
  request.stage_create = stage.value_or(false);
  return request;
}

Result<catalog::CommitTableRequest> ParseCommitTable(std::string_view body,
                                                     const spec::TableIdentifier& identifier) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "commit table request"));
  SKADE_ASSIGN_OR_RAISE(auto request, CommitFromObject(object));
  if (auto named = json::Find(object, "identifier")) {
    SKADE_ASSIGN_OR_RAISE(auto body_identifier, IdentifierFromJson(*named, "identifier"));
    if (!(body_identifier == identifier)) {
      return InvalidArgument("Commit identifier ", body_identifier.ToString(),
                             " does not match the table in the path: ", identifier.ToString());
    }
  }
  request.identifier = identifier;
  return request;
}

Result<std::vector<catalog::CommitTableRequest>> ParseCommitTransaction(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "commit transaction request"));
  SKADE_ASSIGN_OR_RAISE(auto changes, json::GetArray(object, "table-changes"));
  std::vector<catalog::CommitTableRequest> requests;
  for (auto change : changes) {
    SKADE_ASSIGN_OR_RAISE(auto change_object, json::AsObject(change, "table-changes"));
    SKADE_ASSIGN_OR_RAISE(auto request, CommitFromObject(change_object));
    SKADE_ASSIGN_OR_RAISE(auto named, json::GetRequired(change_object, "identifier"));
    SKADE_ASSIGN_OR_RAISE(request.identifier, IdentifierFromJson(named, "identifier"));
    requests.push_back(std::move(request));
  }
  if (requests.empty()) return InvalidArgument("Invalid transaction: no table changes");
  return requests;
}

Result<RenameBody> ParseRename(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "rename table request"));
  RenameBody out;
  SKADE_ASSIGN_OR_RAISE(auto source, json::GetRequired(object, "source"));
  SKADE_ASSIGN_OR_RAISE(out.source, IdentifierFromJson(source, "source"));
  SKADE_ASSIGN_OR_RAISE(auto destination, json::GetRequired(object, "destination"));
  SKADE_ASSIGN_OR_RAISE(out.destination, IdentifierFromJson(destination, "destination"));
  return out;
}

Result<RegisterBody> ParseRegister(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "register table request"));
  RegisterBody out;
  SKADE_ASSIGN_OR_RAISE(out.name, json::GetString(object, "name"));
  SKADE_ASSIGN_OR_RAISE(out.metadata_location, json::GetString(object, "metadata-location"));
  SKADE_ASSIGN_OR_RAISE(auto overwrite, json::GetOptionalBool(object, "overwrite"));
  out.overwrite = overwrite.value_or(false);
  return out;
}

Result<PlanTableScanBody> ParsePlanTableScan(std::string_view body) {
  PlanTableScanBody out;
  if (body.empty()) return out;
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "plan table scan request"));
  auto snapshot_id = [&](std::string_view key) -> Result<std::optional<int64_t>> {
    SKADE_ASSIGN_OR_RAISE(auto id, json::GetOptionalInt64(object, key));
    if (id && *id < 0) return InvalidArgument("Invalid ", key, ": ", *id);
    return id;
  };
  auto names = [&](std::string_view key) -> Result<std::optional<std::vector<std::string>>> {
    if (!json::Find(object, key)) return std::nullopt;
    SKADE_ASSIGN_OR_RAISE(auto array, json::GetArray(object, key));
    if (array.size() > kMaxScanFieldNames) {
      return InvalidArgument("Invalid ", key, ": ", array.size(), " names, more than the ",
                             kMaxScanFieldNames, " a scan may name");
    }
    return json::GetStringList(object, key);
  };
  SKADE_ASSIGN_OR_RAISE(out.options.snapshot_id, snapshot_id("snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(auto start_snapshot_id, snapshot_id("start-snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(auto end_snapshot_id, snapshot_id("end-snapshot-id"));
  if (start_snapshot_id && !end_snapshot_id) {
    return InvalidArgument("Invalid scan: end-snapshot-id is required with start-snapshot-id");
  }
  if (end_snapshot_id && !start_snapshot_id) {
    return InvalidArgument("Invalid scan: end-snapshot-id needs start-snapshot-id");
  }
  if (start_snapshot_id && out.options.snapshot_id) {
    return InvalidArgument("Invalid scan: snapshot-id and start-snapshot-id exclude each other");
  }
  if (start_snapshot_id) {
    out.options.from_snapshot_id = start_snapshot_id;
    out.options.snapshot_id = end_snapshot_id;
  }
  SKADE_ASSIGN_OR_RAISE(auto select, names("select"));
  if (select) out.options.select = std::move(*select);
  SKADE_ASSIGN_OR_RAISE(out.stats_fields, names("stats-fields"));
  if (auto filter = json::Find(object, "filter")) {
    SKADE_ASSIGN_OR_RAISE(out.options.filter, expr::ExpressionFromJson(*filter));
  }
  SKADE_ASSIGN_OR_RAISE(auto case_sensitive, json::GetOptionalBool(object, "case-sensitive"));
  out.options.case_sensitive = case_sensitive.value_or(true);
  SKADE_ASSIGN_OR_RAISE(auto use_snapshot_schema,
                        json::GetOptionalBool(object, "use-snapshot-schema"));
  // The spec's default is false, so an absent flag is the table's schema.
  out.options.use_snapshot_schema = use_snapshot_schema.value_or(false);
  SKADE_ASSIGN_OR_RAISE(out.min_rows_requested,
                        json::GetOptionalInt64(object, "min-rows-requested"));
  return out;
}

Result<std::string> ParseFetchScanTasks(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "fetch scan tasks request"));
  return json::GetString(object, "plan-task");
}

Result<std::vector<catalog::SnapshotKey>> ParseResolveSnapshots(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "resolve request"));
  SKADE_ASSIGN_OR_RAISE(auto items, json::GetArray(object, "snapshots"));
  std::vector<catalog::SnapshotKey> keys;
  keys.reserve(items.size());
  for (auto item : items) {
    SKADE_ASSIGN_OR_RAISE(auto item_object, json::AsObject(item, "snapshots"));
    catalog::SnapshotKey key;
    SKADE_ASSIGN_OR_RAISE(auto named, json::GetRequired(item_object, "identifier"));
    SKADE_ASSIGN_OR_RAISE(key.table, IdentifierFromJson(named, "identifier"));
    SKADE_ASSIGN_OR_RAISE(key.snapshot_id, json::GetInt64(item_object, "snapshot-id"));
    keys.push_back(std::move(key));
  }
  return keys;
}

Status ValidateMetricsReport(std::string_view body) {
  BodyParser parser;
  SKADE_ASSIGN_OR_RAISE(auto object, parser.Parse(body, "metrics report"));
  SKADE_ASSIGN_OR_RAISE(auto type, json::GetString(object, "report-type"));
  (void)type;
  return OkStatus();
}

std::string WriteNamespace(const spec::Namespace& ns, const catalog::Properties& properties) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("namespace");
  WriteNamespaceArray(writer, ns);
  writer.Key("properties");
  WriteStringMap(writer, properties);
  writer.EndObject();
  return writer.Take();
}

std::string WriteNamespaceList(const catalog::Page<spec::Namespace>& page) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("namespaces");
  writer.StartArray();
  for (const auto& ns : page.items) WriteNamespaceArray(writer, ns);
  writer.EndArray();
  if (!page.next_page_token.empty()) writer.Field("next-page-token", page.next_page_token);
  writer.EndObject();
  return writer.Take();
}

std::string WriteTableList(const catalog::Page<spec::TableIdentifier>& page) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("identifiers");
  writer.StartArray();
  for (const auto& identifier : page.items) WriteIdentifier(writer, identifier);
  writer.EndArray();
  if (!page.next_page_token.empty()) writer.Field("next-page-token", page.next_page_token);
  writer.EndObject();
  return writer.Take();
}

std::string WriteUpdateProperties(const catalog::UpdateNamespacePropertiesResult& result) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("updated");
  WriteStringArray(writer, result.updated);
  writer.Key("removed");
  WriteStringArray(writer, result.removed);
  writer.Key("missing");
  WriteStringArray(writer, result.missing);
  writer.EndObject();
  return writer.Take();
}

namespace {

void WriteStorageCredentials(JsonWriter& writer,
                             const std::vector<StorageCredential>& credentials) {
  writer.StartArray();
  for (const auto& credential : credentials) {
    writer.StartObject();
    writer.Field("prefix", credential.prefix);
    writer.Key("config");
    writer.StartObject();
    for (const auto& [key, value] : credential.config) writer.Field(key, value);
    writer.EndObject();
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace

std::string WriteLoadCredentials(const std::vector<StorageCredential>& credentials) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("storage-credentials");
  WriteStorageCredentials(writer, credentials);
  writer.EndObject();
  return writer.Take();
}

std::string WriteCompletedPlan(std::string_view plan_id, const scan::ScanPlan& plan,
                               const StatsFields& stats_fields,
                               const std::vector<StorageCredential>& credentials) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("status", "completed");
  writer.Field("plan-id", plan_id);
  WriteScanTasks(plan, plan.tasks, stats_fields, writer);
  if (!credentials.empty()) {
    writer.Key("storage-credentials");
    WriteStorageCredentials(writer, credentials);
  }
  writer.EndObject();
  return writer.Take();
}

std::string WritePlanTasks(std::string_view plan_id, const std::vector<std::string>& plan_tasks,
                           const std::vector<StorageCredential>& credentials) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("status", "completed");
  if (!plan_id.empty()) writer.Field("plan-id", plan_id);
  writer.Key("plan-tasks");
  WriteStringArray(writer, plan_tasks);
  if (!credentials.empty()) {
    writer.Key("storage-credentials");
    WriteStorageCredentials(writer, credentials);
  }
  writer.EndObject();
  return writer.Take();
}

std::string WriteScanTasksPage(const scan::ScanPlan& plan,
                               std::span<const scan::FileScanTask> tasks,
                               const StatsFields& stats_fields) {
  JsonWriter writer;
  writer.StartObject();
  WriteScanTasks(plan, tasks, stats_fields, writer);
  writer.EndObject();
  return writer.Take();
}

std::string WriteLoadTable(const std::string& metadata_location, std::string_view metadata_json,
                           const TableConfig* config) {
  std::string out;
  out.reserve(metadata_json.size() + metadata_location.size() + 64);
  out.append("{");
  if (!metadata_location.empty()) {
    out.append("\"metadata-location\":");
    JsonWriter::AppendQuoted(&out, metadata_location);
    out.append(",");
  }
  out.append("\"metadata\":");
  out.append(metadata_json);
  if (config != nullptr) {
    JsonWriter writer;
    writer.StartObject();
    for (const auto& [key, value] : config->config) writer.Field(key, value);
    writer.EndObject();
    out.append(",\"config\":");
    out.append(writer.Take());
    if (!config->storage_credentials.empty()) {
      JsonWriter credentials;
      WriteStorageCredentials(credentials, config->storage_credentials);
      out.append(",\"storage-credentials\":");
      out.append(credentials.Take());
    }
  }
  out.append("}");
  return out;
}

std::string WriteResolveSnapshots(std::span<const catalog::SnapshotKey> resolved,
                                  const std::vector<std::optional<std::string>>& locations,
                                  std::span<const catalog::SnapshotKey> unprocessed) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("snapshots");
  writer.StartArray();
  for (size_t i = 0; i < resolved.size(); ++i) {
    StartSnapshotKey(writer, resolved[i]);
    if (locations[i]) {
      writer.Field("status", "found");
      writer.Field("metadata-location", *locations[i]);
    } else {
      writer.Field("status", "not-found");
    }
    writer.EndObject();
  }
  writer.EndArray();
  writer.Key("unprocessed");
  writer.StartArray();
  for (const auto& key : unprocessed) {
    StartSnapshotKey(writer, key);
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

std::string_view ChangeOperationType(store::CommitKind kind) {
  switch (kind) {
    case store::CommitKind::kCreate:
      return "create-table";
    case store::CommitKind::kRegister:
      return "register-table";
    case store::CommitKind::kUpdate:
      break;
  }
  return "update-table";
}

namespace {

void WriteChangeEventTo(JsonWriter& writer, uint64_t commit_seq,
                        const store::CommitLogRecord& commit) {
  writer.StartObject();
  writer.Field("event-id", std::to_string(commit_seq));
  writer.Field("sequence-number", static_cast<int64_t>(commit_seq));
  writer.Field("position", catalog::ChangePosition::After(commit_seq, commit).ToString());
  // Requests that shared one commit: the first names the event, all are listed.
  std::vector<std::string_view> requesters;
  std::vector<std::string_view> request_ids;
  for (const auto& origin : commit.origins) {
    if (!origin.requester.empty()) requesters.push_back(origin.requester);
    if (!origin.request_id.empty()) request_ids.push_back(origin.request_id);
  }
  if (!request_ids.empty()) writer.Field("request-id", request_ids.front());
  writer.Field("event-count", int64_t{1});
  writer.Field("timestamp-ms", commit.committed_at_ms);
  if (!requesters.empty()) {
    writer.Key("actor");
    writer.StartObject();
    writer.Field("principal", requesters.front());
    if (requesters.size() > 1) {
      writer.Key("principals");
      writer.StartArray();
      for (auto requester : requesters) writer.String(requester);
      writer.EndArray();
    }
    writer.EndObject();
  }
  if (request_ids.size() > 1) {
    writer.Key("request-ids");
    writer.StartArray();
    for (auto id : request_ids) writer.String(id);
    writer.EndArray();
  }
  writer.Key("operation");
  writer.StartObject();
  writer.Field("operation-type", ChangeOperationType(commit.kind));
  // Entries from before the change feed do not name their table.
  if (!commit.identifier.name.empty()) {
    writer.Key("identifier");
    WriteIdentifier(writer, commit.identifier);
  }
  writer.Field("table-id", static_cast<int64_t>(commit.table_id));
  writer.Field("metadata-location", commit.metadata_location);
  writer.Key("snapshots");
  writer.StartArray();
  for (size_t i = 0; i < commit.added_snapshot_ids.size(); ++i) {
    writer.StartObject();
    writer.Field("snapshot-id", commit.added_snapshot_ids[i]);
    if (i < commit.snapshot_operations.size() && !commit.snapshot_operations[i].empty()) {
      writer.Field("operation", commit.snapshot_operations[i]);
    }
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  writer.EndObject();
}

}  // namespace

std::string WriteChangeEvent(uint64_t commit_seq, const store::CommitLogRecord& commit) {
  JsonWriter writer;
  WriteChangeEventTo(writer, commit_seq, commit);
  return writer.Take();
}

std::string WriteChangePage(const catalog::ChangePage& page, const catalog::ChangePosition& since,
                            bool full) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("events");
  writer.StartArray();
  for (const auto& [seq, commit] : page.commits) WriteChangeEventTo(writer, seq, commit);
  writer.EndArray();
  const catalog::ChangePosition next =
      page.commits.empty()
          ? since
          : catalog::ChangePosition::After(page.commits.back().first, page.commits.back().second);
  writer.Field("next-since", static_cast<int64_t>(next.seq));
  writer.Field("next-position", next.ToString());
  if (full) writer.Field("next-page-token", next.ToString());
  writer.Field("last-sequence-number", static_cast<int64_t>(page.last_seq));
  writer.Field("pruned-through", static_cast<int64_t>(page.pruned_through));
  writer.Field("highest-processed-timestamp-ms",
               page.commits.empty() ? int64_t{0} : page.commits.back().second.committed_at_ms);
  writer.EndObject();
  return writer.Take();
}

std::string WriteTableHistory(const catalog::Page<catalog::TableCommit>& page) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("commits");
  writer.StartArray();
  for (const auto& commit : page.items) {
    writer.StartObject();
    writer.Field("commit-seq", static_cast<int64_t>(commit.commit_seq));
    writer.Field("committed-at-ms", commit.committed_at_ms);
    writer.Field("metadata-location", commit.metadata_location);
    writer.Key("added-snapshot-ids");
    writer.StartArray();
    for (int64_t id : commit.added_snapshot_ids) writer.Int(id);
    writer.EndArray();
    writer.EndObject();
  }
  writer.EndArray();
  if (!page.next_page_token.empty()) writer.Field("next-page-token", page.next_page_token);
  writer.EndObject();
  return writer.Take();
}

}  // namespace skade::rest
