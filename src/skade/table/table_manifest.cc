#include "skade/avro/manifest_reader.h"
#include "skade/table/table_manifest_internal.h"

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
  SKADE_ASSIGN_OR_RAISE(options.partition_type, read.spec->PartitionType(*metadata.Schema()));
  SKADE_ASSIGN_OR_RAISE(read.entries, avro::ReadManifestEntries(io, manifest, options));
  return read;
}

}  // namespace skade::table
