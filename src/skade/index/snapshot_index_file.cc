#include "skade/index/snapshot_index_file.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "skade/io/mapped_file.h"

namespace skade::index {

namespace {

constexpr char kMagic[8] = {'S', 'K', 'S', 'I', 'D', 'X', '0', '1'};
constexpr char kPrefix[] = "snapshot-index-";
constexpr char kSuffix[] = ".sidx";
constexpr size_t kSeqDigits = 20;

struct Header {
  char magic[8];
  uint64_t key_count;
  uint64_t location_count;
  uint64_t pool_bytes;
  uint64_t covered_seq;
  uint64_t covered_location_hash;
  uint64_t body_checksum;
  uint64_t covered_location_bytes;
};
static_assert(sizeof(Header) == 64);

size_t Padded8(size_t bytes) { return (bytes + 7) / 8 * 8; }

// The body's sections, in file order, as byte spans of `index`.
std::vector<std::string_view> Sections(const SnapshotIndex& index) {
  const auto& parts = index.parts();
  auto bytes = [](const auto& span) {
    return std::string_view(reinterpret_cast<const char*>(span.data()), span.size_bytes());
  };
  return {bytes(parts.tree.words()), bytes(parts.table_ids), bytes(parts.location_offsets),
          bytes(parts.location_ids), parts.covered_location, parts.pool};
}

uint64_t Hash(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

}  // namespace

std::string SnapshotIndexFileLocation(const std::string& directory, uint64_t covered_seq) {
  char seq[kSeqDigits + 1];
  std::snprintf(seq, sizeof(seq), "%020llu", static_cast<unsigned long long>(covered_seq));
  return directory + "/" + kPrefix + seq + kSuffix;
}

Result<std::string> WriteSnapshotIndexFile(io::FileIO& io, const std::string& directory,
                                           const SnapshotIndex& index) {
  const auto& parts = index.parts();
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.key_count = index.size();
  header.location_count = parts.location_offsets.size() - 1;
  header.pool_bytes = parts.pool.size();
  header.covered_seq = index.covered_seq();
  header.covered_location_hash = Hash(parts.covered_location);
  header.covered_location_bytes = parts.covered_location.size();

  // Padding keeps every array of the body at a multiple of 8 bytes.
  static const char kZeros[8] = {};
  auto sections = Sections(index);
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return MakeError(ErrorKind::kIo, "Cannot hash the snapshot index");
  XXH3_64bits_reset(state);
  for (auto section : sections) {
    XXH3_64bits_update(state, section.data(), section.size());
    XXH3_64bits_update(state, kZeros, Padded8(section.size()) - section.size());
  }
  header.body_checksum = XXH3_64bits_digest(state);
  XXH3_freeState(state);

  std::string location = SnapshotIndexFileLocation(directory, index.covered_seq());
  auto file = io.NewOutputFile(location, /*durable=*/true);
  if (!file && file.error().kind == ErrorKind::kAlreadyExists) return location;
  if (!file) return tl::unexpected(file.error());
  SKADE_RETURN_NOT_OK(
      (*file)->Write(std::string_view(reinterpret_cast<const char*>(&header), sizeof(header))));
  for (auto section : sections) {
    SKADE_RETURN_NOT_OK((*file)->Write(section));
    SKADE_RETURN_NOT_OK(
        (*file)->Write(std::string_view(kZeros, Padded8(section.size()) - section.size())));
  }
  SKADE_RETURN_NOT_OK((*file)->Close());
  return location;
}

Result<std::unique_ptr<const SnapshotIndex>> OpenSnapshotIndexFile(const std::string& location) {
  SKADE_ASSIGN_OR_RAISE(std::shared_ptr<io::MappedFile> file, io::MappedFile::Open(location));
  auto bytes = file->bytes();
  auto corrupt = [&](std::string_view why) {
    return Corruption("Snapshot index file ", location, " is not usable: ", why);
  };
  if (bytes.size() < sizeof(Header)) return corrupt("too short");
  Header header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic");

  // Section sizes, checked against the file size before any is read (each
  // factor is bounded by the file size, so the products cannot overflow).
  uint64_t limit = bytes.size();
  if (header.key_count > limit / 8 || header.location_count > limit / 8 ||
      header.pool_bytes > limit || header.covered_location_bytes > limit) {
    return corrupt("section sizes exceed the file");
  }
  size_t words = StaticTree::LayoutWords(header.key_count);
  size_t sizes[] = {words * 8,
                    header.key_count * 8,
                    (header.location_count + 1) * 8,
                    header.key_count * 4,
                    header.covered_location_bytes,
                    header.pool_bytes};
  uint64_t total = sizeof(Header);
  for (size_t size : sizes) total += Padded8(size);
  if (total != bytes.size()) return corrupt("its size does not match its header");

  const char* body = reinterpret_cast<const char*>(bytes.data()) + sizeof(Header);
  if (Hash({body, bytes.size() - sizeof(Header)}) != header.body_checksum) {
    return corrupt("checksum mismatch");
  }
  const char* at[6];
  const char* cursor = body;
  for (size_t i = 0; i < 6; ++i) {
    at[i] = cursor;
    cursor += Padded8(sizes[i]);
  }
  std::string covered_location(at[4], header.covered_location_bytes);
  if (Hash(covered_location) != header.covered_location_hash) {
    return corrupt("covered location mismatch");
  }
  SKADE_ASSIGN_OR_RAISE(
      auto tree,
      StaticTree::View({reinterpret_cast<const uint64_t*>(at[0]), words}, header.key_count,
                       /*verify=*/false));
  SnapshotIndex::Parts parts{std::move(tree),
                             {reinterpret_cast<const uint64_t*>(at[1]), header.key_count},
                             {reinterpret_cast<const uint32_t*>(at[3]), header.key_count},
                             {reinterpret_cast<const uint64_t*>(at[2]), header.location_count + 1},
                             {at[5], header.pool_bytes},
                             header.covered_seq,
                             std::move(covered_location)};
  // Inner tree levels are what every lookup touches first.
  file->WillNeed(bytes.subspan(sizeof(Header), std::min<size_t>(words * 8, 64ull << 20)));
  return SnapshotIndex::FromParts(std::move(parts), std::move(file));
}

Result<std::vector<std::pair<uint64_t, std::string>>> ListSnapshotIndexFiles(
    io::FileIO& io, const std::string& directory) {
  SKADE_ASSIGN_OR_RAISE(auto names, io.ListDirectory(directory));
  std::vector<std::pair<uint64_t, std::string>> files;
  const size_t prefix = sizeof(kPrefix) - 1;
  const size_t suffix = sizeof(kSuffix) - 1;
  for (const auto& name : names) {
    if (name.size() != prefix + kSeqDigits + suffix || !name.starts_with(kPrefix) ||
        !name.ends_with(kSuffix)) {
      continue;
    }
    std::string_view digits(name.data() + prefix, kSeqDigits);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    uint64_t seq = 0;
    bool overflow = false;
    for (char c : digits) {
      if (seq > (UINT64_MAX - (c - '0')) / 10) overflow = true;
      seq = seq * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!overflow) files.emplace_back(seq, directory + "/" + name);
  }
  std::sort(files.begin(), files.end(), std::greater<>());
  return files;
}

}  // namespace skade::index
