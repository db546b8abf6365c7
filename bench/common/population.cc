#include "common/population.h"

namespace skade::bench {

Population::Population(const BenchOptions& options) {
  tables_.reserve(options.tables);
  for (int i = 0; i < options.tables; ++i) tables_.push_back(options.PopulationTable(i));
}

}  // namespace skade::bench
