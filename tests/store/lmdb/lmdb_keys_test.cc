#include "skade/store/lmdb/lmdb_keys.h"

#include <gtest/gtest.h>

#include "skade/util/zstd.h"
#include "testing/matchers.h"

namespace skade::store::lmdb {
namespace {

std::shared_ptr<const std::string> Shared(std::string bytes) {
  return std::make_shared<const std::string>(std::move(bytes));
}

using testing::IsError;
using testing::IsOk;

TEST(KeysTest, BigEndianKeysSortNumerically) {
  EXPECT_LT(CommitLogKey(255), CommitLogKey(256));
  EXPECT_LT(SnapshotKey(1, 5), SnapshotKey(2, 1));
  EXPECT_EQ(ReadBigEndian(CommitLogKey(0x0102030405060708)), 0x0102030405060708u);
}

TEST(KeysTest, RecordsRoundTrip) {
  TableRecord table{42, "file:///w/ns/t/metadata/00001-x.metadata.json"};
  EXPECT_EQ(*DecodeTableRecord(EncodeTableRecord(table)), table);
  CommitLogRecord commit{7, "file:///m.json", {1, -2, 9007199254740993}};
  EXPECT_EQ(*DecodeCommitLogRecord(EncodeCommitLogRecord(commit)), commit);
  EXPECT_THAT(DecodeTableRecord("x"), IsError(ErrorKind::kCorruption));
  std::string truncated = EncodeCommitLogRecord(commit).substr(0, 20);
  EXPECT_THAT(DecodeCommitLogRecord(truncated), IsError(ErrorKind::kCorruption));

  // What the change feed reads: the table's name, kind, operations, origins.
  CommitLogRecord attributed{8,
                             "file:///w/a/b/t/metadata/00002-y.metadata.json",
                             {5, 6},
                             1'700'000'000'000,
                             {{"a", "b"}, "t"},
                             CommitKind::kCreate,
                             {"append", "overwrite"},
                             {{"spark-etl", "req-1"}, {"", "req-2"}}};
  const std::string encoded = EncodeCommitLogRecord(attributed);
  EXPECT_EQ(*DecodeCommitLogRecord(encoded), attributed);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    EXPECT_THAT(DecodeCommitLogRecord(encoded.substr(0, cut)), IsError(ErrorKind::kCorruption))
        << cut;
  }
  EXPECT_THAT(DecodeCommitLogRecord(encoded + "x"), IsError(ErrorKind::kCorruption));
}

TEST(KeysTest, CommitLogRecordsOfEarlierVersionsStillDecode) {
  // Version 2 (timed, location to the end) as stores before the change feed
  // wrote it.
  std::string v2(1, '\x02');
  AppendBigEndian(&v2, 3);
  AppendBigEndian(&v2, 1'600'000'000'000);
  AppendBigEndian(&v2, 1);
  AppendBigEndian(&v2, 77);
  v2 += "file:///m2.json";
  CommitLogRecord expected{3, "file:///m2.json", {77}, 1'600'000'000'000};
  EXPECT_EQ(*DecodeCommitLogRecord(v2), expected);
}

TEST(KeysTest, IdempotencyRecordsRoundTripAndSortByExpiry) {
  IdempotencyRecord record;
  record.key = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  record.fingerprint = "00112233445566778899aabbccddeeff";
  record.status = 200;
  record.table = {{"a", "b"}, "t"};
  record.metadata_location = "file:///w/a/b/t/metadata/00002-y.metadata.json";
  record.created_at_ms = 1'700'000'000'000;
  record.expires_at_ms = 1'700'000'001'800;
  IdempotencyRecord without_uuid = record;  // as written before the uuid was kept
  EXPECT_EQ(*DecodeIdempotencyRecord(record.key, EncodeIdempotencyRecord(without_uuid)),
            without_uuid);
  record.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  EXPECT_EQ(*DecodeIdempotencyRecord(record.key, EncodeIdempotencyRecord(record)), record);
  IdempotencyRecord body_only = record;
  body_only.table = {};
  body_only.metadata_location.clear();
  body_only.table_uuid.clear();  // only a table answer has one
  body_only.status = 409;
  body_only.body = R"({"error":{"code":409}})";
  EXPECT_EQ(*DecodeIdempotencyRecord(record.key, EncodeIdempotencyRecord(body_only)), body_only);
  std::string truncated = EncodeIdempotencyRecord(record).substr(0, 30);
  EXPECT_THAT(DecodeIdempotencyRecord(record.key, truncated), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(DecodeIdempotencyRecord(record.key, "x"), IsError(ErrorKind::kCorruption));

  IdempotencyRecord later = record;
  later.key = "000";
  later.expires_at_ms = record.expires_at_ms + 1;
  EXPECT_LT(IdempotencyExpiryKey(record), IdempotencyExpiryKey(later));
  EXPECT_EQ(KeyOfIdempotencyExpiryKey(IdempotencyExpiryKey(record)), record.key);
}

TEST(KeysTest, PageTokensRoundTripAndRejectGarbage) {
  std::string key(
      "a\x1f"
      "b\x00"
      "c",
      5);
  EXPECT_EQ(*DecodePageToken(EncodePageToken(key)), key);
  EXPECT_THAT(DecodePageToken("zz"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(DecodePageToken("abc"), IsError(ErrorKind::kInvalidArgument));
}

TEST(KeysTest, JournaledFilesAreStoredCompressed) {
  std::string metadata;
  for (int i = 0; i < 500; ++i) {
    metadata += "{\"snapshot-id\": " + std::to_string(1000003 * i) +
                ", \"manifest-list\": \"file:///w/ns/t/metadata/snap.avro\"},";
  }
  JournaledFile file{"file:///w/ns/t/metadata/00007-x.metadata.json", Shared(metadata)};
  const std::string value = EncodeJournaledFile(file);
  EXPECT_LT(value.size(), metadata.size() / 5);
  EXPECT_EQ(*DecodeJournaledFile(value), file);

  // Small or incompressible files are kept as they are.
  JournaledFile small{"file:///w/a.avro", Shared("tiny")};
  EXPECT_EQ(*DecodeJournaledFile(EncodeJournaledFile(small)), small);
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise.push_back(static_cast<char>((i * 2654435761u) >> 13));
  JournaledFile incompressible{"file:///w/b.avro", Shared(noise)};
  const std::string raw = EncodeJournaledFile(incompressible);
  EXPECT_LE(raw.size(), noise.size() + 64);
  EXPECT_EQ(*DecodeJournaledFile(raw), incompressible);

  // Avro and Parquet files compress their own contents: kept as they are,
  // even when zstd would shrink them (a manifest's header is JSON).
  for (std::string magic : {std::string("Obj\x01", 4), std::string("PAR1")}) {
    JournaledFile container{"file:///w/ns/t/metadata/m.avro", Shared(magic + metadata)};
    const std::string kept = EncodeJournaledFile(container);
    EXPECT_GE(kept.size(), container.bytes().size()) << magic;
    EXPECT_EQ(*DecodeJournaledFile(kept), container);
  }
}

TEST(KeysTest, AFileWithABaseIsStoredAsItsDifference) {
  std::string base;
  for (int i = 0; i < 2000; ++i) {
    base += "{\"snapshot-id\": " + std::to_string(1000003 * i) +
            ", \"manifest-list\": \"file:///w/ns/t/metadata/snap.avro\"},";
  }
  // The next version: a field near the start changed, one entry appended.
  std::string next = base;
  next.replace(10, 7, "7777777");
  next += "{\"snapshot-id\": 42}";
  auto base_text = std::make_shared<const std::string>(base);
  JournaledFile file{"file:///w/ns/t/metadata/00008-y.metadata.json", Shared(next),
                     JournalBase{"file:///w/ns/t/metadata/00007-x.metadata.json", base_text}};
  const std::string value = EncodeJournaledFile(file);
  EXPECT_LT(value.size(), 400u) << "whole: "
                                << EncodeJournaledFile({file.location, Shared(next)}).size();

  auto decoded = DecodeJournaledFile(value);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(decoded->location, file.location);
  EXPECT_TRUE(decoded->bytes().empty());
  ASSERT_TRUE(decoded->base && decoded->delta);
  EXPECT_EQ(decoded->delta->format, JournaledFile::Delta::Format::kCopy);
  EXPECT_EQ(decoded->base->location, file.base->location);
  EXPECT_EQ(decoded->size(), next.size());
  EXPECT_TRUE(Holds(*decoded, next));
  EXPECT_FALSE(Holds(*decoded, base));
  EXPECT_FALSE(Holds(*decoded, next.substr(0, next.size() - 1)));
  EXPECT_EQ(*DeltaContents(*decoded, base), next);
  // Against another text whose bytes differ where the file's are copied
  // from, the recorded hash (or size) fails: never other bytes.
  std::string other = base;
  other[base.size() / 2] ^= 1;
  EXPECT_THAT(DeltaContents(*decoded, other), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(DeltaContents(*decoded, std::string(base.size(), 'z')),
              IsError(ErrorKind::kCorruption));
  EXPECT_THAT(DeltaContents(*decoded, ""), IsError(ErrorKind::kCorruption));
  // Damage to the sizes or the delta is caught too.
  for (size_t at : {value.size() - 30, value.size() - 5}) {
    std::string damaged = value;
    damaged[at] ^= 0x21;
    auto read = DecodeJournaledFile(damaged);
    if (read) {
      EXPECT_THAT(DeltaContents(*read, base), IsError(ErrorKind::kCorruption)) << at;
    }
  }

  // A base that shares nothing makes no larger a value than the file kept
  // whole; small files are kept whole.
  std::string noise;
  uint64_t state = 88172645463325252ull;
  for (int i = 0; i < 4096; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    noise.push_back(static_cast<char>(state));
  }
  JournaledFile unrelated{"file:///w/c.json", Shared(noise),
                          JournalBase{"file:///w/b.json", base_text}};
  const std::string unrelated_value = EncodeJournaledFile(unrelated);
  EXPECT_LE(unrelated_value.size(), noise.size() + 64);
  auto kept = DecodeJournaledFile(unrelated_value);
  ASSERT_THAT(kept, IsOk());
  EXPECT_FALSE(kept->delta);
  EXPECT_EQ(kept->bytes(), noise);
  JournaledFile small{"file:///w/d.json", Shared("{}"), JournalBase{"file:///w/b.json", base_text}};
  EXPECT_FALSE(DecodeJournaledFile(EncodeJournaledFile(small))->delta);

  // The base's bytes in another order, in pieces shorter than a copy
  // delta's blocks: zstd's delta finds them.
  std::string shuffled;
  for (size_t piece = 0; piece * 16 + 16 <= base.size(); piece += 7) {
    shuffled += base.substr((piece * 16 * 13) % (base.size() - 16), 16);
  }
  JournaledFile reordered{"file:///w/e.json", Shared(shuffled),
                          JournalBase{"file:///w/b.json", base_text}};
  auto zstd_delta = DecodeJournaledFile(EncodeJournaledFile(reordered));
  ASSERT_THAT(zstd_delta, IsOk());
  ASSERT_TRUE(zstd_delta->delta);
  EXPECT_EQ(zstd_delta->delta->format, JournaledFile::Delta::Format::kZstd);
  EXPECT_EQ(*DeltaContents(*zstd_delta, base), shuffled);
}

// A base with the runs its writer copied (the catalog passes the metadata
// serializer's): those are copies in the delta, the rest found around them.
TEST(KeysTest, AFileWithCopiedRunsIsStoredAsItsDifference) {
  std::string header = "{\"format-version\": 2, \"last-updated-ms\": 1796432270948, ";
  std::string entries;
  for (int i = 0; i < 2000; ++i) {
    entries += "{\"snapshot-id\": " + std::to_string(1000003 * i) + "},";
  }
  const std::string base = header + entries + "]}";
  std::string next_header = header;
  next_header.replace(40, 7, "7777777");
  const std::string next = next_header + entries + "{\"snapshot-id\": 42}]}";
  JournalBase journal_base{"file:///w/b.json",
                           std::make_shared<const std::string>(base),
                           {{next_header.size(), header.size(), entries.size()}}};
  JournaledFile file{"file:///w/n.json", Shared(next), journal_base};
  const std::string value = EncodeJournaledFile(file);
  EXPECT_LT(value.size(), 400u);
  auto decoded = DecodeJournaledFile(value);
  ASSERT_THAT(decoded, IsOk());
  ASSERT_TRUE(decoded->delta);
  EXPECT_EQ(decoded->delta->format, JournaledFile::Delta::Format::kCopy);
  EXPECT_EQ(*DeltaContents(*decoded, base), next);
}

TEST(KeysTest, JournalValuesOfEarlierVersionsStillDecode) {
  // Before compression: the location (u32 BE length), then the bytes.
  std::string location = "file:///w/ns/t/metadata/00001-y.metadata.json";
  std::string legacy;
  for (int shift = 24; shift >= 0; shift -= 8) {
    legacy.push_back(static_cast<char>((location.size() >> shift) & 0xFF));
  }
  legacy += location + "{\"format-version\": 2}";
  auto decoded = DecodeJournaledFile(legacy);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->location, location);
  EXPECT_EQ(decoded->bytes(), "{\"format-version\": 2}");

  // A delta as one zstd frame against its base (encoding 2), as every delta
  // was before copy deltas.
  const std::string base = std::string(3000, 'b') + "{\"format-version\": 2}";
  const std::string next = std::string(3000, 'b') + "{\"format-version\": 3}";
  const std::string base_location = "file:///w/ns/t/metadata/00000-x.metadata.json";
  std::string zstd_delta = "\xff\xff\xff\xff\x02";
  for (std::string_view text : {std::string_view(location), std::string_view(base_location)}) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      zstd_delta.push_back(static_cast<char>((text.size() >> shift) & 0xFF));
    }
    zstd_delta += text;
  }
  for (uint64_t field : {uint64_t{next.size()}, JournalHash(next)}) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      zstd_delta.push_back(static_cast<char>((field >> shift) & 0xFF));
    }
  }
  zstd_delta += ZstdCompressWithPrefix(next, base, 1);
  auto delta = DecodeJournaledFile(zstd_delta);
  ASSERT_THAT(delta, IsOk());
  ASSERT_TRUE(delta->delta && delta->base);
  EXPECT_EQ(delta->delta->format, JournaledFile::Delta::Format::kZstd);
  EXPECT_EQ(delta->base->location, base_location);
  EXPECT_EQ(*DeltaContents(*delta, base), next);
}

TEST(KeysTest, DamagedJournalValuesAreCorruption) {
  JournaledFile file{"file:///w/m.json", Shared(std::string(64 << 10, 'm'))};
  const std::string value = EncodeJournaledFile(file);
  for (size_t cut : {size_t{3}, size_t{7}, value.size() / 2, value.size() - 1}) {
    EXPECT_THAT(DecodeJournaledFile(value.substr(0, cut)), IsError(ErrorKind::kCorruption)) << cut;
  }
  std::string unknown_encoding = value;
  unknown_encoding[4] = 9;
  EXPECT_THAT(DecodeJournaledFile(unknown_encoding), IsError(ErrorKind::kCorruption));
  std::string garbled = value;
  garbled[garbled.size() - 6] ^= 0x41;
  EXPECT_THAT(DecodeJournaledFile(garbled), IsError(ErrorKind::kCorruption));
  // More than the caller's bound, compressed or not.
  EXPECT_THAT(DecodeJournaledFile(value, 1 << 10), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(DecodeJournaledFile(EncodeJournaledFile({"file:///w/s", Shared("0123456789")}), 4),
              IsError(ErrorKind::kCorruption));
}

}  // namespace
}  // namespace skade::store::lmdb
