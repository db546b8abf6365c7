// The table metadata's "metadata-log" (spec: "Table Metadata Fields"): the
// earlier metadata files of a table, oldest first, with when each was
// replaced.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/snapshot.h"

namespace skade::spec {

/// The metadata log, stored as one buffer of paths beside fixed-size
/// entries. Iceberg keeps up to write.metadata.previous-versions-max (100)
/// entries of absolute paths, which make most of a metadata file: kept as
/// one string each, every parse, copy and free of a table's metadata paid
/// a hundred allocations (time travel parses and drops one per lookup).
/// Here each of those is two.
///
/// A value type like std::vector, not thread-safe to mutate; a published
/// TableMetadata never changes it, so readers share it freely. Entries are
/// views into the log: valid until the log is changed or destroyed.
class MetadataLog {
 public:
  /// One entry, viewing the log's buffer.
  struct Entry {
    int64_t timestamp_ms = 0;
    std::string_view metadata_file;

    bool operator==(const Entry& other) const = default;
    bool operator==(const MetadataLogEntry& other) const {
      return timestamp_ms == other.timestamp_ms && metadata_file == other.metadata_file;
    }
    MetadataLogEntry ToOwned() const { return {timestamp_ms, std::string(metadata_file)}; }
  };

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;

    const_iterator() = default;
    const_iterator(const MetadataLog* log, size_t index) : log_(log), index_(index) {}

    Entry operator*() const { return (*log_)[index_]; }
    Entry operator[](difference_type n) const { return (*log_)[index_ + n]; }
    const_iterator& operator++() { return ++index_, *this; }
    const_iterator operator++(int) { return {log_, index_++}; }
    const_iterator& operator--() { return --index_, *this; }
    const_iterator operator--(int) { return {log_, index_--}; }
    const_iterator& operator+=(difference_type n) { return index_ += n, *this; }
    const_iterator& operator-=(difference_type n) { return index_ -= n, *this; }
    friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
    friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
    friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const_iterator a, const_iterator b) {
      return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
    }
    bool operator==(const const_iterator& other) const { return index_ == other.index_; }
    auto operator<=>(const const_iterator& other) const { return index_ <=> other.index_; }

   private:
    const MetadataLog* log_ = nullptr;
    size_t index_ = 0;
  };

  using value_type = Entry;
  using size_type = size_t;
  using iterator = const_iterator;

  MetadataLog() = default;
  MetadataLog(std::initializer_list<MetadataLogEntry> entries);

  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }
  Entry operator[](size_t i) const {
    const Slot& slot = slots_[i];
    return {slot.timestamp_ms, std::string_view(paths_).substr(slot.offset, slot.size)};
  }
  Entry front() const { return (*this)[0]; }
  Entry back() const { return (*this)[size() - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  /// Room for `entries` entries whose paths take `path_bytes` in all.
  void reserve(size_t entries, size_t path_bytes);
  void push_back(int64_t timestamp_ms, std::string_view metadata_file);
  void push_back(const MetadataLogEntry& entry) {
    push_back(entry.timestamp_ms, entry.metadata_file);
  }
  /// Removes the oldest `count` entries (all of them if fewer).
  void DropOldest(size_t count);
  /// The first `count` entries (all of them if fewer), as a log of their own.
  MetadataLog Oldest(size_t count) const;

  bool operator==(const MetadataLog& other) const;
  bool operator==(const std::vector<MetadataLogEntry>& other) const;

 private:
  struct Slot {
    int64_t timestamp_ms;
    size_t offset;  // into paths_
    size_t size;
  };

  // The bytes of paths_ that the first `count` entries take (count <= size()).
  size_t PathBytesBefore(size_t count) const {
    return count == slots_.size() ? paths_.size() : slots_[count].offset;
  }

  std::vector<Slot> slots_;
  std::string paths_;  // every entry's path, in order, nothing between
};

}  // namespace skade::spec
