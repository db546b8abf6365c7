#include "skade/catalog/table_purge.h"

#include <set>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// Parent directory of a location ("…/a/b.json" → "…/a").
std::string ParentOf(const std::string& location) {
  size_t slash = location.rfind('/');
  return slash == std::string::npos ? std::string() : location.substr(0, slash);
}

// Adds `manifest` and every data or delete file its entries name.
// Unreadable files are skipped: purge is best effort.
void CollectFromManifest(io::FileIO& io, const std::string& manifest,
                         std::set<std::string>* files) {
  files->insert(manifest);
  auto bytes = io.ReadFile(manifest);
  if (!bytes) return;
  auto contents = avro::ReadManifest(*bytes);
  if (!contents) return;
  for (const auto& entry : contents->entries) files->insert(entry.data_file.file_path);
}

void CollectFromManifestList(io::FileIO& io, const std::string& manifest_list,
                             std::set<std::string>* files) {
  files->insert(manifest_list);
  auto bytes = io.ReadFile(manifest_list);
  if (!bytes) return;
  auto list = avro::ReadManifestList(*bytes);
  if (!list) return;
  for (const auto& manifest : list->manifests) {
    if (!files->contains(manifest.manifest_path)) {
      CollectFromManifest(io, manifest.manifest_path, files);
    }
  }
}

}  // namespace

Status PurgeTableFiles(io::FileIO& io, const spec::TableMetadata& metadata,
                       const std::string& metadata_location) {
  std::set<std::string> files;
  for (const auto& snapshot : metadata.snapshots) {
    if (!snapshot->manifest_list.empty()) {
      CollectFromManifestList(io, snapshot->manifest_list, &files);
    }
    for (const auto& manifest : snapshot->manifests) CollectFromManifest(io, manifest, &files);
  }
  for (const auto& statistics : metadata.statistics) files.insert(statistics.statistics_path);
  for (const auto& statistics : metadata.partition_statistics) {
    files.insert(statistics.statistics_path);
  }
  for (const auto& entry : metadata.metadata_log) files.insert(entry.metadata_file);
  files.insert(metadata_location);

  Status first_error = OkStatus();
  std::set<std::string> directories;
  for (const auto& file : files) {
    auto deleted = io.DeleteFile(file);
    if (!deleted && deleted.error().kind != ErrorKind::kNotFound && first_error) {
      first_error = deleted;
    }
    directories.insert(ParentOf(file));
  }
  // Remove emptied directories bottom-up, never above the table location.
  std::string root = metadata.location;
  while (root.size() > 1 && root.ends_with('/')) root.pop_back();
  for (auto it = directories.rbegin(); it != directories.rend(); ++it) {
    for (std::string dir = *it; dir.size() > root.size() && dir.starts_with(root + "/");
         dir = ParentOf(dir)) {
      (void)io.RemoveEmptyDirectory(dir);
    }
  }
  (void)io.RemoveEmptyDirectory(root);
  return first_error;
}

}  // namespace skade::catalog
