#include "skade/catalog/metadata_files.h"

#include "skade/spec/table_metadata_json.h"
#include "skade/spec/table_properties.h"
#include "skade/util/gzip.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::catalog {

int64_t ParseMetadataVersion(std::string_view location) {
  size_t slash = location.rfind('/');
  std::string_view name = slash == std::string_view::npos ? location : location.substr(slash + 1);
  size_t dash = name.find('-');
  if (dash == std::string_view::npos || !name.ends_with(".metadata.json")) return -1;
  auto version = ParseInt64(name.substr(0, dash));
  return version && *version >= 0 ? *version : -1;
}

std::string NewMetadataLocation(const spec::TableMetadata& metadata, int64_t version) {
  std::string directory = metadata.Property(spec::kMetadataPath, "");
  if (directory.empty()) directory = io::JoinLocation(metadata.location, "metadata");
  bool gzip = EqualsIgnoreCase(metadata.Property(spec::kMetadataCompression, "none"), "gzip");
  char number[24];
  std::snprintf(number, sizeof(number), "%05lld", static_cast<long long>(version));
  return io::JoinLocation(
      directory, StrCat(number, "-", NewUuid(), gzip ? ".gz.metadata.json" : ".metadata.json"));
}

Result<MetadataFile> ReadMetadataFile(io::FileIO& io, const std::string& location) {
  auto bytes = io.ReadFileUpTo(location, kMaxMetadataReadBytes);
  if (!bytes) {
    if (bytes.error().kind == ErrorKind::kNotFound) {
      return MakeError(ErrorKind::kNotFound, "Failed to open input stream for file: ", location);
    }
    return tl::unexpected(bytes.error());
  }
  std::string text = std::move(*bytes);
  if (IsGzip(text)) {
    auto inflated = Gunzip(text, kMaxMetadataReadBytes);
    if (!inflated) {
      return MakeError(inflated.error().kind == ErrorKind::kInvalidArgument
                           ? ErrorKind::kInvalidArgument
                           : ErrorKind::kCorruption,
                       "Cannot read metadata file ", location, ": ", inflated.error().message);
    }
    text = std::move(*inflated);
  }
  auto metadata = spec::TableMetadataFromJson(text);
  if (!metadata) {
    return Corruption("Cannot parse metadata file ", location, ": ", metadata.error().message);
  }
  return MetadataFile{std::move(*metadata), std::make_shared<const std::string>(std::move(text))};
}

Result<std::shared_ptr<const std::string>> WriteMetadataFile(io::FileIO& io,
                                                             const spec::TableMetadata& metadata,
                                                             const std::string& location,
                                                             bool durable) {
  auto json = std::make_shared<const std::string>(spec::TableMetadataToJson(metadata));
  if (location.ends_with(".gz.metadata.json")) {
    SKADE_RETURN_NOT_OK(io.WriteFile(location, Gzip(*json), durable));
  } else {
    SKADE_RETURN_NOT_OK(io.WriteFile(location, *json, durable));
  }
  return json;
}

}  // namespace skade::catalog
