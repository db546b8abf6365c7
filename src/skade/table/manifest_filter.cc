#include "skade/avro/manifest_writer.h"
#include "skade/table/manifest_filter_internal.h"
#include "skade/table/table_manifest_internal.h"

namespace skade::table {

Result<std::vector<spec::ManifestFile>> ManifestFilter::Filter(
    const spec::TableMetadata& base, io::FileIO& io, int64_t snapshot_id,
    const std::vector<spec::ManifestFile>& current, const StoreManifest& store,
    SnapshotSummaryBuilder* summary) {
  std::vector<spec::ManifestFile> manifests;
  for (const spec::ManifestFile& manifest : current) {
    auto cached = cache_.find(manifest.manifest_path);
    if (cached == cache_.end()) {
      SKADE_ASSIGN_OR_RAISE(Filtered filtered,
                            FilterManifest(base, io, snapshot_id, manifest, store));
      cached = cache_.emplace(manifest.manifest_path, std::move(filtered)).first;
    }
    const Filtered& filtered = cached->second;
    for (const spec::DataFile& file : filtered.removed) summary->RemovedFile(file);
    manifests.push_back(filtered.rewritten ? *filtered.rewritten : manifest);
  }
  return manifests;
}

Result<ManifestFilter::Filtered> ManifestFilter::FilterManifest(const spec::TableMetadata& base,
                                                                io::FileIO& io, int64_t snapshot_id,
                                                                const spec::ManifestFile& manifest,
                                                                const StoreManifest& store) {
  SKADE_ASSIGN_OR_RAISE(TableManifest read, ReadTableManifest(base, io, manifest));
  const spec::PartitionSpecPtr& spec = read.spec;
  const std::vector<spec::ManifestEntry>& entries = read.entries;

  Filtered filtered;
  bool any_match = false;
  for (const spec::ManifestEntry& entry : entries) {
    if (entry.status != spec::ManifestEntryStatus::kDeleted &&
        filter_.Matches(*spec, entry.data_file)) {
      any_match = true;
      break;
    }
  }
  if (!any_match) return filtered;

  avro::ManifestWriterOptions options;
  options.format_version = base.format_version;
  options.snapshot_id = snapshot_id;
  options.content = manifest.content;
  SKADE_ASSIGN_OR_RAISE(auto writer, avro::ManifestWriter::Make(base.Schema(), spec, options));
  for (const spec::ManifestEntry& entry : entries) {
    if (entry.status == spec::ManifestEntryStatus::kDeleted) continue;
    if (filter_.Matches(*spec, entry.data_file)) {
      SKADE_RETURN_NOT_OK(writer->Delete(entry));
      filtered.removed.push_back(entry.data_file);
    } else {
      SKADE_RETURN_NOT_OK(writer->Existing(entry));
    }
  }
  SKADE_ASSIGN_OR_RAISE(avro::WrittenManifest written, writer->Finish(""));
  SKADE_ASSIGN_OR_RAISE(written.manifest_file.manifest_path, store(written.bytes));
  filtered.rewritten = std::move(written.manifest_file);
  return filtered;
}

}  // namespace skade::table
