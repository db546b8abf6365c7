// A REST target: any Iceberg REST catalog server (skade serve, the Iceberg
// REST fixture), driven over HTTP/1.1 with one keep-alive connection per
// session. The server is started and stopped by scripts/bench.sh.
//
// Appends are a writer's (table::FastAppend over RestCatalog): the client
// writes a manifest and a manifest list under the table's location through
// the FileIO that io::FileIORegistry::Default() has for the location's
// scheme (made once per scheme, with RestTargetOptions::io_properties), so
// the server must hand out table locations the load generator can write: a
// local directory, or an object store the registry serves (skade_rest_bench
// registers S3) with the settings given in io_properties.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/catalog_target.h"
#include "rest/http_connection.h"
#include "skade/catalog/append_rebase.h"
#include "skade/catalog/catalog.h"
#include "skade/io/file_io.h"
#include "skade/io/file_io_registry.h"

namespace skade::bench {

struct RestTargetOptions {
  std::string name;         // record target, e.g. "skade-rest"
  std::string uri;          // http://127.0.0.1:PORT[/MOUNT] (Nessie's API is under /iceberg)
  std::string durability;   // as the harness started the server
  std::string write_notes;  // e.g. what the server makes durable
  /// skade only: "on" (tables keep the default) or "off" (tables are created
  /// with catalog::kRebaseAppendsProperty=false); empty for other servers.
  std::string rebase;
  /// The FileIO settings appends write with (s3.endpoint, …; S3 credentials
  /// may come from the AWS environment instead).
  io::FileIOProperties io_properties;
};

/// The error for an unexpected response: kCommitFailed for 409, kNotFound
/// for 404, kInternal otherwise, with the start of the body.
tl::unexpected<Error> HttpError(std::string_view what, const HttpResult& result);
/// OK if `result` arrived with `status`; else its error or HttpError.
Status Expect(std::string_view what, Result<HttpResult> result, int status);

/// The body of `POST …/namespaces` creating `ns`.
std::string CreateNamespaceRequestBody(const spec::Namespace& ns);
/// The body of `POST …/tables` creating `name` with the benchmark schema and
/// `properties`; `stage-create` is sent (false), as Iceberg Java's client
/// does: Nessie refuses a request without it.
std::string CreateTableRequestBody(const std::string& name,
                                   const catalog::Properties& properties = {});
/// The body of `POST …/tables/{table}` for `request`: identifier,
/// requirements and updates as the REST spec's CommitTableRequest.
std::string CommitRequestBody(const catalog::CommitTableRequest& request);

/// `ns` as the `{namespace}` path parameter (levels joined by %1F; benchmark
/// names are plain ASCII words and need no other escaping).
std::string NamespacePath(const spec::Namespace& ns);
/// `<base_path>namespaces/<ns>/tables`, and the path of one table in it;
/// `base_path` is "[<mount>]/v1/" or "[<mount>]/v1/<prefix>/".
std::string TablesPath(std::string_view base_path, const spec::Namespace& ns);
std::string TablePath(std::string_view base_path, const spec::TableIdentifier& identifier);

/// The FileIO of each location scheme the appends meet, made on first use
/// from io::FileIORegistry::Default() with the target's io_properties and
/// kept for the target's life. Thread-safe (one mutex, held while a FileIO
/// is looked up or made).
class TableFileIOs {
 public:
  explicit TableFileIOs(io::FileIOProperties properties) : properties_(std::move(properties)) {}

  /// The FileIO for `location`'s scheme; the registry's error (kUnsupported
  /// for a scheme it does not serve, kInvalidArgument for bad settings).
  Result<std::shared_ptr<io::FileIO>> For(std::string_view location);

 private:
  const io::FileIOProperties properties_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<io::FileIO>> by_scheme_;  // guarded by mutex_
};

class RestTarget : public CatalogTarget {
 public:
  /// Reads GET <mount>/v1/config to learn the server's path prefix (from its
  /// `overrides`, else its `defaults`, as Iceberg's clients merge them).
  static Result<std::unique_ptr<RestTarget>> Connect(const RestTargetOptions& options);

  Result<std::unique_ptr<CatalogSession>> NewSession() override;
  std::string name() const override { return options_.name; }
  std::string durability() const override { return options_.durability; }
  std::string write_notes() const override { return options_.write_notes; }
  std::string rebase() const override { return options_.rebase; }
  std::string append_notes() const override;

 private:
  RestTargetOptions options_;
  std::shared_ptr<TableFileIOs> ios_;  // where appends write their manifests
  std::string host_;
  uint16_t port_ = 0;
  std::string base_path_;  // "[<mount>]/v1/" or "[<mount>]/v1/<prefix>/"
};

}  // namespace skade::bench
