#include "skade/catalog/metadata_files.h"

#include "skade/spec/table_locations.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/gzip.h"

namespace skade::catalog {

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

EncodedMetadataFile EncodeMetadataFile(const spec::TableMetadata& metadata,
                                       const std::string& location) {
  EncodedMetadataFile file;
  file.json = spec::TableMetadataToSharedJson(metadata);
  file.bytes = spec::IsGzipMetadataLocation(location)
                   ? std::make_shared<const std::string>(Gzip(*file.json))
                   : file.json;
  return file;
}

}  // namespace skade::catalog
