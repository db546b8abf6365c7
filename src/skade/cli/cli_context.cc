#include "skade/cli/cli_context.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "skade/cli/config_sources.h"
#include "skade/util/strings.h"

namespace skade::cli {

Result<std::shared_ptr<catalog::EmbeddedCatalog>> CliContext::OpenCatalog(
    bool long_running, bool recover_journal, int64_t commit_log_retention_ms,
    std::shared_ptr<cache::ManifestCache> manifest_cache) const {
  catalog::EmbeddedCatalogOptions options;
  options.manifest_cache = std::move(manifest_cache);
  options.commit_log_retention_ms = commit_log_retention_ms;
  options.commit_log_index.background = long_running;
  options.recover_journal = recover_journal;
  options.warehouse = warehouse;
  options.store = store;
  SKADE_ASSIGN_OR_RAISE(options.file_io_properties, FileIOProperties());
  SKADE_ASSIGN_OR_RAISE(options.durability, store::ParseDurability(durability));
  options.allowed_locations = allowed_locations;
  options.group_commit = group_commit;
  // Commits a one-shot command makes are the CLI's in the change feed; the
  // server's are its clients'.
  if (!long_running) options.default_requester = "skade-cli";
  auto opened = catalog::EmbeddedCatalog::Open(options);
  if (!opened) {
    return MakeError(opened.error().kind, "cannot open warehouse ", warehouse, ": ",
                     opened.error().message);
  }
  return opened;
}

Result<io::FileIOProperties> CliContext::FileIOProperties() const {
  SKADE_ASSIGN_OR_RAISE(auto properties, ParseKeyValues(io_pairs));
  if (!s3_endpoint.empty()) properties["s3.endpoint"] = s3_endpoint;
  if (!s3_region.empty()) properties["s3.region"] = s3_region;
  if (s3_path_style) properties["s3.path-style-access"] = "true";
  return properties;
}

int ReportError(const Error& error) {
  std::cerr << "skade: " << error.message << ConfigSourceNote(error.message) << " ("
            << ErrorKindName(error.kind) << ")\n";
  return 1;
}

Result<std::map<std::string, std::string>> ParseKeyValues(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& pair : pairs) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("expected key=value, got '", pair, "'");
    }
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return out;
}

Result<std::string> ReadInput(const std::string& path) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return MakeError(ErrorKind::kNotFound, "cannot read ", path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

}  // namespace skade::cli
