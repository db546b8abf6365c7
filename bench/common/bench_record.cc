#include "common/bench_record.h"

#include <cmath>

#include "skade/util/json_writer.h"

namespace skade::bench {

namespace {

// Three significant decimals are plenty and keep the lines short.
double Rounded(double value) { return std::round(value * 1000) / 1000; }

}  // namespace

void WriteRecord(std::ostream& out, const BenchOptions& options, const BenchRecord& record,
                 const Result<Measurement>& measurement) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("run_id", options.run_id);
  writer.Field("target", record.target);
  writer.Field("scenario", record.scenario);
  if (!record.variant.empty()) writer.Field("variant", record.variant);
  writer.Field("threads", static_cast<int64_t>(record.threads));
  if (measurement) {
    writer.Field("ops", static_cast<int64_t>(measurement->ops));
    writer.Key("ops_per_sec");
    writer.Double(Rounded(measurement->ops_per_sec()));
    writer.Key("p50_us");
    writer.Double(Rounded(measurement->PercentileMicros(0.50)));
    writer.Key("p99_us");
    writer.Double(Rounded(measurement->PercentileMicros(0.99)));
    writer.Key("p999_us");
    writer.Double(Rounded(measurement->PercentileMicros(0.999)));
  } else {
    writer.Field("ops", int64_t{0});
    writer.Field("error", measurement.error().ToString());
  }
  writer.Field("catalog_tables", static_cast<int64_t>(options.tables));
  writer.Field("durability", record.durability);
  if (!record.group_commit.empty()) writer.Field("group_commit", record.group_commit);
  if (record.scenario == "commit" || record.scenario == "mixed_90_10") {
    writer.Field("conflicts", static_cast<int64_t>(record.conflicts));
  }
  writer.Field("notes", record.notes);
  writer.EndObject();
  out << writer.str() << std::endl;
}

}  // namespace skade::bench
