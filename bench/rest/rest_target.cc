#include "rest/rest_target.h"

#include <charconv>

#include "common/bench_schema.h"
#include "rest/http_connection.h"
#include "skade/spec/json_serde.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/random.h"
#include "testing/fast_append.h"

namespace skade::bench {

namespace {

class RestSession : public CatalogSession {
 public:
  RestSession(std::unique_ptr<HttpConnection> connection, std::string base_path)
      : connection_(std::move(connection)), base_(std::move(base_path)) {}

  Status CreateNamespace(const spec::Namespace& ns) override {
    return Expect(
        "create namespace",
        connection_->Send("POST", StrCat(base_, "namespaces"), CreateNamespaceRequestBody(ns)),
        200);
  }
  Status CreateTable(const spec::TableIdentifier& identifier) override {
    return Expect("create table",
                  connection_->Send("POST", TablesPath(identifier.ns),
                                    CreateTableRequestBody(identifier.name)),
                  200);
  }
  Status LoadTable(const spec::TableIdentifier& identifier) override {
    return Expect("load table", connection_->Send("GET", TablePath(identifier)), 200);
  }
  Result<bool> TableExists(const spec::TableIdentifier& identifier) override {
    SKADE_ASSIGN_OR_RAISE(auto result, connection_->Send("HEAD", TablePath(identifier)));
    if (result.status == 204 || result.status == 200) return true;
    if (result.status == 404) return false;
    return HttpError("table exists", result);
  }
  Status ListTables(const spec::Namespace& ns) override {
    return Expect("list tables", connection_->Send("GET", TablesPath(ns)), 200);
  }
  Status ListNamespaces() override {
    return Expect("list namespaces", connection_->Send("GET", StrCat(base_, "namespaces")), 200);
  }
  Status Append(const spec::TableIdentifier& identifier, uint64_t* conflicts) override {
    const int64_t snapshot_id = NewSnapshotId();
    const std::string path = TablePath(identifier);
    for (;;) {
      SKADE_ASSIGN_OR_RAISE(auto loaded, connection_->Send("GET", path));
      if (loaded.status != 200) return HttpError("load table", loaded);
      SKADE_ASSIGN_OR_RAISE(auto response, json::Parse(parser_, loaded.body));
      SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(response, "LoadTableResult"));
      SKADE_ASSIGN_OR_RAISE(auto metadata_element, json::GetRequired(object, "metadata"));
      SKADE_ASSIGN_OR_RAISE(auto metadata,
                            spec::TableMetadataFromJson(json::Minify(metadata_element)));
      auto request = testing::FastAppendRequest(identifier, *metadata, snapshot_id);
      SKADE_ASSIGN_OR_RAISE(auto committed,
                            connection_->Send("POST", path, CommitRequestBody(request)));
      if (committed.status == 200) return OkStatus();
      if (committed.status != 409) return HttpError("commit", committed);
      ++*conflicts;
    }
  }

 private:
  std::string TablesPath(const spec::Namespace& ns) const {
    return StrCat(base_, "namespaces/", NamespacePath(ns), "/tables");
  }
  std::string TablePath(const spec::TableIdentifier& identifier) const {
    return StrCat(TablesPath(identifier.ns), "/", identifier.name);
  }

  std::unique_ptr<HttpConnection> connection_;
  std::string base_;
  simdjson::dom::parser parser_;
};

}  // namespace

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

std::string CreateTableRequestBody(const std::string& name) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("name", name);
  writer.Key("schema");
  writer.Raw(spec::SchemaToJson(*BenchSchema()));
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
  std::string_view rest = options.uri;
  if (!rest.starts_with("http://")) {
    return MakeError(ErrorKind::kInvalidArgument, "Expected http://HOST:PORT, got ", options.uri);
  }
  rest.remove_prefix(7);
  while (rest.ends_with('/')) rest.remove_suffix(1);
  const size_t colon = rest.rfind(':');
  int port = 0;
  if (colon == std::string_view::npos ||
      std::from_chars(rest.data() + colon + 1, rest.data() + rest.size(), port).ec != std::errc{}) {
    return MakeError(ErrorKind::kInvalidArgument, "Expected http://HOST:PORT, got ", options.uri);
  }
  target->host_ = std::string(rest.substr(0, colon));
  target->port_ = static_cast<uint16_t>(port);

  SKADE_ASSIGN_OR_RAISE(auto connection, HttpConnection::Connect(target->host_, target->port_));
  SKADE_ASSIGN_OR_RAISE(auto config, connection->Send("GET", "/v1/config"));
  if (config.status != 200) return HttpError("GET /v1/config", config);
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto document, json::Parse(parser, config.body));
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(document, "config"));
  target->base_path_ = "/v1/";
  if (auto overrides = json::Find(object, "overrides")) {
    SKADE_ASSIGN_OR_RAISE(auto map, json::ToStringMap(*overrides, "overrides"));
    if (auto prefix = map.find("prefix"); prefix != map.end()) {
      target->base_path_ = StrCat("/v1/", prefix->second, "/");
    }
  }
  return target;
}

Result<std::unique_ptr<CatalogSession>> RestTarget::NewSession() {
  SKADE_ASSIGN_OR_RAISE(auto connection, HttpConnection::Connect(host_, port_));
  return std::make_unique<RestSession>(std::move(connection), base_path_);
}

}  // namespace skade::bench
