// JournaledFile: a file whose bytes the store keeps until its writer made it
// durable (the store as the write-ahead log of the catalog's metadata files).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/copy_delta.h"
#include "skade/util/result.h"

namespace skade::store {

/// The earlier file a journaled file may be kept as a difference from: the
/// metadata file its commit was based on. Its text is that file's JSON
/// (uncompressed, as the catalog parsed it).
struct JournalBase {
  std::string location;
  std::shared_ptr<const std::string> text;  // given when written; null when read back
  /// Given when written, if known: the runs of the contents its writer
  /// copied from `text` (util/copy_delta.h EncodeCopyDeltaAlong).
  std::vector<CopySpan> copied;
};

/// A file a pointer swap depends on, kept in the swap's transaction
/// (PointerSwap::journaled_files) so that a file written without sync can be
/// rewritten from the store after a power loss. Locations are unique: a
/// journaled file is never rewritten with other bytes.
///
/// Written, `contents` are the bytes as written (compressed if the file is),
/// and a `base` lets the store keep them as their difference from the base's
/// text (a metadata file differs from its predecessor by a few hundred
/// bytes, so the entry is that small, and costs less to make than the whole
/// file compressed). Read back, such an entry has `base` (location only) and
/// `delta` set and `contents` empty: its bytes take the base's text
/// (DeltaContents), and whether a file on disk holds them takes only the
/// size and hash (Holds). The base is found in the journal, else on disk:
/// an entry is released only once its file is durable, and the catalog
/// releases the deltas on a file before it deletes that file
/// (EmbeddedCatalog::ReleaseDeltasOn).
struct JournaledFile {
  struct Delta {
    enum class Format : uint8_t {
      kZstd,  // one zstd frame with the base's text as prefix
      kCopy,  // copies from the base's text and new bytes (util/copy_delta.h)
    };
    Format format = Format::kCopy;
    std::string bytes;
    uint64_t size = 0;  // of the contents
    uint64_t hash = 0;  // XXH3-64 of the contents

    bool operator==(const Delta&) const = default;
  };

  std::string location;
  /// Shared with the writer (a metadata file's text is also the metadata
  /// cache's), so a swap carries a file of megabytes without copying it.
  /// Null when read back as a delta.
  std::shared_ptr<const std::string> contents;
  std::optional<JournalBase> base;
  std::optional<Delta> delta;

  /// The contents; empty when read back as a delta.
  std::string_view bytes() const { return contents ? std::string_view(*contents) : ""; }

  /// The file's size, whole or a delta.
  uint64_t size() const { return delta ? delta->size : bytes().size(); }

  bool operator==(const JournaledFile& other) const {
    return location == other.location && bytes() == other.bytes() && delta == other.delta &&
           base.has_value() == other.base.has_value() &&
           (!base || base->location == other.base->location);
  }
};

/// XXH3-64 of a journaled file's contents (JournaledFile::Delta::hash).
uint64_t JournalHash(std::string_view contents);

/// Whether `bytes` are the file `file` journals: equal contents, or for a
/// delta equal size and hash.
bool Holds(const JournaledFile& file, std::string_view bytes);

/// A delta entry's contents, from its base's text; kCorruption when `base_text`
/// is not the text it was made against (or the delta is damaged).
Result<std::string> DeltaContents(const JournaledFile& file, std::string_view base_text);

}  // namespace skade::store
