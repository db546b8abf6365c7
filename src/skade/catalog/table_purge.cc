#include "skade/catalog/table_purge.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/catalog/metadata_files.h"
#include "skade/spec/table_locations.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

constexpr size_t kOwnershipBatch = 256;

// Collects the files to delete, reading only those in scope.
class PurgeCollector {
 public:
  PurgeCollector(io::FileIO& io, const TableFileScope& scope) : io_(io), scope_(scope) {}

  // Adds `location` if in scope; true if it was added now.
  bool Add(const std::string& location) {
    if (location.empty() || files_.contains(location) || skipped_.contains(location)) return false;
    auto allowed = scope_.CheckDelete(location);
    if (!allowed) {
      skipped_.insert(location);
      LogWarning(StrCat("purge skipped ", allowed.error().message));
      return false;
    }
    files_.emplace(location, std::move(*allowed));
    return true;
  }

  // The file, to read what it names: read where it was checked to lead,
  // through no link made since. Unreadable or out of scope: nullopt.
  std::optional<std::string> Read(const std::string& location) {
    auto resolved = scope_.CheckRead(location);
    if (!resolved) return std::nullopt;
    auto bytes = io_.ReadCheckedFileUpTo(location, *resolved, kMaxMetadataReadBytes);
    if (!bytes) return std::nullopt;
    return std::move(*bytes);
  }

  // Adds `manifest` and every data or delete file its entries name.
  // Unreadable files are skipped: purge is best effort. One that cannot be
  // parsed (malformed, or over the readers' memory limit) is logged, since
  // the files it names are left behind.
  void AddManifest(const std::string& manifest) {
    if (!Add(manifest)) return;
    auto bytes = Read(manifest);
    if (!bytes) return;
    auto contents = avro::ReadManifest(*bytes);
    if (!contents) return LogUnparsed(manifest, contents.error());
    for (const auto& entry : contents->entries) Add(entry.data_file.file_path);
  }

  void AddManifestList(const std::string& manifest_list) {
    if (!Add(manifest_list)) return;
    auto bytes = Read(manifest_list);
    if (!bytes) return;
    auto list = avro::ReadManifestList(*bytes);
    if (!list) return LogUnparsed(manifest_list, list.error());
    for (const auto& manifest : list->manifests) AddManifest(manifest.manifest_path);
  }

  // Each file as named, and with its directory resolved when it was checked.
  const std::map<std::string, io::Location>& files() const { return files_; }
  int64_t skipped() const { return static_cast<int64_t>(skipped_.size()); }

 private:
  static void LogUnparsed(const std::string& location, const Error& error) {
    LogWarning(StrCat("purge skipped the files listed in ", location, ": ", error.message));
  }

  io::FileIO& io_;
  const TableFileScope& scope_;
  std::map<std::string, io::Location> files_;
  std::set<std::string> skipped_;
};

}  // namespace

Result<PurgeResult> PurgeTableFiles(io::FileIO& io, const spec::TableMetadata& metadata,
                                    const std::string& metadata_location,
                                    const TableFileScope& scope,
                                    const OwnedElsewhere& owned_elsewhere) {
  PurgeCollector collector(io, scope);
  for (const auto& snapshot : metadata.snapshots) {
    collector.AddManifestList(snapshot->manifest_list);
    for (const auto& manifest : snapshot->manifests) collector.AddManifest(manifest);
  }
  for (const auto& statistics : metadata.statistics) collector.Add(statistics.statistics_path);
  for (const auto& statistics : metadata.partition_statistics) {
    collector.Add(statistics.statistics_path);
  }
  for (const auto entry : metadata.metadata_log) collector.Add(std::string(entry.metadata_file));
  collector.Add(metadata_location);

  std::vector<std::string> files;
  for (const auto& [file, resolved] : collector.files()) files.push_back(file);
  PurgeResult result;
  result.skipped = collector.skipped();
  Status first_error = OkStatus();
  std::set<std::string> directories;
  std::vector<bool> elsewhere;
  for (size_t i = 0; i < files.size(); ++i) {
    // Who owns what is asked again every kOwnershipBatch files: a table
    // made at these locations while the purge runs keeps what it claimed.
    if (i % kOwnershipBatch == 0) {
      const size_t end = std::min(files.size(), i + kOwnershipBatch);
      SKADE_ASSIGN_OR_RAISE(elsewhere, owned_elsewhere(std::vector<std::string>(
                                           files.begin() + i, files.begin() + end)));
    }
    const std::string& file = files[i];
    if (elsewhere.at(i % kOwnershipBatch)) {
      LogWarning(StrCat("purge skipped ", file, ": another table owns its location"));
      ++result.skipped;
      continue;
    }
    // Through no link made since the check: what was checked is deleted.
    auto deleted = io.DeleteCheckedFile(file, collector.files().at(file));
    if (deleted) {
      ++result.deleted;
    } else if (deleted.error().kind != ErrorKind::kNotFound && first_error) {
      first_error = deleted;
    }
    directories.insert(io::ParentLocation(file));
  }
  // The catalog creates these with the table (EmbeddedCatalog::CreateTable),
  // so they may be there with no file in them.
  directories.insert(spec::MetadataDirectory(metadata));
  directories.insert(spec::DataDirectory(metadata));
  // Remove emptied directories bottom-up, never above a table root.
  for (auto it = directories.rbegin(); it != directories.rend(); ++it) {
    for (std::string dir = *it; scope.Check(dir); dir = io::ParentLocation(dir)) {
      (void)io.RemoveEmptyDirectory(dir);
    }
  }
  for (const auto& root : scope.roots()) (void)io.RemoveEmptyDirectory(root.ToString());
  if (!first_error) return tl::unexpected(first_error.error());
  return result;
}

}  // namespace skade::catalog
