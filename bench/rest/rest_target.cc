#include "rest/rest_target.h"

#include <algorithm>
#include <charconv>

#include "common/bench_schema.h"
#include "rest/http_connection.h"
#include "rest/rest_catalog.h"
#include "skade/spec/json_serde.h"
#include "skade/spec/table_locations.h"
#include "skade/table/commit_retry_internal.h"
#include "skade/table/fast_append.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/uuid.h"

namespace skade::bench {

namespace {

// The one data file an append adds: an ADDED entry for a 1-row Parquet file
// in the table's data directory. The file itself is never written: no
// catalog under test reads data files.
spec::DataFile BenchDataFile(const spec::TableMetadata& metadata) {
  spec::DataFile file;
  file.file_path = spec::DataFileLocation(metadata, "", StrCat(NewUuid(), ".parquet"));
  file.record_count = 1;
  file.file_size_in_bytes = 1024;
  file.spec_id = metadata.default_spec_id;
  return file;
}

class RestSession : public CatalogSession {
 public:
  RestSession(std::shared_ptr<RestCatalog> catalog, std::shared_ptr<TableFileIOs> ios,
              std::string base_path, catalog::Properties table_properties)
      : catalog_(std::move(catalog)),
        ios_(std::move(ios)),
        base_(std::move(base_path)),
        table_properties_(std::move(table_properties)) {}

  Status CreateNamespace(const spec::Namespace& ns) override {
    return Expect(
        "create namespace",
        catalog_->Send("POST", StrCat(base_, "namespaces"), CreateNamespaceRequestBody(ns)), 200);
  }
  Status CreateTable(const spec::TableIdentifier& identifier) override {
    return Expect("create table",
                  catalog_->Send("POST", TablesPath(base_, identifier.ns),
                                 CreateTableRequestBody(identifier.name, table_properties_)),
                  200);
  }
  Status LoadTable(const spec::TableIdentifier& identifier) override {
    return Expect("load table", catalog_->Send("GET", TablePath(base_, identifier)), 200);
  }
  Result<bool> TableExists(const spec::TableIdentifier& identifier) override {
    SKADE_ASSIGN_OR_RAISE(auto result, catalog_->Send("HEAD", TablePath(base_, identifier)));
    if (result.status == 204 || result.status == 200) return true;
    if (result.status == 404) return false;
    return HttpError("table exists", result);
  }
  Status ListTables(const spec::Namespace& ns) override {
    return Expect("list tables", catalog_->Send("GET", TablesPath(base_, ns)), 200);
  }
  Status ListNamespaces() override {
    return Expect("list namespaces", catalog_->Send("GET", StrCat(base_, "namespaces")), 200);
  }
  // A writer's append: table::FastAppend does the work (RestTarget::append_notes says what).
  Status Append(const spec::TableIdentifier& identifier, AppendStats* stats) override {
    const uint64_t conflicts_before = catalog_->conflicts();
    SKADE_ASSIGN_OR_RAISE(table::Table table, LoadForAppend(identifier));
    table::FastAppend append(table);
    append.AppendFile(BenchDataFile(table.metadata()));
    Result<table::Table> committed = append.Commit();
    const uint64_t conflicts = catalog_->conflicts() - conflicts_before;
    // The commit loop gives up with the last attempt's 409.
    const bool gave_up = !committed && committed.error().kind == ErrorKind::kCommitFailed;
    stats->conflicts += conflicts;
    stats->retries += gave_up ? conflicts - std::min<uint64_t>(conflicts, 1) : conflicts;
    if (gave_up) {
      ++stats->failures;
      return OkStatus();
    }
    return committed.map([](auto&&) {});
  }
  // Append's client side, as its commit loop stages it: the files and the
  // request body, not sent (the files stay, unreferenced).
  Status StageAppend(const spec::TableIdentifier& identifier) override {
    SKADE_ASSIGN_OR_RAISE(table::Table table, LoadForAppend(identifier));
    table::FastAppend append(table);
    append.AppendFile(BenchDataFile(table.metadata()));
    SKADE_ASSIGN_OR_RAISE(auto request, table::StageUpdates(table, {&append}));
    (void)CommitRequestBody(request);  // what Append would send
    return OkStatus();
  }

 private:
  // The table as a writer loads it, with the FileIO of its location's scheme.
  Result<table::Table> LoadForAppend(const spec::TableIdentifier& identifier) {
    SKADE_ASSIGN_OR_RAISE(auto loaded, catalog_->LoadTable(identifier));
    SKADE_ASSIGN_OR_RAISE(auto io, ios_->For(loaded.metadata->location));
    // Not fsynced, as Iceberg Java's and PyIceberg's local FileIO write (an
    // object store's completed PUT needs no sync).
    return table::Table(identifier, std::move(loaded), catalog_, std::move(io),
                        /*durable_files=*/false);
  }

  std::shared_ptr<RestCatalog> catalog_;
  std::shared_ptr<TableFileIOs> ios_;
  std::string base_;
  catalog::Properties table_properties_;
};

}  // namespace

Result<std::shared_ptr<io::FileIO>> TableFileIOs::For(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(io::Location parsed, io::Location::ParseUserInput(location));
  std::lock_guard lock(mutex_);
  auto& io = by_scheme_[parsed.scheme];
  if (io == nullptr) {
    auto made = io::FileIORegistry::Default().Create(location, properties_);
    if (!made) {
      by_scheme_.erase(parsed.scheme);
      return tl::unexpected(made.error());
    }
    io = std::move(*made);
  }
  return io;
}

tl::unexpected<Error> HttpError(std::string_view what, const HttpResult& result) {
  const ErrorKind kind = result.status == 409   ? ErrorKind::kCommitFailed
                         : result.status == 404 ? ErrorKind::kNotFound
                                                : ErrorKind::kInternal;
  return MakeError(kind, what, ": HTTP ", result.status, " ", result.body.substr(0, 300));
}

Status Expect(std::string_view what, Result<HttpResult> result, int status) {
  if (!result) return tl::unexpected(result.error());
  if (result->status != status) return HttpError(what, *result);
  return OkStatus();
}

std::string CreateNamespaceRequestBody(const spec::Namespace& ns) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("namespace");
  writer.StartArray();
  for (const auto& level : ns) writer.String(level);
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

std::string CreateTableRequestBody(const std::string& name, const catalog::Properties& properties) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("name", name);
  writer.Field("stage-create", false);
  writer.Key("schema");
  writer.Raw(spec::SchemaToJson(*BenchSchema()));
  if (!properties.empty()) {
    writer.Key("properties");
    writer.StartObject();
    for (const auto& [key, value] : properties) writer.Field(key, value);
    writer.EndObject();
  }
  writer.EndObject();
  return writer.Take();
}

// Benchmark names are plain ASCII words, so only the level separator needs
// encoding.
std::string NamespacePath(const spec::Namespace& ns) {
  std::string path;
  for (const auto& level : ns) StrAppend(&path, path.empty() ? "" : "%1F", level);
  return path;
}

std::string TablesPath(std::string_view base_path, const spec::Namespace& ns) {
  return StrCat(base_path, "namespaces/", NamespacePath(ns), "/tables");
}

std::string TablePath(std::string_view base_path, const spec::TableIdentifier& identifier) {
  return StrCat(TablesPath(base_path, identifier.ns), "/", identifier.name);
}

std::string CommitRequestBody(const catalog::CommitTableRequest& request) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("identifier");
  writer.StartObject();
  writer.Key("namespace");
  writer.StartArray();
  for (const auto& level : request.identifier.ns) writer.String(level);
  writer.EndArray();
  writer.Field("name", request.identifier.name);
  writer.EndObject();
  writer.Key("requirements");
  writer.StartArray();
  for (const auto& requirement : request.requirements) {
    spec::WriteTableRequirement(writer, requirement);
  }
  writer.EndArray();
  writer.Key("updates");
  writer.StartArray();
  for (const auto& update : request.updates) spec::WriteTableUpdate(writer, update);
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

Result<std::unique_ptr<RestTarget>> RestTarget::Connect(const RestTargetOptions& options) {
  std::unique_ptr<RestTarget> target(new RestTarget());
  target->options_ = options;
  target->ios_ = std::make_shared<TableFileIOs>(options.io_properties);
  std::string_view rest = options.uri;
  if (!rest.starts_with("http://")) {
    return MakeError(ErrorKind::kInvalidArgument, "Expected http://HOST:PORT, got ", options.uri);
  }
  rest.remove_prefix(7);
  while (rest.ends_with('/')) rest.remove_suffix(1);
  // The path the REST API is mounted under, if any ("/iceberg"): every route is below it.
  std::string mount;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    mount = std::string(rest.substr(slash));
    rest = rest.substr(0, slash);
  }
  const size_t colon = rest.rfind(':');
  int port = 0;
  if (colon == std::string_view::npos ||
      std::from_chars(rest.data() + colon + 1, rest.data() + rest.size(), port).ec != std::errc{}) {
    return MakeError(ErrorKind::kInvalidArgument, "Expected http://HOST:PORT, got ", options.uri);
  }
  target->host_ = std::string(rest.substr(0, colon));
  target->port_ = static_cast<uint16_t>(port);

  SKADE_ASSIGN_OR_RAISE(auto connection, HttpConnection::Connect(target->host_, target->port_));
  const std::string config_path = StrCat(mount, "/v1/config");
  SKADE_ASSIGN_OR_RAISE(auto config, connection->Send("GET", config_path));
  if (config.status != 200) return HttpError(StrCat("GET ", config_path), config);
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto document, json::Parse(parser, config.body));
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(document, "config"));
  target->base_path_ = StrCat(mount, "/v1/");
  // Clients take a setting from `overrides` over `defaults`: skade and the REST fixture send the
  // prefix as an override, Nessie as a default.
  for (const char* section : {"defaults", "overrides"}) {
    auto settings = json::Find(object, section);
    if (!settings) continue;
    SKADE_ASSIGN_OR_RAISE(auto map, json::ToStringMap(*settings, section));
    if (auto prefix = map.find("prefix"); prefix != map.end()) {
      target->base_path_ = StrCat(mount, "/v1/", prefix->second, "/");
    }
  }
  return target;
}

Result<std::unique_ptr<CatalogSession>> RestTarget::NewSession() {
  SKADE_ASSIGN_OR_RAISE(auto connection, HttpConnection::Connect(host_, port_));
  catalog::Properties properties;
  if (options_.rebase == "off") properties[catalog::kRebaseAppendsProperty] = "false";
  return std::make_unique<RestSession>(
      std::make_shared<RestCatalog>(std::move(connection), base_path_), ios_, base_path_,
      std::move(properties));
}

std::string RestTarget::append_notes() const {
  return StrCat(
      "a writer's append (table::FastAppend over REST): GET the table, read the parent's manifest "
      "list, write one manifest (one ADDED data-file entry, sequence numbers inherited; the data "
      "file itself is not written) and a manifest list under the table's metadata/ through the "
      "FileIO of the table location's scheme (local: without fsync, as Java's and PyIceberg's "
      "local FileIO; s3: skade's S3FileIO, one PUT each), POST "
      "assert-table-uuid + assert-ref-snapshot-id main, add-snapshot (append, Java's summary), "
      "set-snapshot-ref main; on 409 reload, write a new manifest list (the manifest is reused) "
      "and retry with Iceberg's commit.retry defaults (4 retries, backoff from 100 ms doubling), "
      "then give up (failures); latency is the whole op",
      options_.rebase == "off"
          ? StrCat("; tables created with ", catalog::kRebaseAppendsProperty, "=false")
          : "");
}

}  // namespace skade::bench
