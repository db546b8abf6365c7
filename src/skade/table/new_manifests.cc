#include <algorithm>

#include "skade/avro/manifest_writer.h"
#include "skade/table/new_manifests_internal.h"

namespace skade::table {

namespace {

bool HasContent(const spec::DataFile& file, spec::ManifestContent content) {
  return (file.content == spec::DataFileContent::kData) ==
         (content == spec::ManifestContent::kData);
}

Result<std::vector<spec::ManifestFile>> WriteManifests(const spec::TableMetadata& base,
                                                       int64_t snapshot_id,
                                                       const std::vector<spec::DataFile>& files,
                                                       spec::ManifestContent content,
                                                       const StoreManifest& store) {
  std::vector<int32_t> spec_ids;
  for (const spec::DataFile& file : files) {
    if (!HasContent(file, content)) {
      return InvalidArgument("Cannot add ",
                             content == spec::ManifestContent::kData ? "delete" : "data", " file ",
                             file.file_path, " as a ",
                             content == spec::ManifestContent::kData ? "data" : "delete", " file");
    }
    if (std::find(spec_ids.begin(), spec_ids.end(), file.spec_id) == spec_ids.end()) {
      spec_ids.push_back(file.spec_id);
    }
  }
  std::vector<spec::ManifestFile> manifests;
  for (int32_t spec_id : spec_ids) {
    spec::PartitionSpecPtr spec = base.SpecById(spec_id);
    if (!spec) return InvalidArgument("Cannot add a file of unknown partition spec ", spec_id);
    avro::ManifestWriterOptions options;
    options.format_version = base.format_version;
    options.snapshot_id = snapshot_id;
    options.table_schemas = base.schemas;
    options.content = content;
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

}  // namespace

Result<std::vector<spec::ManifestFile>> WriteAddedManifests(
    const spec::TableMetadata& base, int64_t snapshot_id, const std::vector<spec::DataFile>& files,
    const StoreManifest& store) {
  return WriteManifests(base, snapshot_id, files, spec::ManifestContent::kData, store);
}

Result<std::vector<spec::ManifestFile>> WriteAddedDeleteManifests(
    const spec::TableMetadata& base, int64_t snapshot_id, const std::vector<spec::DataFile>& files,
    const StoreManifest& store) {
  if (base.format_version < 2) {
    return InvalidArgument("Cannot add delete files to a format version ", base.format_version,
                           " table: delete files need format version 2 or later");
  }
  return WriteManifests(base, snapshot_id, files, spec::ManifestContent::kDeletes, store);
}

}  // namespace skade::table
