// What every CLI subcommand shares: the global options, opening the
// catalog, and reporting errors.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/util/result.h"

namespace skade::cli {

struct CliContext {
  std::string warehouse;
  /// --store: a local directory for the catalog store; empty: in the
  /// warehouse (which must then be local).
  std::string store;
  /// FileIO properties (s3_config.h names): --s3-* flags and --io KEY=VALUE.
  std::vector<std::string> io_pairs;
  std::string s3_endpoint;
  std::string s3_region;
  bool s3_path_style = false;
  std::string durability = "immediate";
  std::vector<std::string> allowed_locations;
  bool group_commit = true;

  /// Opens the embedded catalog of --warehouse. Only a `long_running` one
  /// (serve) runs the commit-log index's compactor: a one-shot command maps
  /// the index file there is and asks the store for the rest. Without
  /// `recover_journal`, opening changes nothing in the warehouse
  /// (EmbeddedCatalogOptions::recover_journal). A positive
  /// `commit_log_retention_ms` runs the commit log's retention
  /// (EmbeddedCatalogOptions::commit_log_retention_ms). `manifest_cache`:
  /// EmbeddedCatalogOptions::manifest_cache.
  Result<std::shared_ptr<catalog::EmbeddedCatalog>> OpenCatalog(
      bool long_running = false, bool recover_journal = true, int64_t commit_log_retention_ms = 0,
      std::shared_ptr<cache::ManifestCache> manifest_cache = nullptr) const;

  /// The warehouse FileIO's properties from the flags above.
  Result<io::FileIOProperties> FileIOProperties() const;
};

/// Prints "skade: <message>" to stderr and returns exit code 1.
int ReportError(const Error& error);

/// Runs `body` (which returns a Status) and turns a failure into exit code 1.
template <typename Body>
int Run(Body&& body) {
  Status status = body();
  return status ? 0 : ReportError(status.error());
}

/// Parses "key=value" arguments; kInvalidArgument for one without '='.
Result<std::map<std::string, std::string>> ParseKeyValues(const std::vector<std::string>& pairs);

/// Reads a whole file, or standard input for "-".
Result<std::string> ReadInput(const std::string& path);

}  // namespace skade::cli
