#include "skade/avro/manifest_reader.h"
#include "skade/table/table_manifest_internal.h"
#include "skade/util/strings.h"
#include "skade/util/worker_pool.h"

namespace skade::table {

Result<TableManifest> ReadTableManifest(const spec::TableMetadata& metadata, io::FileIO& io,
                                        const spec::ManifestFile& manifest) {
  TableManifest read;
  read.spec = metadata.SpecById(manifest.partition_spec_id);
  if (!read.spec) {
    return Corruption("Manifest ", manifest.manifest_path, " names unknown partition spec ",
                      manifest.partition_spec_id);
  }
  avro::ManifestReaderOptions options;
  SKADE_ASSIGN_OR_RAISE(options.partition_type,
                        read.spec->PartitionType(*metadata.Schema(), metadata.schemas));
  SKADE_ASSIGN_OR_RAISE(read.entries, avro::ReadManifestEntries(io, manifest, options));
  return read;
}

std::vector<Result<TableManifest>> ReadTableManifestsEach(
    const spec::TableMetadata& metadata, io::FileIO& io,
    const std::vector<const spec::ManifestFile*>& manifests) {
  // Leaked on purpose, as WorkerPool::Default(): workers outlive statics.
  static WorkerPool* pool = new WorkerPool(kParallelManifestReads);
  std::vector<Result<TableManifest>> read(manifests.size(), TableManifest{});
  auto one = [&](size_t i) {
    try {
      read[i] = ReadTableManifest(metadata, io, *manifests[i]);
    } catch (const std::exception& e) {
      read[i] = MakeError(ErrorKind::kInternal, "Cannot read manifest ",
                          manifests[i]->manifest_path, ": ", e.what());
    }
  };
  if (manifests.size() == 1) {
    one(0);
  } else {
    pool->ParallelFor(manifests.size(), one);
  }
  return read;
}

std::string ManifestReadKey(const spec::ManifestFile& manifest) {
  return StrCat(manifest.manifest_path, "\n", manifest.sequence_number, " ",
                manifest.min_sequence_number, " ", manifest.added_snapshot_id, " ",
                manifest.first_row_id ? StrCat(*manifest.first_row_id) : "-");
}

}  // namespace skade::table
