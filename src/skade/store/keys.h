// How catalog state is laid out in LMDB — the one place that knows.
//
// Databases:
//   namespaces   key: levels joined by 0x1F            value: properties (JSON object)
//   tables       key: namespace key, 0x00, table name  value: TableRecord
//   snapshots    key: table id (u64 BE), snapshot id (u64 BE)
//                value: metadata location of the commit that added the snapshot
//   commit_log   key: commit_seq (u64 BE)              value: CommitLogRecord
//   table_changes key: LMDB txn id (u64 BE)            value: the table keys whose
//                pointers that transaction created, moved or removed (so
//                another process's in-memory mirror can catch up on exactly
//                those; see CatalogStore::ReadTablePointersChangedAfter)
//   meta         key: name                             value: u64 LE counters
//
// Names never contain 0x00 or 0x1F (ValidateName rejects control characters),
// so a namespace's children sort right after "<ns>\x1F" and its tables right
// after "<ns>\x00".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::store {

inline constexpr char kNamespaceSeparator = '\x1f';
inline constexpr char kTableSeparator = '\x00';

inline constexpr char kCommitSeqKey[] = "commit_seq";
inline constexpr char kNextTableIdKey[] = "next_table_id";

std::string NamespaceKey(const spec::Namespace& ns);
spec::Namespace NamespaceFromKey(std::string_view key);

/// The prefix shared by the keys of all tables in `ns`.
std::string TablePrefix(const spec::Namespace& ns);
std::string TableKey(const spec::TableIdentifier& identifier);
/// Appends TableKey(identifier) to `out` (lets hot paths reuse a buffer).
void AppendTableKey(std::string* out, const spec::TableIdentifier& identifier);
spec::TableIdentifier TableIdentifierFromKey(std::string_view key);

std::string SnapshotKey(uint64_t table_id, int64_t snapshot_id);
std::string CommitLogKey(uint64_t commit_seq);
std::string TableChangesKey(uint64_t txn_id);

/// A table_changes value: each key length-prefixed (u32 BE).
std::string EncodeTableKeys(const std::vector<std::string>& table_keys);
Result<std::vector<std::string>> DecodeTableKeys(std::string_view bytes);

std::string EncodeU64(uint64_t value);
std::optional<uint64_t> DecodeU64(std::string_view bytes);
/// Big-endian, so keys sort numerically.
void AppendBigEndian(std::string* out, uint64_t value);
uint64_t ReadBigEndian(std::string_view bytes);

/// A table's pointer: its stable id (kept across renames) and current
/// metadata file.
struct TableRecord {
  uint64_t table_id = 0;
  std::string metadata_location;
  bool operator==(const TableRecord&) const = default;
};

std::string EncodeTableRecord(const TableRecord& record);
Result<TableRecord> DecodeTableRecord(std::string_view bytes);

/// One entry of the append-only commit log.
struct CommitLogRecord {
  uint64_t table_id = 0;
  std::string metadata_location;
  std::vector<int64_t> added_snapshot_ids;
  bool operator==(const CommitLogRecord&) const = default;
};

std::string EncodeCommitLogRecord(const CommitLogRecord& record);
Result<CommitLogRecord> DecodeCommitLogRecord(std::string_view bytes);

/// Opaque page tokens: the hex form of the last key returned.
std::string EncodePageToken(std::string_view key);
Result<std::string> DecodePageToken(std::string_view token);

}  // namespace skade::store
