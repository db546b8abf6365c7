// JournaledFile: a file whose bytes the store keeps until its writer made it
// durable (the store as the write-ahead log of the catalog's metadata files).
#pragma once

#include <string>

namespace skade::store {

/// A file a pointer swap depends on, kept in the swap's transaction
/// (PointerSwap::journaled_files) so that a file written without sync can be
/// rewritten from the store after a power loss. `contents` are the bytes as
/// written (compressed if the file is). Locations are unique: a journaled
/// file is never rewritten with other bytes.
struct JournaledFile {
  std::string location;
  std::string contents;

  bool operator==(const JournaledFile&) const = default;
};

}  // namespace skade::store
