// Reads Iceberg manifest files of any format version (Iceberg spec:
// "Manifests"), written by skade, Iceberg Java, PyIceberg or others.
//
// Fields are matched by their Iceberg field id (by name where a writer left
// ids out), so field order, extra or deprecated fields (block_size_in_bytes,
// distinct_counts, …) and optional-vs-required differences between writers
// do not matter. Partition values are read as the types of the caller's
// partition type when given, else as the types the file's Avro schema
// describes (type_conversion.h), matched by partition field id.
//
// The entries are returned as stored. Files written before v2 have no
// sequence numbers; theirs read as 0, as the spec requires. To resolve null
// snapshot ids, sequence numbers and first_row_ids, apply
// InheritFromManifestFile() with the manifest's manifest-list entry.
//
// A malformed file is kCorruption; an unsupported codec kUnsupported; one
// whose entries would take more than options.avro.max_decoded_bytes once
// parsed is kInvalidArgument, failed before that much is allocated.
// Stateless functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/avro/container_reader.h"
#include "skade/io/file_io.h"
#include "skade/spec/manifest_entry.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace skade::avro {

/// What a manifest's Avro metadata says about it.
struct ManifestMetadata {
  /// `format-version`; when missing, 1 if the file has no sequence numbers
  /// and 2 otherwise.
  int format_version = 1;
  /// `content`; data when missing (v1).
  spec::ManifestContent content = spec::ManifestContent::kData;
  /// `partition-spec-id`; 0 when missing (v1).
  int32_t partition_spec_id = 0;
  std::optional<int32_t> schema_id;
  /// The table schema (`schema`) and the partition fields
  /// (`partition-spec`) as JSON text, for the caller to parse if needed.
  std::string schema_json;
  std::string partition_spec_json;
};

struct Manifest {
  ManifestMetadata metadata;
  /// The struct type the partition values were read as.
  spec::TypePtr partition_type;
  std::vector<spec::ManifestEntry> entries;
};

struct ManifestReaderOptions {
  /// When set, partition values are read as these field types, matched by
  /// partition field id (by position for fields without ids); fields the
  /// file lacks read as null.
  spec::TypePtr partition_type;
  /// Leave DataFile::column_sizes empty: scan planning never uses them, and
  /// they are one of the largest maps of an entry to decode.
  bool skip_column_sizes = false;
  ContainerReaderOptions avro;
};

/// `location`, when given, names the file in the error of a file over the
/// memory limit.
Result<Manifest> ReadManifest(std::string_view bytes, const ManifestReaderOptions& options = {},
                              std::string_view location = {});

/// Applies the spec's inheritance from the manifest's manifest-list entry:
/// a null snapshot id becomes added_snapshot_id; null sequence numbers
/// become the manifest's sequence number for ADDED entries (for all entries
/// when it is 0, i.e. v1); every data file gets the manifest's spec id; and
/// for a v3 manifest with a first_row_id, live data files with a null
/// first_row_id get consecutive ids in file order (without one, all
/// first_row_ids are cleared, as Iceberg Java does for committed manifests).
/// kInvalidArgument if the manifest's sequence number is unassigned.
Status InheritFromManifestFile(const spec::ManifestFile& manifest,
                               std::vector<spec::ManifestEntry>* entries);

/// Reads the manifest at manifest.manifest_path through `io` and applies
/// InheritFromManifestFile.
Result<std::vector<spec::ManifestEntry>> ReadManifestEntries(
    io::FileIO& io, const spec::ManifestFile& manifest, const ManifestReaderOptions& options = {});

}  // namespace skade::avro
