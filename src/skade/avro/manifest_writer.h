// Writes an Iceberg manifest file (Iceberg spec: "Manifests") for format
// versions 1, 2 and 3.
//
// The file is an Avro object container whose schema is manifest_entry for
// the version (manifest_schema.h) with the partition struct of `spec` over
// `schema`, and whose metadata holds `schema` (table schema JSON),
// `schema-id`, `partition-spec` (the spec's fields array JSON),
// `partition-spec-id`, `format-version`, `content` ("data"/"deletes", v2+)
// and `iceberg.schema` (the manifest_entry schema JSON), as Iceberg writers
// do.
//
// Entries:
//   - Add: a new file, status ADDED, snapshot id = the writer's; sequence
//     numbers null so they are inherited at commit, unless a data sequence
//     number is given.
//   - Existing: a file carried over from another manifest, status EXISTING;
//     its snapshot id and sequence numbers are kept (v2+: both required).
//   - Delete: status DELETED, snapshot id = the writer's, sequence numbers
//     kept (v2+: required).
// Data manifests take data files, delete manifests (v2+) delete files.
// Fields the version's schema lacks (first_row_id before v3, …) are not
// written. Argument errors are kInvalidArgument and leave the writer usable.
//
// Finish() returns the bytes and the manifest's summary for a manifest list:
// counts, partition field summaries, and sequence numbers left as
// spec::kUnassignedSequenceNumber for ManifestListWriter to assign.
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/avro/container_writer.h"
#include "skade/avro/partition_summary.h"
#include "skade/io/file_io.h"
#include "skade/spec/manifest_entry.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::avro {

struct EntryHeader;

struct ManifestWriterOptions {
  int format_version = 2;
  /// The snapshot that writes the manifest: recorded in ADDED and DELETED
  /// entries and as the summary's added_snapshot_id.
  int64_t snapshot_id = 0;
  spec::ManifestContent content = spec::ManifestContent::kData;
  /// v3: a first_row_id already assigned to this manifest; normally unset so
  /// that the manifest list writer assigns one.
  std::optional<int64_t> first_row_id;
  /// The table's schemas: an older spec may name a column the schema has
  /// dropped, and its partition values keep the type the last of these gave it.
  std::vector<spec::SchemaPtr> table_schemas;
  ContainerWriterOptions avro;
};

/// A finished manifest: its bytes and its manifest-list entry.
struct WrittenManifest {
  std::string bytes;
  spec::ManifestFile manifest_file;
};

class ManifestWriter {
 public:
  /// kInvalidArgument for a format version other than 1-3, delete content
  /// in v1, or a spec that does not bind to `schema`.
  static Result<std::unique_ptr<ManifestWriter>> Make(spec::SchemaPtr schema,
                                                      spec::PartitionSpecPtr spec,
                                                      const ManifestWriterOptions& options);

  Status Add(const spec::DataFile& file);
  /// Adds a new file whose data belongs to an older sequence number.
  Status Add(const spec::DataFile& file, int64_t data_sequence_number);
  Status Existing(const spec::ManifestEntry& entry);
  Status Delete(const spec::ManifestEntry& entry);

  /// Ends the file. `location` becomes the summary's manifest_path.
  Result<WrittenManifest> Finish(std::string location);

  /// Finish() and write the bytes to `location` through `io` (never
  /// overwriting; fsynced when `durable`). Returns the summary.
  Result<spec::ManifestFile> WriteTo(io::FileIO& io, std::string_view location, bool durable);

  const spec::TypePtr& partition_type() const { return partition_type_; }

 private:
  ManifestWriter(spec::SchemaPtr schema, spec::PartitionSpecPtr spec,
                 const ManifestWriterOptions& options, spec::TypePtr partition_type,
                 NodePtr entry_schema, std::unique_ptr<ContainerWriter> writer);

  Status Write(const EntryHeader& entry, const spec::DataFile& file);
  Status CheckFile(const spec::DataFile& file) const;

  spec::SchemaPtr schema_;
  spec::PartitionSpecPtr spec_;
  ManifestWriterOptions options_;
  spec::TypePtr partition_type_;
  NodePtr entry_schema_;
  std::unique_ptr<ContainerWriter> writer_;
  PartitionSummaryBuilder summary_;
  int32_t added_files_ = 0;
  int32_t existing_files_ = 0;
  int32_t deleted_files_ = 0;
  int64_t added_rows_ = 0;
  int64_t existing_rows_ = 0;
  int64_t deleted_rows_ = 0;
  std::optional<int64_t> min_sequence_number_;
};

}  // namespace skade::avro
