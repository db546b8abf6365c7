// SnapshotIndex: the commit log as an immutable static search tree, from
// (table id, snapshot id) to the metadata location of the commit that added
// that snapshot.
//
// Keys are snapshot ids, which Iceberg draws at random and which are unique
// only within a table: the tree finds the run of entries with the snapshot
// id, and a hit is verified against the full key (the table id) in a
// parallel array, so equal ids of different tables never mix. An index
// covers the commit log up to covered_seq(); it says nothing of later
// commits, and callers route every miss to the live store (never by
// comparing ids to a cutoff, which random ids would make wrong).
//
// For a (table, snapshot) that the log has more than once (an id reused
// after its snapshot expired), the entry is its first commit's, as in the
// store (CatalogStore::FindSnapshot).
//
// Memory: the arrays are owned (after Build) or views of a mapped file
// (snapshot_index_file.h), which the index keeps alive. Thread safety:
// immutable; any number of threads may look up concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/index/static_tree.h"
#include "skade/store/commit_log_record.h"
#include "skade/util/result.h"

namespace skade::index {

/// (table id, snapshot id), the full key of an entry.
using SnapshotIndexKey = std::pair<uint64_t, int64_t>;

class SnapshotIndex {
 public:
  /// The parts of an index, as stored (sorted by snapshot id, then table id;
  /// location_ids index location_offsets, which delimit each location in
  /// `pool`). Views; whoever builds the index from them keeps them alive.
  struct Parts {
    StaticTree tree;  // over the snapshot ids (as uint64_t)
    std::span<const uint64_t> table_ids;
    std::span<const uint32_t> location_ids;
    std::span<const uint64_t> location_offsets;  // location count + 1
    std::string_view pool;
    uint64_t covered_seq = 0;
    std::string covered_location;  // the metadata location of commit covered_seq
  };

  /// An index over `parts`, which `owner` (a mapped file, or the owned
  /// arrays) keeps alive. kCorruption if the parts do not fit together.
  static Result<std::unique_ptr<const SnapshotIndex>> FromParts(Parts parts,
                                                                std::shared_ptr<const void> owner);

  /// The metadata location of (table_id, snapshot_id), or nullopt if this
  /// index has no such entry. The view lives as long as the index.
  std::optional<std::string_view> Find(uint64_t table_id, int64_t snapshot_id) const;
  /// Find() of each key, with the tree searches batched (StaticTree::
  /// LowerBoundBatch). `out` must be as long as `keys`.
  void FindBatch(std::span<const SnapshotIndexKey> keys,
                 std::span<std::optional<std::string_view>> out) const;

  /// Commits 1..covered_seq() are in the index.
  uint64_t covered_seq() const { return parts_.covered_seq; }
  /// The metadata location of commit covered_seq() (empty if it is 0), by
  /// which a reopened file is matched to its store.
  const std::string& covered_location() const { return parts_.covered_location; }
  /// The number of entries.
  size_t size() const { return parts_.tree.size(); }
  const Parts& parts() const { return parts_; }
  std::string_view location(uint32_t location_id) const;

 private:
  SnapshotIndex(Parts parts, std::shared_ptr<const void> owner)
      : parts_(std::move(parts)), owner_(std::move(owner)) {}
  /// The entry of (table_id, snapshot_id) in the run of equal snapshot ids
  /// starting at `position`.
  std::optional<std::string_view> Verify(size_t position, uint64_t table_id,
                                         uint64_t snapshot_key) const;

  Parts parts_;
  std::shared_ptr<const void> owner_;
};

/// Builds the next index: a base index (or none) and the commit-log entries
/// after its covered_seq, in order. O(n log n) in the new entries, O(n) in
/// the base's. Not thread-safe; use one builder per build.
class SnapshotIndexBuilder {
 public:
  /// `base` (may be null) must outlive the builder.
  explicit SnapshotIndexBuilder(const SnapshotIndex* base);
  /// Adds the commit `commit_seq`, which must follow the base's covered_seq
  /// and the commits added before (kInvalidArgument otherwise).
  Status Add(uint64_t commit_seq, const store::CommitLogRecord& record);
  /// The commits added so far.
  size_t added_commits() const { return added_commits_; }
  /// The index over the base and every commit added; the builder is spent.
  Result<std::unique_ptr<const SnapshotIndex>> Finish();

 private:
  struct NewEntry {
    uint64_t snapshot_key;
    uint64_t table_id;
    uint32_t location_id;  // among the new locations
  };

  const SnapshotIndex* base_;
  uint64_t covered_seq_;
  std::string covered_location_;
  size_t added_commits_ = 0;
  std::vector<NewEntry> entries_;
  std::vector<std::string> locations_;
};

}  // namespace skade::index
