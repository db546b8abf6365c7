#include "skade/util/copy_delta.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;

// A metadata file's shape: a header, then many alike entries, then a log.
std::string Metadata(int snapshots, int64_t updated_ms) {
  std::string text = "{\"format-version\": 2, \"last-updated-ms\": " + std::to_string(updated_ms) +
                     ", \"snapshots\": [";
  for (int i = 0; i < snapshots; ++i) {
    text += "{\"snapshot-id\": " + std::to_string(1000003 * i) +
            ", \"summary\": {\"operation\": \"append\"}, \"manifest-list\": "
            "\"file:///w/ns/t/metadata/snap.avro\"},";
  }
  text += "], \"metadata-log\": [";
  for (int i = std::max(0, snapshots - 100); i < snapshots; ++i) {
    text += "{\"metadata-file\": \"file:///w/ns/t/metadata/" + std::to_string(i) + ".json\"},";
  }
  return text + "]}";
}

std::string Rebuilt(std::string_view delta, std::string_view base, size_t size) {
  auto rebuilt = ApplyCopyDelta(delta, base, size);
  EXPECT_TRUE(rebuilt) << rebuilt.error().ToString();
  return rebuilt ? *rebuilt : std::string();
}

TEST(CopyDeltaTest, ANextMetadataVersionIsAFewHundredBytes) {
  // The next version: a field near the start changed, a snapshot appended,
  // the log's first entry dropped and one appended.
  const std::string base = Metadata(1000, 1796432270948);
  const std::string next = Metadata(1001, 1796432271003);
  std::string delta = EncodeCopyDelta(base, next, next.size() / 8);
  ASSERT_FALSE(delta.empty());
  EXPECT_LT(delta.size(), 600u);
  EXPECT_EQ(Rebuilt(delta, base, next.size()), next);
}

TEST(CopyDeltaTest, ALongHistorysNextVersionIsStillSmall) {
  // A base of megabytes is indexed at a stride of blocks: the delta stays a
  // few hundred bytes per edit, the edits' own bytes and some around them.
  const std::string base = Metadata(10000, 1796432270948);
  const std::string next = Metadata(10001, 1796432271003);
  ASSERT_GT(base.size(), 1u << 20);
  std::string delta = EncodeCopyDelta(base, next, next.size() / 8);
  ASSERT_FALSE(delta.empty());
  EXPECT_LT(delta.size(), 2000u);
  EXPECT_EQ(Rebuilt(delta, base, next.size()), next);
}

TEST(CopyDeltaTest, EqualTextsAreOneCopy) {
  const std::string text = Metadata(10, 1);
  std::string delta = EncodeCopyDelta(text, text, 0);
  EXPECT_LE(delta.size(), 4u);
  EXPECT_EQ(Rebuilt(delta, text, text.size()), text);
  // An empty target is an empty delta.
  EXPECT_EQ(EncodeCopyDelta(text, "", 0), "");
  EXPECT_EQ(Rebuilt("", text, 0), "");
}

TEST(CopyDeltaTest, ARunOfRepeatedBytesIsCopiedWhole) {
  const std::string base(1 << 20, 'x');
  const std::string target = "y" + base + "z";
  std::string delta = EncodeCopyDelta(base, target, target.size() / 8);
  EXPECT_LT(delta.size(), 32u);
  EXPECT_EQ(Rebuilt(delta, base, target.size()), target);
}

TEST(CopyDeltaTest, StopsWhenMoreIsNewThanAllowed) {
  const std::string base = Metadata(100, 1);
  std::string noise;
  std::mt19937_64 random(7);
  for (int i = 0; i < 8192; ++i) noise.push_back(static_cast<char>(random()));
  EXPECT_EQ(EncodeCopyDelta(base, noise, noise.size() / 8), "");
  // Allowed, it is one insert of the whole.
  std::string whole = EncodeCopyDelta(base, noise, noise.size());
  EXPECT_LE(whole.size(), noise.size() + 4);
  EXPECT_EQ(Rebuilt(whole, base, noise.size()), noise);
  EXPECT_EQ(Rebuilt(EncodeCopyDelta("", noise, noise.size()), "", noise.size()), noise);
}

TEST(CopyDeltaTest, RandomEditsRoundTrip) {
  std::mt19937_64 random(42);
  for (int round = 0; round < 300; ++round) {
    // Text with repeats (as JSON has), then random inserts, deletes and
    // replacements anywhere, the ends included.
    std::string base;
    // Every other round a base shorter than a few blocks.
    size_t base_size = random() % (round % 2 == 0 ? 20000 : 70);
    while (base.size() < base_size) {
      base += random() % 3 == 0 ? std::string(random() % 100, 'x')
                                : "{\"id\": " + std::to_string(random() % 1000) + "}, ";
    }
    std::string target = base;
    size_t new_bytes = 0;
    int edits = random() % 12;
    for (int edit = edits; edit > 0; --edit) {
      size_t at = target.empty() ? 0 : random() % (target.size() + 1);
      size_t length = std::min<size_t>(random() % 300, target.size() - at);
      std::string inserted(random() % 300, '\0');
      for (char& c : inserted) c = static_cast<char>(random());
      new_bytes += inserted.size();
      switch (random() % 3) {
        case 0:
          target.insert(at, inserted);
          break;
        case 1:
          target.erase(at, length);
          break;
        default:
          target.replace(at, length, inserted);
      }
    }
    std::string delta = EncodeCopyDelta(base, target, SIZE_MAX);
    ASSERT_EQ(Rebuilt(delta, base, target.size()), target) << "round " << round;
    // What did not change is copied: the delta holds the new bytes and a
    // few ops and resynchronizing bytes per edit.
    EXPECT_LE(delta.size(), new_bytes + 128 * edits + 16) << "round " << round;
  }
}

TEST(CopyDeltaTest, RunsTheWriterCopiedAreTakenWithoutComparing) {
  const std::string base = Metadata(1000, 1796432270948);
  const std::string next = Metadata(1001, 1796432271003);
  // The snapshots both versions share, as a serializer copying them knows.
  const size_t base_start = base.find("[{");
  const size_t next_start = next.find("[{");
  const size_t shared = base.find("], \"metadata-log\"") - base_start;
  std::vector<CopySpan> copied{{next_start, base_start, shared}};
  std::string delta = EncodeCopyDeltaAlong(base, next, copied, next.size() / 8);
  ASSERT_FALSE(delta.empty());
  EXPECT_LT(delta.size(), 600u);
  EXPECT_EQ(Rebuilt(delta, base, next.size()), next);

  // Trusted, not checked: a run that claims other bytes is copied as claimed.
  std::string edited = next;
  edited[next_start + 10] = '#';
  std::string trusting = EncodeCopyDeltaAlong(base, edited, copied, next.size() / 8);
  EXPECT_EQ(Rebuilt(trusting, base, edited.size()), next);
}

TEST(CopyDeltaTest, RunsOutOfOrderOrRangeAreIgnored) {
  const std::string base = Metadata(100, 1796432270948);
  const std::string next = Metadata(101, 1796432271003);
  const size_t at = next.find("[{");
  for (const std::vector<CopySpan>& copied :
       std::vector<std::vector<CopySpan>>{{{at, at, 10}, {at + 5, at + 20, 10}},  // targets overlap
                                          {{at, at + 20, 10}, {at + 20, at, 10}},  // bases go back
                                          {{at, base.size() - 5, 10}},  // beyond the base
                                          {{next.size() - 5, at, 10}},  // beyond the target
                                          {{SIZE_MAX - 2, 0, 10}},
                                          {{0, SIZE_MAX - 2, 10}}}) {  // wrapping
    std::string delta = EncodeCopyDeltaAlong(base, next, copied, next.size() / 8);
    EXPECT_EQ(delta, EncodeCopyDelta(base, next, next.size() / 8));
    EXPECT_EQ(Rebuilt(delta, base, next.size()), next);
  }
}

TEST(CopyDeltaTest, RandomCopiedRunsRoundTrip) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 300; ++round) {
    std::string base;
    while (base.size() < random() % 5000) {
      base += "{\"id\": " + std::to_string(random() % 1000) + "}, ";
    }
    // Target: new bytes and runs of the base at increasing offsets.
    std::string target;
    std::vector<CopySpan> copied;
    size_t from = 0;
    size_t new_bytes = 0;
    for (int piece = random() % 10; piece > 0; --piece) {
      std::string fresh(random() % 50, '\0');
      for (char& c : fresh) c = static_cast<char>(random());
      target += fresh;
      new_bytes += fresh.size();
      if (from >= base.size()) continue;
      size_t skip = random() % (base.size() - from + 1);
      size_t length = random() % (base.size() - from - skip + 1);
      copied.push_back({target.size(), from + skip, length});
      target += base.substr(from + skip, length);
      from += skip + length;
    }
    std::string delta = EncodeCopyDeltaAlong(base, target, copied, SIZE_MAX);
    ASSERT_EQ(Rebuilt(delta, base, target.size()), target) << "round " << round;
    EXPECT_LE(delta.size(), new_bytes + 32 * (2 * copied.size() + 1)) << "round " << round;
  }
}

TEST(CopyDeltaTest, DamagedDeltasAreCorruption) {
  const std::string base = Metadata(50, 1);
  const std::string next = Metadata(51, 2);
  const std::string delta = EncodeCopyDelta(base, next, next.size());
  ASSERT_FALSE(delta.empty());
  for (size_t cut = 0; cut < delta.size(); ++cut) {
    EXPECT_THAT(ApplyCopyDelta(delta.substr(0, cut), base, next.size()),
                IsError(ErrorKind::kCorruption))
        << cut;
  }
  // Another size; a base too short for its copies.
  EXPECT_THAT(ApplyCopyDelta(delta, base, next.size() - 1), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(ApplyCopyDelta(delta, base, next.size() + 1), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(ApplyCopyDelta(delta, base.substr(0, base.size() / 2), next.size()),
              IsError(ErrorKind::kCorruption));
  // A copy that reaches past the base's end (offset overflow included), an
  // insert past the delta's end, a varint longer than 64 bits.
  const std::string far_copy = "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01";
  EXPECT_THAT(ApplyCopyDelta(far_copy, base, 4), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(ApplyCopyDelta("\x08\x08", "0123456789", 4), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(ApplyCopyDelta("\x09"
                             "ab",
                             base, 4),
              IsError(ErrorKind::kCorruption));
  EXPECT_THAT(ApplyCopyDelta("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", base, 4),
              IsError(ErrorKind::kCorruption));
  EXPECT_EQ(Rebuilt("\x08\x06", "0123456789", 4), "6789");
}

}  // namespace
}  // namespace skade
