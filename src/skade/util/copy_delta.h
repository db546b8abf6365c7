// Copy delta: a file as copies from an earlier version of it plus the bytes
// that are new. A metadata file differs from its predecessor by a few edits
// (a timestamp, an appended snapshot and log entries), so its delta is a few
// hundred bytes and takes about a memcmp of the file to make, where zstd
// against the same prefix costs ~0.5 us per KB of it (the store's journal,
// store/lmdb/lmdb_keys.cc).
//
// Format: a sequence of ops, each a varint `length << 1 | kind` followed, for
// a copy (kind 0), by a varint offset into the base and, for an insert
// (kind 1), by `length` literal bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade {

/// The delta that rebuilds `target` from `base`, or an empty string when
/// more than `max_insert_bytes` of `target` are not found in `base` (then
/// another encoding is the better one, and the search stops early).
std::string EncodeCopyDelta(std::string_view base, std::string_view target,
                            size_t max_insert_bytes);

/// A run of a target's bytes that its writer copied from the base: equal to
/// the base's `length` bytes at `base`, by construction.
struct CopySpan {
  size_t target = 0;
  size_t base = 0;
  size_t length = 0;
};

/// EncodeCopyDelta, told where the target copies the base: `copied` runs
/// (in target order, with increasing, non-overlapping base ranges) become
/// copies without being compared, and each stretch between two runs is
/// encoded against the base's bytes between their copies of it — a metadata
/// file of a long history costs its edits, not a comparison of its whole
/// length. Runs that are out of order or out of range are ignored (the
/// whole target is encoded as EncodeCopyDelta does).
std::string EncodeCopyDeltaAlong(std::string_view base, std::string_view target,
                                 const std::vector<CopySpan>& copied, size_t max_insert_bytes);

/// Rebuilds the target of EncodeCopyDelta from the same `base`; `size` is the
/// target's size, recorded beside the delta. kCorruption for a delta that
/// reaches outside `base`, is truncated or does not make exactly `size`
/// bytes. A different base of the same size is not detected here: callers
/// check a hash of the result.
Result<std::string> ApplyCopyDelta(std::string_view delta, std::string_view base, size_t size);

}  // namespace skade
