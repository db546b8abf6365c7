// How catalog state is laid out in LMDB — the one place that knows.
//
// Databases:
//   namespaces   key: NamespaceKey (table_key.h)       value: properties (JSON object)
//   tables       key: TableKey (table_key.h)           value: TableRecord
//   snapshots    key: table id (u64 BE), snapshot id (u64 BE)
//                value: metadata location of the commit that added the snapshot
//   commit_log   key: commit_seq (u64 BE)              value: CommitLogRecord
//                (pruned from the front by retention; see PruneCommitLog)
//   table_history key: table id, commit time (ms), commit_seq (u64 BE each)
//                value: empty (a table's commits in time order, for as-of
//                reads and its history; the record is in commit_log)
//   table_changes key: LMDB txn id (u64 BE)            value: the table keys whose
//                pointers that transaction created, moved or removed (so
//                another process's in-memory mirror can catch up on exactly
//                those; see LmdbCatalogStore::ReadTablePointersChangedAfter)
//   meta         key: name                             value: u64 LE counters
//                (commit_seq, next_table_id, last_commit_ms)
//   journal      key: JournalKey (the file location)   value: JournaledFile
//                (PointerSwap::journaled_files not yet released)
//   idempotency  key: IdempotencyRecord::key           value: the record
//   idempotency_expiry key: IdempotencyExpiryKey (expiry u64 BE, then the
//                record's key)                          value: empty
//                (the records in expiry order, so pruning reads only what it
//                deletes; exactly one entry per record)
//   location_claims key: LocationClaimKey (a location, a claim kind, a
//                table id)                              value: empty
//                (kOwns: the table owns that location; kOwnsBelow: it owns
//                one under it — one entry per ancestor, so a location's
//                entries say at once whether any table owns it or anything
//                under it; see lmdb_location_claims.h)
//   table_locations key: table id (u64 BE)             value: the locations
//                it owns (EncodeStringList); none for a table whose
//                locations were never recorded
//
// Keys sort as table_key.h describes, so a namespace's children and tables
// are found by prefix. The change version of the CatalogStore interface is
// the LMDB transaction id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/store/commit_log_record.h"
#include "skade/store/idempotency_record.h"
#include "skade/store/journaled_file.h"
#include "skade/store/table_key.h"
#include "skade/store/table_record.h"
#include "skade/util/result.h"

namespace skade::store::lmdb {

inline constexpr char kCommitSeqKey[] = "commit_seq";
inline constexpr char kNextTableIdKey[] = "next_table_id";
inline constexpr char kLastCommitMsKey[] = "last_commit_ms";
// Commit-log retention (CatalogStore::ReadCommitLogBounds).
inline constexpr char kLogPrunedSeqKey[] = "log_pruned_seq";
inline constexpr char kLogPrunedMsKey[] = "log_pruned_ms";

std::string SnapshotKey(uint64_t table_id, int64_t snapshot_id);
std::string CommitLogKey(uint64_t commit_seq);
/// The table_history key of a commit; with `commit_seq` 0, the key a seek
/// uses to find the table's first commit at or after `committed_at_ms`.
std::string TableHistoryKey(uint64_t table_id, int64_t committed_at_ms, uint64_t commit_seq);
/// The table id and commit_seq out of a table_history key.
std::pair<uint64_t, uint64_t> DecodeTableHistoryKey(std::string_view key);
std::string TableChangesKey(uint64_t txn_id);

/// A list of strings (a table_changes value: table keys; a table_locations
/// value: locations), each length-prefixed (u32 BE). DecodeStringList's
/// kCorruption names `what`.
std::string EncodeStringList(const std::vector<std::string>& strings);
Result<std::vector<std::string>> DecodeStringList(std::string_view bytes, std::string_view what);

/// The journal key of `location`: the location itself when it fits an LMDB
/// key, else its first bytes and a 128-bit hash of the whole (the value
/// repeats the location, and readers check it).
std::string JournalKey(std::string_view location);
/// A journal value: the tag 0xFFFFFFFF, an encoding byte (0: the bytes as
/// they are, 1: one zstd frame of them, 2 and 3: a delta), the location (u32
/// BE length), then the bytes so encoded. Metadata JSON shrinks ~8x at zstd's
/// level 1 for ~1.3 ns a byte, which the store's sync and the disk no longer
/// carry. A delta (a file written with a JournaledFile::base) follows the
/// location with the base's location (u32 BE length), the contents' size and
/// XXH3-64 (u64 BE each), then the difference from the base's text: a copy
/// delta (util/copy_delta.h; 3) when nearly all of the file is in its base,
/// as a metadata file's next version is (a few hundred bytes, at ~0.1 ns a
/// byte), else one zstd frame made against that text (2). Values of earlier
/// versions — the location, then the bytes, no tag (a location is never
/// 4 GiB long) — still decode.
std::string EncodeJournaledFile(const JournaledFile& file);
/// kCorruption for a value that is not one of EncodeJournaledFile's, or
/// whose bytes decompress to more than `max_file_bytes`.
Result<JournaledFile> DecodeJournaledFile(std::string_view bytes,
                                          size_t max_file_bytes = size_t{1} << 30);

/// A journal value's location and base when it is a delta (encoding 2 or 3),
/// read from its header alone; nullopt for other values. Views into
/// `bytes`. kCorruption as DecodeJournaledFile for a damaged header.
struct JournaledDeltaHeader {
  std::string_view location;
  std::string_view base;
};
Result<std::optional<JournaledDeltaHeader>> DecodeJournaledDelta(std::string_view bytes);

/// How a location_claims entry ties a table to a location.
enum class LocationClaimKind : uint8_t { kOwns = 0, kOwnsBelow = 1 };
/// The common start of `location`'s location_claims keys: the location and
/// a NUL when it is shorter than 400 bytes, else its first 400 bytes, a NUL,
/// a 128-bit hash of the whole and a NUL (LMDB's keys end at 511 bytes).
/// Locations hold no NUL, so one location's keys never start with
/// another's prefix (unless their hashes collide).
std::string LocationClaimPrefix(std::string_view location);
/// LocationClaimPrefix(location), the kind (one byte), the table id (u64 BE).
std::string LocationClaimKey(std::string_view location, LocationClaimKind kind, uint64_t table_id);
/// The kind and table id of a location_claims key with prefix length
/// `prefix_size`; kCorruption if the key is not that long plus 9 bytes.
Result<std::pair<LocationClaimKind, uint64_t>> DecodeLocationClaimKey(std::string_view key,
                                                                      size_t prefix_size);
/// A table_locations key.
std::string TableLocationsKey(uint64_t table_id);

/// The idempotency_expiry key of a record: its expiry (u64 BE), then its key.
std::string IdempotencyExpiryKey(const IdempotencyRecord& record);
/// The record's key out of an idempotency_expiry key.
std::string_view KeyOfIdempotencyExpiryKey(std::string_view expiry_key);
/// An idempotency value: everything but the key, which is the LMDB key.
std::string EncodeIdempotencyRecord(const IdempotencyRecord& record);
Result<IdempotencyRecord> DecodeIdempotencyRecord(std::string_view key, std::string_view bytes);

std::string EncodeU64(uint64_t value);
std::optional<uint64_t> DecodeU64(std::string_view bytes);
/// Big-endian, so keys sort numerically.
void AppendBigEndian(std::string* out, uint64_t value);
uint64_t ReadBigEndian(std::string_view bytes);

std::string EncodeTableRecord(const TableRecord& record);
Result<TableRecord> DecodeTableRecord(std::string_view bytes);

std::string EncodeCommitLogRecord(const CommitLogRecord& record);
Result<CommitLogRecord> DecodeCommitLogRecord(std::string_view bytes);

/// Opaque page tokens: the hex form of the last key returned.
std::string EncodePageToken(std::string_view key);
Result<std::string> DecodePageToken(std::string_view token);

}  // namespace skade::store::lmdb
