// Writes an Iceberg manifest list (Iceberg spec: "Manifest Lists") for
// format versions 1, 2 and 3.
//
// The file is an Avro object container of manifest_file records
// (manifest_schema.h) whose metadata holds `snapshot-id`,
// `parent-snapshot-id` ("null" for none, as Iceberg Java writes it),
// `sequence-number` (v2+), `first-row-id` (v3), `format-version` and
// `iceberg.schema`.
//
// While adding manifests the writer does what Iceberg's commit does:
//   - v2+: a manifest whose sequence_number or min_sequence_number is
//     spec::kUnassignedSequenceNumber gets the snapshot's sequence number;
//     it must then have been added by this snapshot (kInvalidArgument
//     otherwise).
//   - v3: a data manifest without a first_row_id gets the next row id,
//     starting at the snapshot's first-row-id and advancing by the
//     manifest's added plus existing rows; next_row_id() then tells the
//     snapshot's added-rows (next_row_id() - first_row_id).
// v1 lists hold data manifests only.
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
#include "skade/avro/manifest_list_reader.h"
#include "skade/io/file_io.h"
#include "skade/spec/manifest_file.h"
#include "skade/util/result.h"

namespace skade::avro {

/// The manifests of a finished list as its blocks hold them (the bytes after
/// its header), kept so that a later list carrying all of them, in order,
/// after its own can copy them instead of encoding and compressing them
/// again (ManifestListWriter::AddEncoded). Each copy adds one block; past
/// kMaxCopiedBlocks the next list encodes everything again, so the bytes a
/// commit encodes do not grow with the table's manifests.
struct EncodedManifests {
  static constexpr int64_t kMaxCopiedBlocks = 32;

  int format_version = 0;
  Codec codec = Codec::kNull;
  SyncMarker sync_marker{};
  std::string blocks;
  int64_t block_count = 0;
  size_t manifest_count = 0;
};

struct ManifestListWriterOptions {
  int format_version = 2;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  /// v2+: the snapshot's sequence number.
  int64_t sequence_number = 0;
  /// v3: the snapshot's first-row-id.
  int64_t first_row_id = 0;
  ContainerWriterOptions avro;
};

class ManifestListWriter {
 public:
  /// kInvalidArgument for a format version other than 1-3.
  static Result<std::unique_ptr<ManifestListWriter>> Make(const ManifestListWriterOptions& options);

  /// Appends `manifest` after the assignments above. Argument errors are
  /// kInvalidArgument and leave the writer usable.
  Status Add(const spec::ManifestFile& manifest);

  /// Whether a writer with `options` can AddEncoded(`encoded`): same format
  /// version, codec and sync marker (set options.avro.sync_marker to
  /// encoded.sync_marker), and fewer than kMaxCopiedBlocks blocks.
  static bool CanCopy(const EncodedManifests& encoded, const ManifestListWriterOptions& options);

  /// Appends the manifests `encoded` holds, copying its blocks: `manifests`
  /// must be the list it was encoded from (as the writer that finished it
  /// returned them in manifests()), which need no assignment. kInvalidArgument
  /// unless CanCopy() and the counts match.
  Status AddEncoded(const EncodedManifests& encoded, std::vector<spec::ManifestFile> manifests);

  /// The manifests as written, with assigned sequence numbers and row ids:
  /// what ReadManifestList reads back (v1 without sequence numbers, v1 and
  /// v2 without row ids).
  const std::vector<spec::ManifestFile>& manifests() const { return manifests_; }
  /// The same, moved out (a list can hold thousands): after Finish().
  std::vector<spec::ManifestFile> TakeManifests() { return std::move(manifests_); }

  /// The file's metadata as ReadManifestList reads it back.
  ManifestListMetadata metadata() const;

  /// v3: the row id after the last one assigned.
  int64_t next_row_id() const { return next_row_id_; }

  /// Ends the file and returns its bytes. The writer cannot be used
  /// afterwards.
  Result<std::string> Finish();

  /// After Finish(): the file's manifests, for the next list to copy.
  std::shared_ptr<const EncodedManifests> encoded() const { return encoded_; }

  /// Finish() and write the bytes to `location` through `io` (never
  /// overwriting; fsynced when `durable`).
  Status WriteTo(io::FileIO& io, std::string_view location, bool durable);

 private:
  ManifestListWriter(const ManifestListWriterOptions& options, NodePtr schema,
                     std::unique_ptr<ContainerWriter> writer);

  ManifestListWriterOptions options_;
  NodePtr schema_;
  std::unique_ptr<ContainerWriter> writer_;
  std::vector<spec::ManifestFile> manifests_;
  int64_t next_row_id_;
  std::shared_ptr<const EncodedManifests> encoded_;
};

}  // namespace skade::avro
