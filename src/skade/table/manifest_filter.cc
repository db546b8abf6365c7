#include <algorithm>

#include "skade/avro/manifest_writer.h"
#include "skade/table/manifest_filter_internal.h"
#include "skade/table/table_manifest_internal.h"

namespace skade::table {

Result<std::vector<spec::ManifestFile>> ManifestFilter::Filter(
    const spec::TableMetadata& base, io::FileIO& io, int64_t snapshot_id,
    const std::vector<spec::ManifestFile>& current, const StoreManifest& store,
    SnapshotSummaryBuilder* summary) {
  // The manifests not seen yet, read a chunk at a time: a chunk's worth of
  // parsed manifests is what this holds in memory at once.
  std::vector<const spec::ManifestFile*> unseen;
  for (const spec::ManifestFile& manifest : current) {
    if (!cache_.contains(ManifestReadKey(manifest))) unseen.push_back(&manifest);
  }
  constexpr size_t kChunk = kParallelManifestReads;
  for (size_t start = 0; start < unseen.size(); start += kChunk) {
    std::vector<const spec::ManifestFile*> chunk(
        unseen.begin() + static_cast<ptrdiff_t>(start),
        unseen.begin() + static_cast<ptrdiff_t>(std::min(unseen.size(), start + kChunk)));
    SKADE_ASSIGN_OR_RAISE(
        std::vector<TableManifest> read,
        ReadTableManifests(base, io, chunk, [](const spec::ManifestFile&, const Error& error) {
          return tl::unexpected(error);
        }));
    for (size_t i = 0; i < chunk.size(); ++i) {
      SKADE_ASSIGN_OR_RAISE(Filtered filtered,
                            FilterManifest(base, snapshot_id, *chunk[i], read[i], store));
      cache_.emplace(ManifestReadKey(*chunk[i]), std::move(filtered));
    }
  }
  std::vector<spec::ManifestFile> manifests;
  for (const spec::ManifestFile& manifest : current) {
    const Filtered& filtered = cache_.at(ManifestReadKey(manifest));
    for (const spec::DataFile& file : filtered.removed) summary->RemovedFile(file);
    manifests.push_back(filtered.rewritten ? *filtered.rewritten : manifest);
  }
  return manifests;
}

Result<ManifestFilter::Filtered> ManifestFilter::FilterManifest(const spec::TableMetadata& base,
                                                                int64_t snapshot_id,
                                                                const spec::ManifestFile& manifest,
                                                                const TableManifest& read,
                                                                const StoreManifest& store) {
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
  options.table_schemas = base.schemas;
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
