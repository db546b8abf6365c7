// WrittenManifestList: a manifest list this process staged, with the
// manifests it names. A snapshot built on it — the next update of the same
// commit, or the next commit through the Table it was committed to — takes
// its parent's manifests from here instead of reading the file back (a GET
// on S3), or before the file is even written (the updates of one commit are
// staged first and their files written together). Manifest lists are never
// rewritten, so a location names one content for good.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/avro/manifest_list_writer.h"
#include "skade/spec/manifest_file.h"

namespace skade::table {

struct WrittenManifestList {
  std::string location;
  std::vector<spec::ManifestFile> manifests;
  /// The same manifests as the file's blocks hold them: the next list
  /// copies them (avro::ManifestListWriter::AddEncoded).
  std::shared_ptr<const avro::EncodedManifests> encoded;
};

}  // namespace skade::table
