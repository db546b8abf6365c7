#include "skade/table/partition_filter.h"

#include <algorithm>

#include "skade/util/strings.h"

namespace skade::table {

namespace {

bool SameValues(const std::vector<spec::Literal>& a, const std::vector<spec::Literal>& b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(),
      [](const spec::Literal& x, const spec::Literal& y) { return x.value() == y.value(); });
}

}  // namespace

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
        return std::any_of(
            tuples.begin(), tuples.end(),
            [&](const std::vector<spec::Literal>& tuple) { return SameValues(tuple, partition); });
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
          if (index >= partition.size() || partition[index].value() != value.value()) return false;
        }
        return true;
      },
      std::move(description));
}

}  // namespace skade::table
