// Where a table's metadata files live and how they are named, read and
// written — the one place that knows (as LevelDB's db/filename.h).
//
// Names follow Iceberg Java: `<metadata dir>/NNNNN-<uuid>.metadata.json`,
// or `NNNNN-<uuid>.gz.metadata.json` when the table property
// `write.metadata.compression-codec` is gzip. The metadata dir is
// `<table location>/metadata` unless `write.metadata.path` is set. Files are
// immutable: a commit always writes a new one. Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "skade/cache/metadata_file.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// The version number in a metadata file name ("00042-….metadata.json" →
/// 42), or -1 if the name does not follow the pattern.
int64_t ParseMetadataVersion(std::string_view location);

/// The location for version `version` of `metadata`'s metadata file.
std::string NewMetadataLocation(const spec::TableMetadata& metadata, int64_t version);

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

/// Serializes `metadata` and writes it as a new file at `location` (gzip if
/// the location says so). Returns the JSON text.
Result<std::shared_ptr<const std::string>> WriteMetadataFile(io::FileIO& io,
                                                             const spec::TableMetadata& metadata,
                                                             const std::string& location,
                                                             bool durable);

}  // namespace skade::catalog
