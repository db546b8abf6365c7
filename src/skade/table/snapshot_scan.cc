#include "skade/table/snapshot_scan.h"

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"

namespace skade::table {

Result<std::vector<spec::ManifestEntry>> LiveEntries(const Table& table,
                                                     const spec::Snapshot& snapshot) {
  const spec::TableMetadata& metadata = table.metadata();
  SKADE_ASSIGN_OR_RAISE(std::string bytes, table.io().ReadFile(snapshot.manifest_list));
  SKADE_ASSIGN_OR_RAISE(avro::ManifestList list, avro::ReadManifestList(bytes));
  std::vector<spec::ManifestEntry> live;
  for (const spec::ManifestFile& manifest : list.manifests) {
    avro::ManifestReaderOptions options;
    if (spec::PartitionSpecPtr spec = metadata.SpecById(manifest.partition_spec_id)) {
      SKADE_ASSIGN_OR_RAISE(options.partition_type,
                            spec->PartitionType(*metadata.Schema(), metadata.schemas));
    }
    SKADE_ASSIGN_OR_RAISE(auto entries, avro::ReadManifestEntries(table.io(), manifest, options));
    for (spec::ManifestEntry& entry : entries) {
      if (entry.status != spec::ManifestEntryStatus::kDeleted) live.push_back(std::move(entry));
    }
  }
  return live;
}

Result<std::vector<spec::DataFile>> CurrentDataFiles(const Table& table) {
  std::vector<spec::DataFile> files;
  spec::SnapshotPtr snapshot = table.metadata().CurrentSnapshot();
  if (!snapshot) return files;
  SKADE_ASSIGN_OR_RAISE(auto entries, LiveEntries(table, *snapshot));
  for (spec::ManifestEntry& entry : entries) {
    if (entry.data_file.content == spec::DataFileContent::kData) {
      files.push_back(std::move(entry.data_file));
    }
  }
  return files;
}

}  // namespace skade::table
