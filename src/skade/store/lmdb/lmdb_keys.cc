#include "skade/store/lmdb/lmdb_keys.h"

#include <algorithm>
#include <cstring>

#include "skade/util/copy_delta.h"
#include "skade/util/zstd.h"

namespace skade::store::lmdb {

namespace {

// Journal values (EncodeJournaledFile).
constexpr uint32_t kTaggedJournalValue = 0xFFFFFFFF;
enum class JournalEncoding : uint8_t { kRaw = 0, kZstd = 1, kZstdDelta = 2, kCopyDelta = 3 };
constexpr size_t kMinCompressedJournalBytes = 1024;
// Avro containers and Parquet files compress their own contents (blocks,
// pages): zstd saved a fifth of a manifest list at ~20 us per 10 KB on the
// committing thread (a coalesced flush journals a data file, a manifest and
// a list), more than the store pays to keep the bytes as they are.
constexpr std::string_view kAvroMagic("Obj\x01", 4);
constexpr std::string_view kParquetMagic("PAR1", 4);
// Level 1: the fastest of zstd's regular levels; higher ones cost the
// committing thread more than they save the disk.
constexpr int kJournalZstdLevel = 1;
// Against a base nearly everything is one long match, which zstd's fast
// negative levels find as well as level 1 does (715 vs 355 bytes for a
// 796 KB metadata file), at half its cost (360 vs 742 us). Only for files
// whose copy delta is not small.
constexpr int kJournalDeltaLevel = -3;
// A copy delta is kept when at most 1/8 of the file is new bytes (kept raw);
// it costs a sixth of zstd's delta (34 vs 210 us for a 418 KB metadata
// file, 467 vs 233 bytes), and a file with more new bytes is better left to
// zstd, which compresses them.
constexpr size_t kMaxCopyDeltaInsertShare = 8;

constexpr uint8_t kRecordVersion = 1;
// Commit-log records from version 2 on carry their commit time.
constexpr uint8_t kTimedCommitLogVersion = 2;
// From version 3 on they name their table, kind, snapshot operations and
// origins; strings are length-prefixed.
constexpr uint8_t kAttributedCommitLogVersion = 3;

// LMDB's default largest key is 511 bytes; longer locations are cut here and
// told apart by a hash.
constexpr size_t kMaxInlineJournalKey = 400;

uint64_t Fnv1a(std::string_view bytes, uint64_t seed) {
  uint64_t hash = seed;
  for (char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void AppendU32(std::string* out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}

uint32_t ReadU32(std::string_view bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

void AppendLengthPrefixed(std::string* out, std::string_view bytes) {
  AppendU32(out, static_cast<uint32_t>(bytes.size()));
  out->append(bytes);
}

// Takes a length-prefixed field off the front of `bytes`; false if truncated.
bool ConsumeLengthPrefixed(std::string_view* bytes, std::string_view* field) {
  if (bytes->size() < 4) return false;
  uint32_t size = ReadU32(*bytes);
  if (bytes->size() - 4 < size) return false;
  *field = bytes->substr(4, size);
  bytes->remove_prefix(4 + size);
  return true;
}

// Takes a length-prefixed field off the front of `bytes` into `out`.
bool ConsumeString(std::string_view* bytes, std::string* out) {
  std::string_view field;
  if (!ConsumeLengthPrefixed(bytes, &field)) return false;
  *out = std::string(field);
  return true;
}

// Takes a u32 off the front of `bytes`; false if truncated.
bool ConsumeU32(std::string_view* bytes, uint32_t* value) {
  if (bytes->size() < 4) return false;
  *value = ReadU32(*bytes);
  bytes->remove_prefix(4);
  return true;
}

}  // namespace

void AppendBigEndian(std::string* out, uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}

uint64_t ReadBigEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8 && i < bytes.size(); ++i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return value;
}

std::string SnapshotKey(uint64_t table_id, int64_t snapshot_id) {
  std::string key;
  AppendBigEndian(&key, table_id);
  AppendBigEndian(&key, static_cast<uint64_t>(snapshot_id));
  return key;
}

std::string CommitLogKey(uint64_t commit_seq) {
  std::string key;
  AppendBigEndian(&key, commit_seq);
  return key;
}

std::string TableChangesKey(uint64_t txn_id) {
  std::string key;
  AppendBigEndian(&key, txn_id);
  return key;
}

std::string JournalKey(std::string_view location) {
  if (location.size() <= kMaxInlineJournalKey) return std::string(location);
  std::string key(location.substr(0, kMaxInlineJournalKey));
  key.push_back('\0');
  AppendBigEndian(&key, Fnv1a(location, 0xcbf29ce484222325ull));
  AppendBigEndian(&key, Fnv1a(location, 0x84222325cbf29ce4ull));
  return key;
}

// A delta as it follows the location: the copy delta (encoding 3) when the
// file is mostly its base, else a zstd frame against it (encoding 2); empty
// when the base does not make it smaller than the contents.
std::string EncodeDelta(const JournaledFile& file, JournalEncoding* encoding) {
  const std::string& base = *file.base->text;
  std::string_view contents = file.bytes();
  const size_t max_insert = contents.size() / kMaxCopyDeltaInsertShare;
  std::string delta = file.base->copied.empty()
                          ? EncodeCopyDelta(base, contents, max_insert)
                          : EncodeCopyDeltaAlong(base, contents, file.base->copied, max_insert);
  *encoding = JournalEncoding::kCopyDelta;
  if (delta.empty()) {
    delta = ZstdCompressWithPrefix(contents, base, kJournalDeltaLevel);
    *encoding = JournalEncoding::kZstdDelta;
  }
  if (delta.empty() || delta.size() >= contents.size()) return {};
  std::string out;
  out.reserve(20 + file.base->location.size() + delta.size());
  AppendLengthPrefixed(&out, file.base->location);
  AppendBigEndian(&out, contents.size());
  AppendBigEndian(&out, JournalHash(contents));
  out.append(delta);
  return out;
}

std::string EncodeJournaledFile(const JournaledFile& file) {
  auto encoding = JournalEncoding::kRaw;
  std::string encoded;
  std::string_view contents = file.bytes();
  bool self_compressed = contents.starts_with(kAvroMagic) || contents.starts_with(kParquetMagic);
  if (contents.size() >= kMinCompressedJournalBytes && !self_compressed) {
    if (file.base && file.base->text) {
      JournalEncoding delta_encoding;
      encoded = EncodeDelta(file, &delta_encoding);
      if (!encoded.empty()) encoding = delta_encoding;
    }
    if (encoding == JournalEncoding::kRaw) {
      encoded = ZstdCompress(contents, kJournalZstdLevel);
      if (!encoded.empty() && encoded.size() < contents.size()) {
        encoding = JournalEncoding::kZstd;
      }
    }
  }
  // Small files gain too little to pay the frame and the call; Avro and
  // Parquet files, and incompressible ones, are kept as they are.
  std::string_view payload = encoding == JournalEncoding::kRaw ? contents : encoded;
  std::string out;
  out.reserve(9 + file.location.size() + payload.size());
  AppendU32(&out, kTaggedJournalValue);
  out.push_back(static_cast<char>(encoding));
  AppendLengthPrefixed(&out, file.location);
  out.append(payload);
  return out;
}

namespace {

tl::unexpected<Error> InvalidJournalValue() {
  return Corruption("Invalid journaled file in the catalog store");
}

bool IsDelta(JournalEncoding encoding) {
  return encoding == JournalEncoding::kZstdDelta || encoding == JournalEncoding::kCopyDelta;
}

// A journal value's header: its encoding and location, consumed from
// `*bytes` (which keeps the rest); a delta's base too.
struct JournalHeader {
  JournalEncoding encoding = JournalEncoding::kRaw;
  std::string_view location;
  std::string_view base;  // deltas only
};

Result<JournalHeader> ConsumeJournalHeader(std::string_view* bytes) {
  JournalHeader header;
  if (bytes->size() >= 5 && ReadU32(*bytes) == kTaggedJournalValue) {
    header.encoding = static_cast<JournalEncoding>((*bytes)[4]);
    if (header.encoding != JournalEncoding::kRaw && header.encoding != JournalEncoding::kZstd &&
        !IsDelta(header.encoding)) {
      return InvalidJournalValue();
    }
    bytes->remove_prefix(5);
  }
  if (!ConsumeLengthPrefixed(bytes, &header.location)) return InvalidJournalValue();
  if (IsDelta(header.encoding) &&
      (!ConsumeLengthPrefixed(bytes, &header.base) || bytes->size() <= 16)) {
    return InvalidJournalValue();
  }
  return header;
}

}  // namespace

Result<JournaledFile> DecodeJournaledFile(std::string_view bytes, size_t max_file_bytes) {
  SKADE_ASSIGN_OR_RAISE(JournalHeader header, ConsumeJournalHeader(&bytes));
  std::string location(header.location);
  switch (header.encoding) {
    case JournalEncoding::kRaw:
      if (bytes.size() > max_file_bytes) return InvalidJournalValue();
      return JournaledFile{std::move(location), std::make_shared<const std::string>(bytes)};
    case JournalEncoding::kZstdDelta:
    case JournalEncoding::kCopyDelta: {
      // Kept as it is: expanding it takes the base (DeltaContents).
      JournaledFile::Delta delta{header.encoding == JournalEncoding::kCopyDelta
                                     ? JournaledFile::Delta::Format::kCopy
                                     : JournaledFile::Delta::Format::kZstd,
                                 std::string(bytes.substr(16)), ReadBigEndian(bytes.substr(0, 8)),
                                 ReadBigEndian(bytes.substr(8, 8))};
      if (delta.size > max_file_bytes) return InvalidJournalValue();
      return JournaledFile{std::move(location),
                           {},
                           JournalBase{std::string(header.base), nullptr, {}},
                           std::move(delta)};
    }
    case JournalEncoding::kZstd:
      break;
  }
  auto contents = ZstdDecompress(bytes, max_file_bytes);
  if (!contents) {
    return Corruption("Invalid journaled file ", location,
                      " in the catalog store: ", contents.error().message);
  }
  return JournaledFile{std::move(location),
                       std::make_shared<const std::string>(std::move(*contents))};
}

Result<std::optional<JournaledDeltaHeader>> DecodeJournaledDelta(std::string_view bytes) {
  SKADE_ASSIGN_OR_RAISE(JournalHeader header, ConsumeJournalHeader(&bytes));
  if (!IsDelta(header.encoding)) return std::nullopt;
  return JournaledDeltaHeader{header.location, header.base};
}

std::string IdempotencyExpiryKey(const IdempotencyRecord& record) {
  std::string key;
  AppendBigEndian(&key, static_cast<uint64_t>(record.expires_at_ms));
  key.append(record.key);
  return key;
}

std::string_view KeyOfIdempotencyExpiryKey(std::string_view expiry_key) {
  return expiry_key.size() < 8 ? std::string_view() : expiry_key.substr(8);
}

std::string EncodeIdempotencyRecord(const IdempotencyRecord& record) {
  std::string out;
  out.push_back(static_cast<char>(kRecordVersion));
  AppendBigEndian(&out, static_cast<uint64_t>(record.created_at_ms));
  AppendBigEndian(&out, static_cast<uint64_t>(record.expires_at_ms));
  AppendU32(&out, static_cast<uint32_t>(record.status));
  AppendLengthPrefixed(&out, record.fingerprint);
  // No table is an empty field (TableKey of an empty identifier is not).
  bool has_table = !record.table.name.empty();
  AppendLengthPrefixed(&out, has_table ? TableKey(record.table) : std::string());
  AppendLengthPrefixed(&out, record.metadata_location);
  // The rest: the body, or for a table-shaped answer (which has none) the
  // table's uuid — so records written before the uuid was kept still decode.
  out.append(record.metadata_location.empty() ? record.body : record.table_uuid);
  return out;
}

Result<IdempotencyRecord> DecodeIdempotencyRecord(std::string_view key, std::string_view bytes) {
  auto invalid = [] { return Corruption("Invalid idempotency record in the catalog store"); };
  if (bytes.size() < 21 || static_cast<uint8_t>(bytes[0]) != kRecordVersion) return invalid();
  IdempotencyRecord record;
  record.key = std::string(key);
  record.created_at_ms = static_cast<int64_t>(ReadBigEndian(bytes.substr(1, 8)));
  record.expires_at_ms = static_cast<int64_t>(ReadBigEndian(bytes.substr(9, 8)));
  record.status = static_cast<int>(ReadU32(bytes.substr(17, 4)));
  bytes.remove_prefix(21);
  std::string_view fingerprint, table, location;
  if (!ConsumeLengthPrefixed(&bytes, &fingerprint) || !ConsumeLengthPrefixed(&bytes, &table) ||
      !ConsumeLengthPrefixed(&bytes, &location)) {
    return invalid();
  }
  record.fingerprint = std::string(fingerprint);
  if (!table.empty()) record.table = TableIdentifierFromKey(table);
  record.metadata_location = std::string(location);
  (record.metadata_location.empty() ? record.body : record.table_uuid) = std::string(bytes);
  return record;
}

std::string EncodeStringList(const std::vector<std::string>& strings) {
  std::string out;
  for (const auto& string : strings) AppendLengthPrefixed(&out, string);
  return out;
}

Result<std::vector<std::string>> DecodeStringList(std::string_view bytes, std::string_view what) {
  std::vector<std::string> strings;
  while (!bytes.empty()) {
    std::string_view string;
    if (!ConsumeLengthPrefixed(&bytes, &string)) {
      return Corruption("Invalid ", what, " in the catalog store");
    }
    strings.emplace_back(string);
  }
  return strings;
}

std::string LocationClaimPrefix(std::string_view location) {
  // Strictly shorter than the cut, so an inline prefix never equals the
  // first bytes of a cut one.
  std::string prefix(location.substr(0, kMaxInlineJournalKey));
  prefix.push_back('\0');
  if (location.size() < kMaxInlineJournalKey) return prefix;
  AppendBigEndian(&prefix, Fnv1a(location, 0xcbf29ce484222325ull));
  AppendBigEndian(&prefix, Fnv1a(location, 0x84222325cbf29ce4ull));
  prefix.push_back('\0');
  return prefix;
}

std::string LocationClaimKey(std::string_view location, LocationClaimKind kind, uint64_t table_id) {
  std::string key = LocationClaimPrefix(location);
  key.push_back(static_cast<char>(kind));
  AppendBigEndian(&key, table_id);
  return key;
}

Result<std::pair<LocationClaimKind, uint64_t>> DecodeLocationClaimKey(std::string_view key,
                                                                      size_t prefix_size) {
  if (key.size() != prefix_size + 9)
    return Corruption("Invalid location claim in the catalog store");
  return std::pair{static_cast<LocationClaimKind>(key[prefix_size]),
                   ReadBigEndian(key.substr(prefix_size + 1))};
}

std::string TableLocationsKey(uint64_t table_id) {
  std::string key;
  AppendBigEndian(&key, table_id);
  return key;
}

std::string EncodeU64(uint64_t value) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &value, 8);
  return out;
}

std::optional<uint64_t> DecodeU64(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  uint64_t value;
  std::memcpy(&value, bytes.data(), 8);
  return value;
}

std::string EncodeTableRecord(const TableRecord& record) {
  std::string out;
  out.push_back(static_cast<char>(kRecordVersion));
  AppendBigEndian(&out, record.table_id);
  out.append(record.metadata_location);
  return out;
}

Result<TableRecord> DecodeTableRecord(std::string_view bytes) {
  if (bytes.size() < 9 || static_cast<uint8_t>(bytes[0]) != kRecordVersion) {
    return Corruption("Invalid table record in the catalog store");
  }
  return TableRecord{ReadBigEndian(bytes.substr(1, 8)), std::string(bytes.substr(9))};
}

std::string EncodeCommitLogRecord(const CommitLogRecord& record) {
  std::string out;
  out.push_back(static_cast<char>(kAttributedCommitLogVersion));
  AppendBigEndian(&out, record.table_id);
  AppendBigEndian(&out, static_cast<uint64_t>(record.committed_at_ms));
  AppendBigEndian(&out, record.added_snapshot_ids.size());
  for (int64_t id : record.added_snapshot_ids) AppendBigEndian(&out, static_cast<uint64_t>(id));
  out.push_back(static_cast<char>(record.kind));
  AppendLengthPrefixed(&out, record.metadata_location);
  // Records of no table name (tests; older callers) keep it empty.
  AppendLengthPrefixed(&out, record.identifier == spec::TableIdentifier{}
                                 ? std::string()
                                 : TableKey(record.identifier));
  AppendU32(&out, static_cast<uint32_t>(record.snapshot_operations.size()));
  for (const auto& operation : record.snapshot_operations) AppendLengthPrefixed(&out, operation);
  AppendU32(&out, static_cast<uint32_t>(record.origins.size()));
  for (const auto& origin : record.origins) {
    AppendLengthPrefixed(&out, origin.requester);
    AppendLengthPrefixed(&out, origin.request_id);
  }
  return out;
}

Result<CommitLogRecord> DecodeCommitLogRecord(std::string_view bytes) {
  const auto invalid = [] { return Corruption("Invalid commit log record in the catalog store"); };
  uint8_t version = bytes.empty() ? 0 : static_cast<uint8_t>(bytes[0]);
  bool timed = version >= kTimedCommitLogVersion;
  size_t header = timed ? 25 : 17;
  if (version < kRecordVersion || version > kAttributedCommitLogVersion || bytes.size() < header) {
    return invalid();
  }
  CommitLogRecord record;
  record.table_id = ReadBigEndian(bytes.substr(1, 8));
  if (timed) record.committed_at_ms = static_cast<int64_t>(ReadBigEndian(bytes.substr(9, 8)));
  uint64_t count = ReadBigEndian(bytes.substr(header - 8, 8));
  if (count > (bytes.size() - header) / 8) return invalid();
  record.added_snapshot_ids.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    record.added_snapshot_ids.push_back(
        static_cast<int64_t>(ReadBigEndian(bytes.substr(header + 8 * i, 8))));
  }
  std::string_view rest = bytes.substr(header + 8 * count);
  if (version < kAttributedCommitLogVersion) {
    record.metadata_location = std::string(rest);
    return record;
  }
  if (rest.empty() || static_cast<uint8_t>(rest[0]) > static_cast<uint8_t>(CommitKind::kRegister)) {
    return invalid();
  }
  record.kind = static_cast<CommitKind>(rest[0]);
  rest.remove_prefix(1);
  std::string table_key;
  uint32_t operations = 0;
  if (!ConsumeString(&rest, &record.metadata_location) || !ConsumeString(&rest, &table_key) ||
      !ConsumeU32(&rest, &operations) || operations > rest.size() / 4) {
    return invalid();
  }
  if (!table_key.empty()) record.identifier = TableIdentifierFromKey(table_key);
  record.snapshot_operations.resize(operations);
  for (auto& operation : record.snapshot_operations) {
    if (!ConsumeString(&rest, &operation)) return invalid();
  }
  uint32_t origins = 0;
  if (!ConsumeU32(&rest, &origins) || origins > rest.size() / 8) return invalid();
  record.origins.resize(origins);
  for (auto& origin : record.origins) {
    if (!ConsumeString(&rest, &origin.requester) || !ConsumeString(&rest, &origin.request_id)) {
      return invalid();
    }
  }
  if (!rest.empty()) return invalid();
  return record;
}

std::string TableHistoryKey(uint64_t table_id, int64_t committed_at_ms, uint64_t commit_seq) {
  std::string key;
  key.reserve(24);
  AppendBigEndian(&key, table_id);
  AppendBigEndian(&key, static_cast<uint64_t>(std::max<int64_t>(committed_at_ms, 0)));
  AppendBigEndian(&key, commit_seq);
  return key;
}

std::pair<uint64_t, uint64_t> DecodeTableHistoryKey(std::string_view key) {
  return {ReadBigEndian(key.substr(0, 8)), ReadBigEndian(key.substr(16, 8))};
}

std::string EncodePageToken(std::string_view key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

Result<std::string> DecodePageToken(std::string_view token) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (token.size() % 2 != 0) return InvalidArgument("Invalid page token: ", token);
  std::string out;
  for (size_t i = 0; i < token.size(); i += 2) {
    int hi = nibble(token[i]);
    int lo = nibble(token[i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgument("Invalid page token: ", token);
    out.push_back(static_cast<char>((hi << 4) | lo));
  }
  return out;
}

}  // namespace skade::store::lmdb
