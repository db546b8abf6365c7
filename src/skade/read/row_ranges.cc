#include <algorithm>

#include "skade/read/row_ranges_internal.h"

namespace skade::read {

RowRanges RowRanges::All(int64_t rows) {
  RowRanges all;
  all.Add(0, rows);
  return all;
}

void RowRanges::Add(int64_t begin, int64_t end) {
  if (begin >= end) return;
  if (!ranges_.empty() && begin <= ranges_.back().end) {
    ranges_.back().end = std::max(ranges_.back().end, end);
    return;
  }
  ranges_.push_back({begin, end});
}

RowRanges RowRanges::Union(const RowRanges& a, const RowRanges& b) {
  RowRanges out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.ranges_.size() || j < b.ranges_.size()) {
    bool take_a =
        j == b.ranges_.size() || (i < a.ranges_.size() && a.ranges_[i].begin <= b.ranges_[j].begin);
    const Range& next = take_a ? a.ranges_[i++] : b.ranges_[j++];
    out.Add(next.begin, next.end);
  }
  return out;
}

RowRanges RowRanges::Intersection(const RowRanges& a, const RowRanges& b) {
  RowRanges out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.ranges_.size() && j < b.ranges_.size()) {
    const Range& x = a.ranges_[i];
    const Range& y = b.ranges_[j];
    out.Add(std::max(x.begin, y.begin), std::min(x.end, y.end));
    if (x.end < y.end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

int64_t RowRanges::row_count() const {
  int64_t rows = 0;
  for (const Range& range : ranges_) rows += range.end - range.begin;
  return rows;
}

bool RowRanges::Overlaps(int64_t begin, int64_t end) const { return CountIn(begin, end) > 0; }

int64_t RowRanges::CountIn(int64_t begin, int64_t end) const {
  // The first range that ends after `begin`.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), begin,
                             [](int64_t row, const Range& range) { return row < range.end; });
  int64_t rows = 0;
  for (; it != ranges_.end() && it->begin < end; ++it) {
    rows += std::min(end, it->end) - std::max(begin, it->begin);
  }
  return rows;
}

}  // namespace skade::read
