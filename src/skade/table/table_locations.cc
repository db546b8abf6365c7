#include "skade/table/table_locations.h"

#include <cstdio>

#include "skade/io/file_io.h"
#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"

namespace skade::table {

namespace {

std::string Directory(const spec::TableMetadata& metadata, std::string_view property,
                      std::string_view default_name) {
  std::string directory = metadata.Property(property, "");
  if (directory.empty()) return io::JoinLocation(metadata.location, default_name);
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  return directory;
}

}  // namespace

std::string MetadataDirectory(const spec::TableMetadata& metadata) {
  return Directory(metadata, spec::kMetadataPath, "metadata");
}

std::string DataDirectory(const spec::TableMetadata& metadata) {
  return Directory(metadata, spec::kDataPath, "data");
}

std::string ManifestLocation(const spec::TableMetadata& metadata, std::string_view commit_uuid,
                             int index) {
  return io::JoinLocation(MetadataDirectory(metadata), StrCat(commit_uuid, "-m", index, ".avro"));
}

std::string ManifestListLocation(const spec::TableMetadata& metadata, int64_t snapshot_id,
                                 int attempt, std::string_view commit_uuid) {
  return io::JoinLocation(MetadataDirectory(metadata),
                          StrCat("snap-", snapshot_id, "-", attempt, "-", commit_uuid, ".avro"));
}

std::string DataFileName(std::string_view prefix, int64_t seq) {
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%08lld", static_cast<long long>(seq));
  return StrCat(prefix, "-", digits, ".parquet");
}

std::string DataFileLocation(const spec::TableMetadata& metadata, std::string_view partition_path,
                             std::string_view file_name) {
  std::string directory = DataDirectory(metadata);
  if (!partition_path.empty()) directory = io::JoinLocation(directory, partition_path);
  return io::JoinLocation(directory, file_name);
}

}  // namespace skade::table
