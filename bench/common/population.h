// The benchmark catalog's table and namespace identifiers (BenchOptions'
// layout), built once before any timed op: a scenario's latency is then the
// catalog's call, not the harness formatting a name (0.2-0.4 µs, a third to a half
// of an embedded warm load). Every driver does the same (bench/README.md).
//
// Immutable after construction; thread-safe to read.
#pragma once

#include <vector>

#include "common/bench_options.h"
#include "skade/spec/table_identifier.h"

namespace skade::bench {

class Population {
 public:
  explicit Population(const BenchOptions& options);

  /// Population table `index` (any int >= 0; taken modulo the table count).
  const spec::TableIdentifier& table(int index) const { return tables_[index % tables_.size()]; }
  /// The namespace holding population table `index`.
  const spec::Namespace& ns(int index) const { return table(index).ns; }

 private:
  std::vector<spec::TableIdentifier> tables_;
};

}  // namespace skade::bench
