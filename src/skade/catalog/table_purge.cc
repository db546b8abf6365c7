#include "skade/catalog/table_purge.h"

#include <set>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/catalog/metadata_files.h"
#include "skade/spec/table_locations.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// Collects the files to delete, reading only those in scope.
class PurgeCollector {
 public:
  PurgeCollector(io::FileIO& io, const TableFileScope& scope) : io_(io), scope_(scope) {}

  // Adds `location` if in scope; true if it was added now.
  bool Add(const std::string& location) {
    if (location.empty() || files_.contains(location) || skipped_.contains(location)) return false;
    auto allowed = scope_.Check(location);
    if (!allowed) {
      skipped_.insert(location);
      LogWarning(StrCat("purge skipped ", allowed.error().message));
      return false;
    }
    files_.insert(location);
    return true;
  }

  // Adds `manifest` and every data or delete file its entries name.
  // Unreadable files are skipped: purge is best effort.
  void AddManifest(const std::string& manifest) {
    if (!Add(manifest)) return;
    auto bytes = io_.ReadFileUpTo(manifest, kMaxMetadataReadBytes);
    if (!bytes) return;
    auto contents = avro::ReadManifest(*bytes);
    if (!contents) return;
    for (const auto& entry : contents->entries) Add(entry.data_file.file_path);
  }

  void AddManifestList(const std::string& manifest_list) {
    if (!Add(manifest_list)) return;
    auto bytes = io_.ReadFileUpTo(manifest_list, kMaxMetadataReadBytes);
    if (!bytes) return;
    auto list = avro::ReadManifestList(*bytes);
    if (!list) return;
    for (const auto& manifest : list->manifests) AddManifest(manifest.manifest_path);
  }

  const std::set<std::string>& files() const { return files_; }
  int64_t skipped() const { return static_cast<int64_t>(skipped_.size()); }

 private:
  io::FileIO& io_;
  const TableFileScope& scope_;
  std::set<std::string> files_;
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

  std::vector<std::string> files(collector.files().begin(), collector.files().end());
  SKADE_ASSIGN_OR_RAISE(std::vector<bool> elsewhere, owned_elsewhere(files));
  PurgeResult result;
  result.skipped = collector.skipped();
  Status first_error = OkStatus();
  std::set<std::string> directories;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    if (elsewhere.at(i)) {
      LogWarning(StrCat("purge skipped ", file, ": another table owns its location"));
      ++result.skipped;
      continue;
    }
    auto deleted = io.DeleteFile(file);
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
