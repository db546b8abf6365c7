#include "common/bench_schema.h"

namespace skade::bench {

spec::SchemaPtr BenchSchema() {
  static const spec::SchemaPtr schema = std::make_shared<const spec::Schema>(
      spec::Schema::kInitialSchemaId,
      std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true},
                                     {2, "data", spec::Type::String(), false}});
  return schema;
}

}  // namespace skade::bench
