// The file a SnapshotIndex is kept in beside its store, so that a restart
// maps it instead of rebuilding it from the whole commit log.
//
// Name: `snapshot-index-<covered_seq, 20 digits>.sidx` in the store's
// DerivedFileDirectory(). A file is written once, durably, and never
// changed: a newer index is a new file (FileIO's create-only write makes a
// file visible only whole), and older ones are deleted after it. Processes
// sharing a store may write the same file; the second finds it made.
//
// Layout (little-endian, like the machine it is read on; a file from a
// machine of the other order fails its magic):
//   header, 64 bytes: magic "SKSIDX01", key count, location count, pool
//     bytes, covered_seq, xxh3 of the covered commit's metadata location,
//     xxh3 of everything after the header, covered location length
//   the StaticTree words (64-byte aligned, inner levels first)
//   table ids (u64 per key), location offsets (u64, locations + 1),
//   location ids (u32 per key, padded to 8 bytes), the covered location,
//   the location pool
// The checksum is verified when a file is opened; an index whose covered
// commit is not the store's (a store restored or replaced under it) is not
// used.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "skade/index/snapshot_index.h"
#include "skade/io/file_io.h"
#include "skade/util/result.h"

namespace skade::index {

/// The location of the index file covering `covered_seq` in `directory`.
std::string SnapshotIndexFileLocation(const std::string& directory, uint64_t covered_seq);

/// Writes `index` durably to its file in `directory` through `io` (a local
/// FileIO). An existing file of the same covered_seq is kept (another
/// process wrote it). Returns the file's location.
Result<std::string> WriteSnapshotIndexFile(io::FileIO& io, const std::string& directory,
                                           const SnapshotIndex& index);

/// Maps the index file at `location` and checks it. kCorruption if it is
/// not a whole, well-formed index file.
Result<std::unique_ptr<const SnapshotIndex>> OpenSnapshotIndexFile(const std::string& location);

/// The index files in `directory`, newest (highest covered_seq) first.
Result<std::vector<std::pair<uint64_t, std::string>>> ListSnapshotIndexFiles(
    io::FileIO& io, const std::string& directory);

}  // namespace skade::index
