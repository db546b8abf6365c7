// RestCatalog: the part of catalog::Catalog that a writer's table operations
// use — LoadTable and CommitTable — over one HTTP connection to an Iceberg
// REST server, so that the REST benchmark appends through table::FastAppend
// as an application writing through a REST catalog does (Iceberg Java's
// RESTSessionCatalog: GET the table, POST the commit; the client writes its
// manifests and manifest lists itself).
//
// Every other Catalog call is kUnsupported: the load generator sends those
// requests itself, without parsing the responses (rest_target.cc). A 409
// response is kCommitFailed (the commit loop reloads and retries), 404
// kNotFound, any other status kInternal (HttpError).
//
// Thread-safe, as Catalog promises: a mutex serialises the calls on the one
// connection (each benchmark session has its own RestCatalog, so it is never
// contended).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rest/http_connection.h"
#include "skade/catalog/catalog.h"
#include "skade/util/json_reader.h"

namespace skade::bench {

class RestCatalog : public catalog::Catalog {
 public:
  /// `base_path` is "[<mount>]/v1/" or "[<mount>]/v1/<prefix>/" (RestTarget
  /// learns it from GET <mount>/v1/config).
  RestCatalog(std::unique_ptr<HttpConnection> connection, std::string base_path)
      : connection_(std::move(connection)), base_(std::move(base_path)) {}

  /// Commits the server refused with 409 so far: the conflicts a client sees.
  uint64_t conflicts() const;

  /// Sends a request on this catalog's connection, for the calls the load
  /// generator makes without a Catalog method.
  Result<HttpResult> Send(std::string_view method, const std::string& target,
                          const std::string& body = "");

  Result<catalog::LoadTableResult> LoadTable(const spec::TableIdentifier& identifier) override;
  Result<catalog::LoadTableResult> CommitTable(const catalog::CommitTableRequest& request) override;

  Status CreateNamespace(const spec::Namespace& ns, const catalog::Properties&) override;
  Result<catalog::Page<spec::Namespace>> ListNamespaces(const spec::Namespace& parent,
                                                        const catalog::PageRequest&) override;
  Result<catalog::Properties> LoadNamespaceProperties(const spec::Namespace& ns) override;
  Result<bool> NamespaceExists(const spec::Namespace& ns) override;
  Status DropNamespace(const spec::Namespace& ns) override;
  Result<catalog::UpdateNamespacePropertiesResult> UpdateNamespaceProperties(
      const spec::Namespace& ns, const std::vector<std::string>&,
      const catalog::Properties&) override;
  Result<catalog::Page<spec::TableIdentifier>> ListTables(const spec::Namespace& ns,
                                                          const catalog::PageRequest&) override;
  Result<catalog::LoadTableResult> CreateTable(const spec::Namespace& ns,
                                               const catalog::CreateTableRequest&) override;
  Result<bool> TableExists(const spec::TableIdentifier& identifier) override;
  Status DropTable(const spec::TableIdentifier& identifier, bool purge) override;
  Status RenameTable(const spec::TableIdentifier& from, const spec::TableIdentifier&) override;
  Result<catalog::LoadTableResult> RegisterTable(const spec::TableIdentifier& identifier,
                                                 const std::string&, bool,
                                                 const catalog::CommitOrigin&) override;
  Status CommitTransaction(const std::vector<catalog::CommitTableRequest>& requests) override;
  Result<std::optional<catalog::IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                          int64_t now_ms) override;
  Result<catalog::IdempotencyRecord> RecordIdempotency(
      const catalog::IdempotencyRecord& record) override;
  Result<catalog::LoadTableResult> LoadTableFromMetadata(
      const spec::TableIdentifier& identifier, const std::string& metadata_location) override;
  Result<catalog::LoadTableResult> LoadTableAt(const spec::TableIdentifier& identifier,
                                               int64_t snapshot_id) override;
  Result<catalog::LoadTableResult> LoadTableAsOf(const spec::TableIdentifier& identifier,
                                                 int64_t timestamp_ms) override;
  Result<std::vector<std::optional<std::string>>> ResolveMany(
      std::span<const catalog::SnapshotKey> keys) override;
  Result<std::vector<catalog::TableCommit>> TableHistory(const spec::TableIdentifier& identifier,
                                                         uint64_t after, size_t limit) override;

 private:
  // LoadTableResult and CommitTableResponse alike (metadata-location, metadata).
  Result<catalog::LoadTableResult> ParseTableResponse(const std::string& body);

  mutable std::mutex mutex_;
  std::unique_ptr<HttpConnection> connection_;  // guarded by mutex_
  std::string base_;
  uint64_t conflicts_ = 0;        // guarded by mutex_
  simdjson::dom::parser parser_;  // guarded by mutex_
};

}  // namespace skade::bench
