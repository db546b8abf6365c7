#include "skade/table/partition_filter.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "skade/util/strings.h"

namespace skade::table {

namespace {

// NaN equals NaN, and -0.0 differs from 0.0: as Double.compare, which
// Iceberg Java's partition comparators use, and as the partition splitter
// groups rows (by their bytes).
template <typename Float>
bool SameFloat(Float a, Float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(Float)) == 0;
}

}  // namespace

bool SamePartitionValue(const spec::Literal& a, const spec::Literal& b) {
  const spec::Literal::Value& x = a.value();
  const spec::Literal::Value& y = b.value();
  if (const auto* d = std::get_if<double>(&x)) {
    const auto* e = std::get_if<double>(&y);
    return e != nullptr && SameFloat(*d, *e);
  }
  if (const auto* f = std::get_if<float>(&x)) {
    const auto* g = std::get_if<float>(&y);
    return g != nullptr && SameFloat(*f, *g);
  }
  return x == y;
}

bool SamePartition(const std::vector<spec::Literal>& a, const std::vector<spec::Literal>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), SamePartitionValue);
}

PartitionFilter PartitionFilter::All() {
  return PartitionFilter(
      [](const spec::PartitionSpec&, const std::vector<spec::Literal>&) { return true; },
      "every partition");
}

PartitionFilter PartitionFilter::Tuples(int32_t spec_id,
                                        std::vector<std::vector<spec::Literal>> tuples) {
  std::string description = StrCat("partitions of spec ", spec_id, ":");
  for (const auto& tuple : tuples) {
    StrAppend(&description, " (");
    for (size_t i = 0; i < tuple.size(); ++i) {
      StrAppend(&description, i > 0 ? ", " : "", tuple[i].ToString());
    }
    StrAppend(&description, ")");
  }
  return PartitionFilter(
      [spec_id, tuples = std::move(tuples)](const spec::PartitionSpec& spec,
                                            const std::vector<spec::Literal>& partition) {
        if (spec.spec_id != spec_id) return false;
        return std::any_of(tuples.begin(), tuples.end(),
                           [&](const std::vector<spec::Literal>& tuple) {
                             return SamePartition(tuple, partition);
                           });
      },
      std::move(description));
}

PartitionFilter PartitionFilter::FieldsEqual(std::map<std::string, spec::Literal> values) {
  std::string description;
  for (const auto& [name, value] : values) {
    StrAppend(&description, description.empty() ? "" : " and ", name, " = ", value.ToString());
  }
  if (description.empty()) description = "every partition";
  return PartitionFilter(
      [values = std::move(values)](const spec::PartitionSpec& spec,
                                   const std::vector<spec::Literal>& partition) {
        for (const auto& [name, value] : values) {
          auto field = std::find_if(spec.fields.begin(), spec.fields.end(),
                                    [&](const spec::PartitionField& f) { return f.name == name; });
          if (field == spec.fields.end()) return false;
          size_t index = static_cast<size_t>(field - spec.fields.begin());
          if (index >= partition.size() || !SamePartitionValue(partition[index], value))
            return false;
        }
        return true;
      },
      std::move(description));
}

}  // namespace skade::table
