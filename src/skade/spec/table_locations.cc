#include "skade/spec/table_locations.h"

#include <cstdio>

#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::spec {

namespace {

constexpr std::string_view kMetadataSuffix = ".metadata.json";
constexpr std::string_view kGzipMetadataSuffix = ".gz.metadata.json";

std::string Directory(const TableMetadata& metadata, std::string_view property,
                      std::string_view default_name) {
  std::string directory = metadata.Property(property, "");
  if (directory.empty()) return JoinLocation(metadata.location, default_name);
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  return directory;
}

}  // namespace

std::string MetadataDirectory(const TableMetadata& metadata) {
  return Directory(metadata, kMetadataPath, "metadata");
}

std::string DataDirectory(const TableMetadata& metadata) {
  return Directory(metadata, kDataPath, "data");
}

std::string NewMetadataLocation(const TableMetadata& metadata, int64_t version) {
  bool gzip = EqualsIgnoreCase(metadata.Property(kMetadataCompression, "none"), "gzip");
  char number[24];
  std::snprintf(number, sizeof(number), "%05lld", static_cast<long long>(version));
  return JoinLocation(MetadataDirectory(metadata),
                      StrCat(number, "-", NewUuid(), gzip ? kGzipMetadataSuffix : kMetadataSuffix));
}

bool IsGzipMetadataLocation(std::string_view location) {
  return location.ends_with(kGzipMetadataSuffix);
}

int64_t ParseMetadataVersion(std::string_view location) {
  size_t slash = location.rfind('/');
  std::string_view name = slash == std::string_view::npos ? location : location.substr(slash + 1);
  size_t dash = name.find('-');
  if (dash == std::string_view::npos || !name.ends_with(kMetadataSuffix)) return -1;
  auto version = ParseInt64(name.substr(0, dash));
  return version && *version >= 0 ? *version : -1;
}

std::string ManifestLocation(const TableMetadata& metadata, std::string_view commit_uuid,
                             int index) {
  return JoinLocation(MetadataDirectory(metadata), StrCat(commit_uuid, "-m", index, ".avro"));
}

std::string ManifestListLocation(const TableMetadata& metadata, int64_t snapshot_id, int attempt,
                                 std::string_view commit_uuid) {
  return JoinLocation(MetadataDirectory(metadata),
                      StrCat("snap-", snapshot_id, "-", attempt, "-", commit_uuid, ".avro"));
}

std::string DataFileName(std::string_view prefix, int64_t seq) {
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%08lld", static_cast<long long>(seq));
  return StrCat(prefix, "-", digits, ".parquet");
}

std::string DataFileLocation(const TableMetadata& metadata, std::string_view partition_path,
                             std::string_view file_name) {
  std::string directory = DataDirectory(metadata);
  if (!partition_path.empty()) directory = JoinLocation(directory, partition_path);
  return JoinLocation(directory, file_name);
}

}  // namespace skade::spec
