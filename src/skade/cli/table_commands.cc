#include <iostream>
#include <map>

#include "skade/cli/commands.h"
#include "skade/cli/partition_expression.h"
#include "skade/spec/json_serde.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::cli {

namespace {

struct TableArgs {
  std::string table;
  std::string other;
  std::string schema_file;
  std::string location;
  std::string request_file = "-";
  std::string point;  // a snapshot id or a timestamp
  std::vector<std::string> partition_by;
  std::vector<std::string> pairs;
  std::vector<std::string> keys;
  int format_version = 0;
  bool json = false;
  bool purge = false;
  bool overwrite = false;
};

// TableHistory pages of this many commits, so a long history is never read
// in one store call.
constexpr size_t kHistoryPageSize = 1000;

void PrintFields(const std::vector<spec::NestedField>& fields, int indent) {
  for (const auto& field : fields) {
    std::cout << std::string(indent, ' ') << field.id << ": " << field.name << " "
              << (field.required ? "required " : "optional ") << field.type->ToString();
    if (field.doc) std::cout << "  -- " << *field.doc;
    std::cout << "\n";
    if (field.type->is_nested()) PrintFields(field.type->fields(), indent + 4);
  }
}

void Describe(const catalog::LoadTableResult& table, const spec::TableIdentifier& identifier) {
  const auto& m = *table.metadata;
  std::cout << "table            " << spec::QuotedIdentifier(identifier) << "\n"
            << "uuid             " << m.table_uuid << "\n"
            << "format-version   " << m.format_version << "\n"
            << "location         " << m.location << "\n"
            << "metadata         " << table.metadata_location << "\n"
            << "last-updated     " << FormatTimestampMillis(m.last_updated_ms) << "\n";
  if (auto snapshot = m.CurrentSnapshot()) {
    std::cout << "current-snapshot " << snapshot->snapshot_id << " (" << snapshot->operation()
              << ", " << FormatTimestampMillis(snapshot->timestamp_ms) << ")\n";
  } else {
    std::cout << "current-snapshot none\n";
  }
  std::cout << "snapshots        " << m.snapshots.size() << "\n";
  if (m.Schema()) {
    std::cout << "schema " << m.current_schema_id << ":\n";
    PrintFields(m.Schema()->fields(), 2);
  }
  if (auto spec = m.Spec(); spec && !spec->fields.empty()) {
    std::cout << "partition spec " << spec->spec_id << ":\n";
    for (const auto& field : spec->fields) {
      std::cout << "  " << field.field_id << ": " << field.name << " = "
                << field.transform.ToString() << "(" << m.Schema()->FindColumnName(field.source_id)
                << ")\n";
    }
  } else {
    std::cout << "partition spec   unpartitioned\n";
  }
  if (auto order = m.SortOrder(); order && !order->IsUnsorted()) {
    std::cout << "sort order " << order->order_id << ":\n";
    for (const auto& field : order->fields) {
      std::cout << "  " << field.transform.ToString() << "("
                << m.Schema()->FindColumnName(field.source_id) << ") "
                << (field.direction == spec::SortDirection::kAsc ? "asc" : "desc") << " "
                << (field.null_order == spec::NullOrder::kNullsFirst ? "nulls-first" : "nulls-last")
                << "\n";
    }
  }
  if (!m.properties.empty()) {
    std::cout << "properties:\n";
    for (const auto& [key, value] : m.properties)
      std::cout << "  " << key << " = " << value << "\n";
  }
}

void History(const spec::TableMetadata& m) {
  std::cout << "snapshots:\n";
  if (m.snapshot_log.empty()) std::cout << "  (none)\n";
  for (const auto& entry : m.snapshot_log) {
    auto snapshot = m.SnapshotById(entry.snapshot_id);
    std::cout << "  " << FormatTimestampMillis(entry.timestamp_ms) << "  " << entry.snapshot_id;
    if (snapshot) {
      std::cout << "  parent="
                << (snapshot->parent_snapshot_id ? std::to_string(*snapshot->parent_snapshot_id)
                                                 : std::string("none"))
                << "  " << snapshot->operation();
      for (const char* key : {"added-records", "added-data-files", "total-records"}) {
        auto it = snapshot->summary.find(key);
        if (it != snapshot->summary.end()) std::cout << "  " << key << "=" << it->second;
      }
    } else {
      std::cout << "  (expired)";
    }
    std::cout << "\n";
  }
  std::cout << "metadata versions:\n";
  for (const auto entry : m.metadata_log) {
    std::cout << "  " << FormatTimestampMillis(entry.timestamp_ms) << "  " << entry.metadata_file
              << "\n";
  }
}

// The commit log's view of a table: every commit, including those whose
// snapshots `current` (the table's current metadata) has expired.
Status PrintCommits(catalog::Catalog& catalog, const spec::TableIdentifier& identifier,
                    const spec::TableMetadata& current) {
  std::cout << "commits:\n";
  uint64_t after = 0;
  bool any = false;
  while (true) {
    SKADE_ASSIGN_OR_RAISE(auto commits, catalog.TableHistory(identifier, after, kHistoryPageSize));
    for (const auto& commit : commits) {
      any = true;
      std::cout << "  " << commit.commit_seq << "  "
                << FormatTimestampMillis(commit.committed_at_ms) << "  snapshots ";
      if (commit.added_snapshot_ids.empty()) std::cout << "-";
      for (size_t i = 0; i < commit.added_snapshot_ids.size(); ++i) {
        const int64_t id = commit.added_snapshot_ids[i];
        std::cout << (i > 0 ? "," : "") << id << (current.SnapshotById(id) ? "" : " (expired)");
      }
      std::cout << "  " << commit.metadata_location << "\n";
    }
    if (commits.size() < kHistoryPageSize) break;
    after = commits.back().commit_seq;
  }
  if (!any) std::cout << "  (none)\n";
  return OkStatus();
}

// What `table at` and `table as-of` print: the metadata file, and the
// snapshot it shows (`snapshot`, or none) in brief.
void DescribeAt(const catalog::LoadTableResult& table, const spec::SnapshotPtr& snapshot) {
  const auto& m = *table.metadata;
  std::cout << "metadata         " << table.metadata_location << "\n";
  if (snapshot) {
    std::cout << "snapshot         " << snapshot->snapshot_id << " (" << snapshot->operation()
              << ", " << FormatTimestampMillis(snapshot->timestamp_ms) << ")\n";
    std::cout << "totals          ";
    bool any = false;
    for (const auto& [key, value] : snapshot->summary) {
      if (!key.starts_with("total-")) continue;
      std::cout << " " << key << "=" << value;
      any = true;
    }
    std::cout << (any ? "" : " none") << "\n";
  } else {
    std::cout << "snapshot         none\n";
  }
  std::cout << "schema-id        " << m.current_schema_id << "\n"
            << "snapshots        " << m.snapshots.size() << "\n";
}

void PrintMetadataJson(const catalog::LoadTableResult& table) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("metadata-location", table.metadata_location);
  writer.Key("metadata");
  writer.Raw(*table.metadata_json);
  writer.EndObject();
  std::cout << writer.str() << "\n";
}

Status CommitProperties(const CliContext& context, const TableArgs& args, bool remove) {
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  std::map<std::string, std::string> updates;
  if (!remove) {
    SKADE_ASSIGN_OR_RAISE(updates, ParseKeyValues(args.pairs));
  }
  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  // What the table had, to say which keys change nothing. The commit still
  // carries every key, so one set meanwhile is removed (or overwritten) too.
  SKADE_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(identifier));
  const auto& properties = base.metadata->properties;
  catalog::CommitTableRequest request{identifier, {}, {}};
  if (remove) {
    for (const std::string& key : args.keys) {
      if (!properties.contains(key)) std::cout << "not set: " << key << "\n";
    }
    request.updates.push_back(spec::RemoveProperties{args.keys});
  } else {
    for (const auto& [key, value] : updates) {
      auto it = properties.find(key);
      if (it != properties.end() && it->second == value)
        std::cout << "already set: " << key << "\n";
    }
    request.updates.push_back(spec::SetProperties{std::move(updates)});
  }
  SKADE_ASSIGN_OR_RAISE(auto result, catalog->CommitTable(request));
  // A commit that changes nothing writes no metadata file.
  std::cout << (result.metadata_location == base.metadata_location ? "unchanged " : "committed ")
            << result.metadata_location << "\n";
  return OkStatus();
}

}  // namespace

void AddTableCommands(CLI::App& app, const CliContext& context) {
  auto* group = app.add_subcommand("table", "Manage tables");
  group->require_subcommand(1);
  auto args = std::make_shared<TableArgs>();

  auto* create = group->add_subcommand("create", "Create a table from an Iceberg schema JSON file");
  create->add_option("table", args->table, "NS.TABLE")->required();
  create->add_option("--schema", args->schema_file, "Schema file (Iceberg JSON), or - for stdin")
      ->required();
  create->add_option("--partition-by", args->partition_by,
                     "Partition expression: col, day(ts), bucket(16, id), truncate(4, name), …");
  create->add_option("--format-version", args->format_version, "Iceberg format version (1-3)");
  create->add_option("--location", args->location, "Table location (default under the warehouse)");
  create->add_option("--property,-p", args->pairs, "Table property key=value (repeatable)");
  create->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(std::string schema_json, ReadInput(args->schema_file));
      SKADE_ASSIGN_OR_RAISE(auto schema, spec::SchemaFromJsonString(schema_json));
      catalog::CreateTableRequest request;
      request.name = identifier.name;
      request.schema = schema;
      SKADE_ASSIGN_OR_RAISE(auto spec, ParsePartitionBy(args->partition_by, *schema));
      request.partition_spec = std::make_shared<const spec::PartitionSpec>(std::move(spec));
      SKADE_ASSIGN_OR_RAISE(request.properties, ParseKeyValues(args->pairs));
      if (args->format_version != 0) {
        request.properties["format-version"] = std::to_string(args->format_version);
      }
      if (!args->location.empty()) request.location = args->location;
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto result, catalog->CreateTable(identifier.ns, request));
      std::cout << "created table " << spec::QuotedIdentifier(identifier) << " at "
                << result.metadata->location << "\n";
      return OkStatus();
    }));
  });

  auto* list = group->add_subcommand("list", "List the tables of a namespace");
  list->add_option("namespace", args->other)->required();
  list->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto ns, spec::ParseNamespace(args->other));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto page, catalog->ListTables(ns));
      for (const auto& identifier : page.items)
        std::cout << spec::QuotedIdentifier(identifier) << "\n";
      return OkStatus();
    }));
  });

  auto* describe = group->add_subcommand("describe", "Show a table's schema, spec and state");
  describe->add_option("table", args->table, "NS.TABLE")->required();
  describe->add_flag("--json", args->json, "Print metadata-location and the metadata as JSON");
  describe->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto table, catalog->LoadTable(identifier));
      if (args->json) {
        PrintMetadataJson(table);
      } else {
        Describe(table, identifier);
      }
      return OkStatus();
    }));
  });

  auto* drop = group->add_subcommand("drop", "Drop a table");
  drop->add_option("table", args->table, "NS.TABLE")->required();
  drop->add_flag("--purge", args->purge, "Also delete the table's data and metadata files");
  drop->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_RETURN_NOT_OK(catalog->DropTable(identifier, args->purge));
      std::cout << (args->purge ? "dropped and purged " : "dropped ")
                << spec::QuotedIdentifier(identifier) << "\n";
      return OkStatus();
    }));
  });

  auto* rename = group->add_subcommand("rename", "Rename a table (also across namespaces)");
  rename->add_option("from", args->table, "NS.TABLE")->required();
  rename->add_option("to", args->other, "NS.TABLE")->required();
  rename->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto from, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(auto to, spec::ParseTableIdentifier(args->other));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_RETURN_NOT_OK(catalog->RenameTable(from, to));
      std::cout << "renamed " << spec::QuotedIdentifier(from) << " to "
                << spec::QuotedIdentifier(to) << "\n";
      return OkStatus();
    }));
  });

  auto* history = group->add_subcommand(
      "history", "Show snapshots, metadata versions and every commit (with expired snapshots)");
  history->add_option("table", args->table, "NS.TABLE")->required();
  history->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto table, catalog->LoadTable(identifier));
      History(*table.metadata);
      return PrintCommits(*catalog, identifier, *table.metadata);
    }));
  });

  auto* at = group->add_subcommand("at", "Show the table as its commit of a snapshot left it");
  at->add_option("table", args->table, "NS.TABLE")->required();
  at->add_option("snapshot", args->point, "Snapshot id (also one expired since)")->required();
  at->add_flag("--json", args->json, "Print metadata-location and the metadata as JSON");
  at->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      const auto snapshot_id = ParseInt64(args->point);
      if (!snapshot_id) {
        return InvalidArgument("Invalid snapshot id '", args->point, "': expected an integer");
      }
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto table, catalog->LoadTableAt(identifier, *snapshot_id));
      if (args->json) {
        PrintMetadataJson(table);
      } else {
        DescribeAt(table, table.metadata->SnapshotById(*snapshot_id));
      }
      return OkStatus();
    }));
  });

  auto* as_of = group->add_subcommand("as-of", "Show the table as it was at a time");
  as_of->add_option("table", args->table, "NS.TABLE")->required();
  as_of
      ->add_option("timestamp", args->point,
                   "Unix milliseconds or ISO-8601 (2026-11-01T12:00:00Z, '2026-11-01 12:00:00', "
                   "2026-11-01; UTC unless an offset is given)")
      ->required();
  as_of->add_flag("--json", args->json, "Print metadata-location and the metadata as JSON");
  as_of->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(int64_t timestamp_ms, ParseTimestampMillis(args->point));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto table, catalog->LoadTableAsOf(identifier, timestamp_ms));
      if (args->json) {
        PrintMetadataJson(table);
      } else {
        DescribeAt(table, table.metadata->CurrentSnapshot());
      }
      return OkStatus();
    }));
  });

  auto* reg = group->add_subcommand("register", "Register an existing metadata file as a table");
  reg->add_option("table", args->table, "NS.TABLE")->required();
  reg->add_option("metadata", args->other, "Metadata file location")->required();
  reg->add_flag("--overwrite", args->overwrite, "Replace the pointer of an existing table");
  reg->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_RETURN_NOT_OK(catalog->RegisterTable(identifier, args->other, args->overwrite, {}));
      std::cout << "registered " << spec::QuotedIdentifier(identifier) << " at " << args->other
                << "\n";
      return OkStatus();
    }));
  });

  auto* commit = group->add_subcommand(
      "commit", "Commit {\"requirements\": [...], \"updates\": [...]} (REST CommitTableRequest)");
  commit->add_option("table", args->table, "NS.TABLE")->required();
  commit->add_option("--file", args->request_file, "Request JSON file (default: stdin)");
  commit->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args->table));
      SKADE_ASSIGN_OR_RAISE(std::string text, ReadInput(args->request_file));
      simdjson::dom::parser parser;
      SKADE_ASSIGN_OR_RAISE(auto element, json::Parse(parser, text));
      SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "commit request"));
      catalog::CommitTableRequest request{identifier, {}, {}};
      if (auto requirements = json::Find(object, "requirements")) {
        SKADE_ASSIGN_OR_RAISE(request.requirements, spec::TableRequirementsFromJson(*requirements));
      }
      if (auto updates = json::Find(object, "updates")) {
        SKADE_ASSIGN_OR_RAISE(request.updates, spec::TableUpdatesFromJson(*updates));
      }
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto result, catalog->CommitTable(request));
      std::cout << "committed " << result.metadata_location << "\n";
      return OkStatus();
    }));
  });

  // A key that changes nothing is reported and is not an error: either way
  // the table ends up as asked.
  auto* set = group->add_subcommand("set", "Set table properties (one commit)");
  set->footer(
      "A key that already has its value is reported (\"already set: KEY\"); when no key "
      "changes, nothing is committed (\"unchanged LOCATION\") and the exit code is 0.");
  set->add_option("table", args->table, "NS.TABLE")->required();
  set->add_option("properties", args->pairs, "key=value ...")->required();
  set->callback([&context, args] {
    throw CLI::RuntimeError(Run([&] { return CommitProperties(context, *args, false); }));
  });

  auto* unset = group->add_subcommand("unset", "Remove table properties (one commit)");
  unset->footer(
      "A key the table does not have is reported (\"not set: KEY\"); when none is set, nothing "
      "is committed (\"unchanged LOCATION\") and the exit code is 0, as for `table set` of "
      "values the table already has.");
  unset->add_option("table", args->table, "NS.TABLE")->required();
  unset->add_option("keys", args->keys, "key ...")->required();
  unset->callback([&context, args] {
    throw CLI::RuntimeError(Run([&] { return CommitProperties(context, *args, true); }));
  });
}

}  // namespace skade::cli
