// RowRanges: a set of rows of one row group as sorted, disjoint, non-adjacent
// half-open ranges [begin, end), for the rows the page index leaves
// possible. Plain value; not thread-safe to mutate.
#pragma once

#include <cstdint>
#include <vector>

namespace skade::read {

class RowRanges {
 public:
  struct Range {
    int64_t begin = 0;
    int64_t end = 0;
    bool operator==(const Range&) const = default;
  };

  /// No rows.
  RowRanges() = default;
  /// Rows [0, rows).
  static RowRanges All(int64_t rows);

  /// Adds [begin, end); `begin` must not be below the begin of the last
  /// range added. Empty ranges are ignored.
  void Add(int64_t begin, int64_t end);

  static RowRanges Union(const RowRanges& a, const RowRanges& b);
  static RowRanges Intersection(const RowRanges& a, const RowRanges& b);

  bool empty() const { return ranges_.empty(); }
  int64_t row_count() const;
  /// Whether any row in [begin, end) is in the set.
  bool Overlaps(int64_t begin, int64_t end) const;
  /// How many rows in [begin, end) are in the set.
  int64_t CountIn(int64_t begin, int64_t end) const;
  const std::vector<Range>& ranges() const { return ranges_; }

  bool operator==(const RowRanges&) const = default;

 private:
  std::vector<Range> ranges_;
};

}  // namespace skade::read
