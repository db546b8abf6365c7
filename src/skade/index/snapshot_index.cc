#include "skade/index/snapshot_index.h"

#include <algorithm>

namespace skade::index {

namespace {

// The arrays an index built in memory owns (its Parts view them).
struct OwnedArrays {
  std::vector<uint64_t> table_ids;
  std::vector<uint32_t> location_ids;
  std::vector<uint64_t> location_offsets;
  std::string pool;
};

// Searches per FindBatch call whose tree lookups share one batch; bounds the
// scratch space on the stack.
constexpr size_t kBatch = 256;

}  // namespace

Result<std::unique_ptr<const SnapshotIndex>> SnapshotIndex::FromParts(
    Parts parts, std::shared_ptr<const void> owner) {
  size_t n = parts.tree.size();
  if (parts.table_ids.size() != n || parts.location_ids.size() != n ||
      parts.location_offsets.empty() || parts.location_offsets.back() != parts.pool.size() ||
      parts.location_offsets.size() - 1 > UINT32_MAX) {
    return Corruption("The parts of the snapshot index do not fit together");
  }
  return std::unique_ptr<const SnapshotIndex>(
      new SnapshotIndex(std::move(parts), std::move(owner)));
}

std::string_view SnapshotIndex::location(uint32_t location_id) const {
  const auto& offsets = parts_.location_offsets;
  // Bounds are checked per lookup, not once per file: a mapped file's
  // offsets are read only where they are used.
  if (size_t{location_id} + 1 >= offsets.size()) return {};
  uint64_t begin = offsets[location_id];
  uint64_t end = offsets[location_id + 1];
  if (begin > end || end > parts_.pool.size()) return {};
  return parts_.pool.substr(begin, end - begin);
}

std::optional<std::string_view> SnapshotIndex::Verify(size_t position, uint64_t table_id,
                                                      uint64_t snapshot_key) const {
  auto keys = parts_.tree.keys();
  // A run of equal snapshot ids is sorted by table id.
  for (; position < keys.size() && keys[position] == snapshot_key; ++position) {
    uint64_t id = parts_.table_ids[position];
    if (id > table_id) break;
    if (id == table_id) {
      std::string_view found = location(parts_.location_ids[position]);
      if (found.empty()) return std::nullopt;
      return found;
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> SnapshotIndex::Find(uint64_t table_id, int64_t snapshot_id) const {
  auto key = static_cast<uint64_t>(snapshot_id);
  return Verify(parts_.tree.LowerBound(key), table_id, key);
}

void SnapshotIndex::FindBatch(std::span<const SnapshotIndexKey> keys,
                              std::span<std::optional<std::string_view>> out) const {
  uint64_t probes[kBatch];
  size_t positions[kBatch];
  for (size_t start = 0; start < keys.size(); start += kBatch) {
    size_t count = std::min(kBatch, keys.size() - start);
    for (size_t i = 0; i < count; ++i) probes[i] = static_cast<uint64_t>(keys[start + i].second);
    parts_.tree.LowerBoundBatch({probes, count}, {positions, count});
    for (size_t i = 0; i < count; ++i) {
      out[start + i] = Verify(positions[i], keys[start + i].first, probes[i]);
    }
  }
}

SnapshotIndexBuilder::SnapshotIndexBuilder(const SnapshotIndex* base)
    : base_(base),
      covered_seq_(base ? base->covered_seq() : 0),
      covered_location_(base ? base->covered_location() : std::string()) {}

Status SnapshotIndexBuilder::Add(uint64_t commit_seq, const store::CommitLogRecord& record) {
  if (commit_seq <= covered_seq_) {
    return InvalidArgument("Commit ", commit_seq, " is not after commit ", covered_seq_,
                           " of the snapshot index");
  }
  covered_seq_ = commit_seq;
  covered_location_ = record.metadata_location;
  ++added_commits_;
  if (record.added_snapshot_ids.empty()) return OkStatus();
  auto location_id = static_cast<uint32_t>(locations_.size());
  locations_.push_back(record.metadata_location);
  for (int64_t snapshot_id : record.added_snapshot_ids) {
    entries_.push_back({static_cast<uint64_t>(snapshot_id), record.table_id, location_id});
  }
  return OkStatus();
}

Result<std::unique_ptr<const SnapshotIndex>> SnapshotIndexBuilder::Finish() {
  // Stable: among entries of one key, the first commit's stays first.
  std::stable_sort(entries_.begin(), entries_.end(), [](const NewEntry& a, const NewEntry& b) {
    return a.snapshot_key != b.snapshot_key ? a.snapshot_key < b.snapshot_key
                                            : a.table_id < b.table_id;
  });
  auto same_key = [](const NewEntry& a, const NewEntry& b) {
    return a.snapshot_key == b.snapshot_key && a.table_id == b.table_id;
  };
  entries_.erase(std::unique(entries_.begin(), entries_.end(), same_key), entries_.end());

  auto owned = std::make_shared<OwnedArrays>();
  size_t base_size = base_ ? base_->size() : 0;
  std::span<const uint64_t> base_keys;
  uint32_t base_locations = 0;
  if (base_) {
    const auto& parts = base_->parts();
    base_keys = parts.tree.keys();
    base_locations = static_cast<uint32_t>(parts.location_offsets.size() - 1);
    owned->location_offsets.assign(parts.location_offsets.begin(), parts.location_offsets.end());
    owned->pool.assign(parts.pool);
  } else {
    owned->location_offsets.push_back(0);
  }
  if (size_t{base_locations} + locations_.size() > UINT32_MAX) {
    return InvalidArgument("The snapshot index holds at most ", UINT32_MAX, " commits");
  }
  for (const auto& location : locations_) {
    owned->pool.append(location);
    owned->location_offsets.push_back(owned->pool.size());
  }

  // Merge the base (sorted) with the new entries (sorted); on an equal full
  // key the base's entry, the earlier commit, wins.
  std::vector<uint64_t> keys;
  size_t capacity = base_size + entries_.size();
  keys.reserve(capacity);
  owned->table_ids.reserve(capacity);
  owned->location_ids.reserve(capacity);
  size_t i = 0;
  size_t j = 0;
  auto take_base = [&] {
    const auto& parts = base_->parts();
    keys.push_back(base_keys[i]);
    owned->table_ids.push_back(parts.table_ids[i]);
    owned->location_ids.push_back(parts.location_ids[i]);
    ++i;
  };
  auto take_new = [&] {
    keys.push_back(entries_[j].snapshot_key);
    owned->table_ids.push_back(entries_[j].table_id);
    owned->location_ids.push_back(base_locations + entries_[j].location_id);
    ++j;
  };
  while (i < base_size && j < entries_.size()) {
    const auto& parts = base_->parts();
    auto base_key = std::make_pair(base_keys[i], parts.table_ids[i]);
    auto new_key = std::make_pair(entries_[j].snapshot_key, entries_[j].table_id);
    if (base_key < new_key) {
      take_base();
    } else if (new_key < base_key) {
      take_new();
    } else {
      take_base();
      ++j;
    }
  }
  while (i < base_size) take_base();
  while (j < entries_.size()) take_new();

  SKADE_ASSIGN_OR_RAISE(auto tree, StaticTree::Build(keys));
  SnapshotIndex::Parts parts{
      std::move(tree), owned->table_ids, owned->location_ids,         owned->location_offsets,
      owned->pool,     covered_seq_,     std::move(covered_location_)};
  return SnapshotIndex::FromParts(std::move(parts), std::move(owned));
}

}  // namespace skade::index
