#include "skade/catalog/metadata_files.h"

#include "skade/spec/table_locations.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/gzip.h"
#include "skade/util/json_parser.h"
#include "skade/util/json_reader.h"

namespace skade::catalog {

namespace {

Result<MetadataFile> ParseMetadataFile(Result<std::string> bytes, const std::string& location) {
  if (!bytes) {
    if (bytes.error().kind == ErrorKind::kNotFound) {
      return MakeError(ErrorKind::kNotFound, "Failed to open input stream for file: ", location);
    }
    return tl::unexpected(bytes.error());
  }
  SKADE_ASSIGN_OR_RAISE(std::string text, MetadataText(std::move(*bytes), location));
  // Waits its turn if large rather than fail: a table's metadata must be read.
  JsonParser parser(JsonParser::WhenBusy::kWait);
  auto metadata = parser.Parse(text).and_then(spec::TableMetadataFromElement);
  if (!metadata) {
    return Corruption("Cannot parse metadata file ", location, ": ", metadata.error().message);
  }
  return MetadataFile{std::move(*metadata), std::make_shared<const std::string>(std::move(text))};
}

}  // namespace

Result<MetadataFile> ReadMetadataFile(io::FileIO& io, const std::string& location) {
  return ParseMetadataFile(io.ReadFileUpTo(location, kMaxMetadataReadBytes), location);
}

Result<MetadataFile> ReadOwnMetadataFile(const LocationPolicy& policy,
                                         const std::string& location) {
  return ParseMetadataFile(policy.ReadFile(location, kMaxMetadataReadBytes), location);
}

Status CheckMetadataFileKeys(const MetadataFile& file, const std::string& location) {
  JsonParser parser(JsonParser::WhenBusy::kWait);
  auto checked = parser.Parse(*file.json).and_then(json::CheckUniqueKeys);
  if (!checked) {
    return InvalidArgument("Invalid metadata file ", location, ": ", checked.error().message);
  }
  return OkStatus();
}

Result<std::string> MetadataText(std::string bytes, const std::string& location) {
  if (!IsGzip(bytes)) return bytes;
  auto inflated = Gunzip(bytes, kMaxMetadataReadBytes);
  if (!inflated) {
    return MakeError(inflated.error().kind == ErrorKind::kInvalidArgument
                         ? ErrorKind::kInvalidArgument
                         : ErrorKind::kCorruption,
                     "Cannot read metadata file ", location, ": ", inflated.error().message);
  }
  return std::move(*inflated);
}

EncodedMetadataFile EncodeMetadataFile(const spec::TableMetadata& metadata,
                                       const std::string& location) {
  EncodedMetadataFile file;
  file.json = spec::TableMetadataToSharedJson(metadata, &file.copied);
  file.bytes = spec::IsGzipMetadataLocation(location)
                   ? std::make_shared<const std::string>(Gzip(*file.json))
                   : file.json;
  return file;
}

}  // namespace skade::catalog
