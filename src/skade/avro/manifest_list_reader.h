// Reads Iceberg manifest lists of any format version (Iceberg spec:
// "Manifest Lists").
//
// Fields are matched by field id (by name where a writer left ids out).
// Values v1 lists lack read as the spec's defaults: content data, sequence
// numbers 0. A v1 list may leave the file and row counts null ("assumed
// non-zero"); spec::ManifestFile cannot say that, so they read as 0.
// Malformed files are kCorruption; one whose entries would take more than
// options.max_decoded_bytes once parsed is kInvalidArgument, failed before
// that much is allocated. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "skade/avro/container_reader.h"
#include "skade/spec/manifest_file.h"
#include "skade/util/result.h"

namespace skade::avro {

/// What a manifest list's Avro metadata says about its snapshot.
struct ManifestListMetadata {
  /// `format-version`; when missing, 2 if the file has sequence numbers and
  /// 1 otherwise.
  int format_version = 1;
  std::optional<int64_t> snapshot_id;
  /// Missing, or written as "null", when the snapshot has no parent.
  std::optional<int64_t> parent_snapshot_id;
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> first_row_id;
};

struct ManifestList {
  ManifestListMetadata metadata;
  std::vector<spec::ManifestFile> manifests;
};

/// `location`, when given, names the file in the error of a file over the
/// memory limit.
Result<ManifestList> ReadManifestList(std::string_view bytes,
                                      const ContainerReaderOptions& options = {},
                                      std::string_view location = {});

}  // namespace skade::avro
