// The schema of every benchmark table: (1 id long required, 2 data string).
#pragma once

#include "skade/spec/schema.h"

namespace skade::bench {

spec::SchemaPtr BenchSchema();

}  // namespace skade::bench
