#include "common/bench_record.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "skade/util/json_writer.h"

namespace skade::bench {

namespace {

// Three significant decimals are plenty and keep the lines short.
double Rounded(double value) { return std::round(value * 1000) / 1000; }

void WritePercentiles(JsonWriter& writer, const std::string& prefix,
                      const std::vector<int64_t>& sorted_ns) {
  for (auto [name, p] : {std::pair{"p50_us", 0.50}, {"p99_us", 0.99}, {"p999_us", 0.999}}) {
    writer.Key(prefix + name);
    writer.Double(Rounded(Measurement::PercentileMicros(sorted_ns, p)));
  }
}

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
    WritePercentiles(writer, "", measurement->latencies_ns);
    if (record.scenario == "commit") {
      const uint64_t commits = measurement->ops - std::min(record.failures, measurement->ops);
      writer.Key("commits_per_sec");
      writer.Double(
          Rounded(measurement->wall_seconds > 0 ? commits / measurement->wall_seconds : 0));
    }
    for (size_t k = 0; k < record.kinds.size() && k < measurement->kind_latencies_ns.size(); ++k) {
      const auto& latencies = measurement->kind_latencies_ns[k];
      writer.Field(record.kinds[k] + "_ops", static_cast<int64_t>(latencies.size()));
      WritePercentiles(writer, record.kinds[k] + "_", latencies);
    }
    // The load generator's and the server's CPU per timed op (warm-up excluded).
    for (auto [key, seconds] : {std::pair{"client_cpu_us_per_op", measurement->client_cpu_seconds},
                                {"server_cpu_us_per_op", measurement->server_cpu_seconds}}) {
      if (!seconds || measurement->ops == 0) continue;
      writer.Key(key);
      writer.Double(Rounded(*seconds * 1e6 / static_cast<double>(measurement->ops)));
    }
    // And the bytes each sent to storage per timed op (write scenarios).
    for (auto [key, bytes] :
         {std::pair{"client_write_bytes_per_op", measurement->client_write_bytes},
          {"server_write_bytes_per_op", measurement->server_write_bytes}}) {
      if (!record.write || !bytes || measurement->ops == 0) continue;
      writer.Key(key);
      writer.Double(Rounded(static_cast<double>(*bytes) / static_cast<double>(measurement->ops)));
    }
    for (const auto& [key, value] : record.numbers) {
      writer.Key(key);
      writer.Double(Rounded(value));
    }
  } else {
    writer.Field("ops", int64_t{0});
    writer.Field("error", measurement.error().ToString());
  }
  writer.Field("catalog_tables", static_cast<int64_t>(options.tables));
  writer.Field("durability", record.durability);
  if (!record.group_commit.empty()) writer.Field("group_commit", record.group_commit);
  if (!record.rebase.empty()) writer.Field("rebase", record.rebase);
  if (record.write) {
    writer.Field("conflicts", static_cast<int64_t>(record.conflicts));
    writer.Field("retries", static_cast<int64_t>(record.retries));
    writer.Field("failures", static_cast<int64_t>(record.failures));
  }
  writer.Field("notes", record.notes);
  writer.EndObject();
  out << writer.str() << std::endl;
}

}  // namespace skade::bench
