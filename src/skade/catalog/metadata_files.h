// Reading and writing a table's metadata files (their names and directory
// are spec/table_locations.h's). Files are immutable: a commit always writes
// a new one. Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>

#include "skade/cache/metadata_file.h"
#include "skade/catalog/location_policy.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// The largest metadata file, manifest list or manifest skade reads: every
/// one of them may be named by a client.
inline constexpr uint64_t kMaxMetadataReadBytes = 512ull << 20;

/// A metadata file's parsed content and its JSON text (uncompressed).
using cache::MetadataFile;

/// Reads and parses `location`. A missing file is kNotFound with Iceberg's
/// message ("Failed to open input stream for file: …"); unparseable
/// contents are kCorruption naming the file; a file that is not regular or
/// is larger than kMaxMetadataReadBytes (compressed or not) is
/// kInvalidArgument.
Result<MetadataFile> ReadMetadataFile(io::FileIO& io, const std::string& location);

/// As ReadMetadataFile, for a file the catalog wrote (a table pointer's, or
/// one of its history), read only where `policy` allows it to lie
/// (LocationPolicy::ReadFile): never through a link planted in its place or
/// leading out, nor under a root no longer allowed (kForbidden).
Result<MetadataFile> ReadOwnMetadataFile(const LocationPolicy& policy, const std::string& location);

/// kInvalidArgument naming the key if an object in `file`'s JSON has a key
/// twice. For a file a client names (registerTable): skade reads the first
/// value, Java and Python the last, and loadTable hands out the text as it
/// is, so the file would say one thing to skade (which checks and claims its
/// locations) and another to clients. Not part of every read (it adds ~20%
/// to a parse): the files skade writes have no such key.
Status CheckMetadataFileKeys(const MetadataFile& file, const std::string& location);

/// A metadata file's JSON text from its bytes as stored (gunzipped if they
/// are gzip, whatever the name says). kCorruption (kInvalidArgument above
/// the size limit) naming `location` for bad gzip.
Result<std::string> MetadataText(std::string bytes, const std::string& location);

/// A metadata file ready to write: its JSON text and its bytes as stored
/// (the JSON itself, or its gzip if the location says so).
struct EncodedMetadataFile {
  std::shared_ptr<const std::string> json;
  std::shared_ptr<const std::string> bytes;
  spec::CopiedText copied;  // where `json` copies the previous version's
};

/// Serializes `metadata` for a new file at `location`.
EncodedMetadataFile EncodeMetadataFile(const spec::TableMetadata& metadata,
                                       const std::string& location);

}  // namespace skade::catalog
