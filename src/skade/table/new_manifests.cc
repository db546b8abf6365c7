#include <algorithm>

#include "skade/avro/manifest_writer.h"
#include "skade/table/new_manifests_internal.h"

namespace skade::table {

Result<std::vector<spec::ManifestFile>> WriteAddedManifests(
    const spec::TableMetadata& base, int64_t snapshot_id, const std::vector<spec::DataFile>& files,
    const StoreManifest& store) {
  std::vector<int32_t> spec_ids;
  for (const spec::DataFile& file : files) {
    if (file.content != spec::DataFileContent::kData) {
      return InvalidArgument("Cannot append delete file ", file.file_path, " as a data file");
    }
    if (std::find(spec_ids.begin(), spec_ids.end(), file.spec_id) == spec_ids.end()) {
      spec_ids.push_back(file.spec_id);
    }
  }
  std::vector<spec::ManifestFile> manifests;
  for (int32_t spec_id : spec_ids) {
    spec::PartitionSpecPtr spec = base.SpecById(spec_id);
    if (!spec) return InvalidArgument("Cannot append a file of unknown partition spec ", spec_id);
    avro::ManifestWriterOptions options;
    options.format_version = base.format_version;
    options.snapshot_id = snapshot_id;
    SKADE_ASSIGN_OR_RAISE(auto writer, avro::ManifestWriter::Make(base.Schema(), spec, options));
    for (const spec::DataFile& file : files) {
      if (file.spec_id == spec_id) SKADE_RETURN_NOT_OK(writer->Add(file));
    }
    // The location is only known once the bytes are stored.
    SKADE_ASSIGN_OR_RAISE(avro::WrittenManifest written, writer->Finish(""));
    SKADE_ASSIGN_OR_RAISE(written.manifest_file.manifest_path, store(written.bytes));
    manifests.push_back(std::move(written.manifest_file));
  }
  return manifests;
}

}  // namespace skade::table
