// PartitionFilter: which whole data files an overwrite or delete removes,
// decided by each file's partition tuple alone (never by reading rows).
//
// Values are compared by value, not by type: a `day` partition value is the
// int32 day count whether the tuple was typed `int` or `date`. Floating-point
// values compare as Iceberg Java's partition comparators (Double.compare):
// NaN equals NaN, -0.0 and 0.0 differ. A copyable value; thread-safe as long
// as its predicate is.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "skade/spec/data_file.h"
#include "skade/spec/literal.h"
#include "skade/spec/partition_spec.h"

namespace skade::table {

/// Whether two partition values are the same partition's (see above).
bool SamePartitionValue(const spec::Literal& a, const spec::Literal& b);
/// Whether two partition tuples are the same partition, value by value.
bool SamePartition(const std::vector<spec::Literal>& a, const std::vector<spec::Literal>& b);

class PartitionFilter {
 public:
  /// Decides for a file of `spec` with the partition tuple `partition`.
  using Predicate = std::function<bool(const spec::PartitionSpec& spec,
                                       const std::vector<spec::Literal>& partition)>;

  /// `description` names what the filter matches in error messages
  /// (e.g. "region = 'eu'").
  explicit PartitionFilter(Predicate predicate, std::string description = "the filter")
      : predicate_(std::move(predicate)), description_(std::move(description)) {}

  /// Every file (replace or truncate the whole table).
  static PartitionFilter All();
  /// Files of spec `spec_id` whose tuple is one of `tuples`.
  static PartitionFilter Tuples(int32_t spec_id, std::vector<std::vector<spec::Literal>> tuples);
  /// Files whose partition fields named in `values` all equal those values
  /// (e.g. {"ts_day": day 2026-11-01}); a file whose spec lacks one of the
  /// names does not match. An empty map matches every file.
  static PartitionFilter FieldsEqual(std::map<std::string, spec::Literal> values);

  bool Matches(const spec::PartitionSpec& spec, const std::vector<spec::Literal>& partition) const {
    return predicate_(spec, partition);
  }
  bool Matches(const spec::PartitionSpec& spec, const spec::DataFile& file) const {
    return predicate_(spec, file.partition);
  }

  const std::string& description() const { return description_; }

 private:
  Predicate predicate_;
  std::string description_;
};

}  // namespace skade::table
