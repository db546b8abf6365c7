// Every pruning rule against brute force on generated tables: random rows
// over a schema of the common column types (with nulls, NaNs, negative
// dates and multi-byte strings), random partition specs over them, rows
// grouped into files by partition tuple, the files' metrics and the
// manifests' partition summaries computed as a writer computes them, and
// random filters. For each filter:
//  (a) a file with a matching row is kept by the partition, metrics and
//      manifest evaluators;
//  (b) a partition the strict projection accepts holds only matching rows;
//  (c) each row matches the filter exactly when it matches the residual of
//      its partition.
// The evaluators must also prune: the selective filters of the last test
// drop most files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <random>

#include "skade/avro/partition_summary.h"
#include "skade/expr/bound_expression.h"
#include "skade/expr/expression_parser.h"
#include "skade/expr/manifest_evaluator.h"
#include "skade/expr/metrics_evaluator.h"
#include "skade/expr/partition_evaluator.h"
#include "skade/expr/projection.h"
#include "skade/expr/residual_evaluator.h"
#include "skade/expr/row_evaluator.h"
#include "skade/spec/decimal_internal.h"
#include "skade/spec/truncation.h"
#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsOk;
using spec::Literal;
using spec::NestedField;
using spec::Transform;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

constexpr int kColumns = 9;

std::shared_ptr<const spec::Schema> GeneratedSchema() {
  return std::make_shared<const spec::Schema>(0, std::vector<NestedField>{
                                                     {1, "i", Type::Int(), false},
                                                     {2, "l", Type::Long(), false},
                                                     {3, "d", Type::Date(), false},
                                                     {4, "ts", Type::Timestamp(), false},
                                                     {5, "s", Type::String(), false},
                                                     {6, "dec", Type::Decimal(9, 2), false},
                                                     {7, "x", Type::Double(), false},
                                                     {8, "tstz", Type::TimestampTz(), false},
                                                     {9, "tsns", Type::TimestampNs(), true},
                                                 });
}

using Row = std::vector<Literal>;  // by field id; [0] unused

struct File {
  std::vector<Literal> partition;
  std::vector<Row> rows;
  spec::DataFile data_file;
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : random_(seed) {}

  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random_); }
  int64_t Long(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random_);
  }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Int(0, static_cast<int>(items.size()) - 1))];
  }

  std::string String() {
    // ASCII, a two-byte and a four-byte code point, to exercise truncation.
    static const std::vector<std::string> kPieces = {"a", "b", "c", "\xc3\xa9", "\xf0\x9d\x84\x9e"};
    std::string out;
    int length = Int(0, 5);
    for (int i = 0; i < length; ++i) out += Pick(kPieces);
    return out;
  }

  // A non-null value of column `id`, in a small domain so filters hit.
  Literal Value(int id, const TypePtr& type) {
    constexpr int64_t kHour = 3'600'000'000;
    switch (id) {
      case 1:
        return Literal(type, static_cast<int32_t>(Int(-50, 50)));
      case 2:
        return Literal(type, Long(-1000, 1000));
      case 3:
        return Literal(type, static_cast<int32_t>(Int(-800, 800)));  // around 1970, both sides
      case 4:
      case 8:
        return Literal(type, Long(-100, 100) * kHour + Long(0, 3) * 900'000'000);
      case 5:
        return Literal(type, String());
      case 6:
        return Literal(type, spec::MinimalBigEndian(Long(-3000, 3000)));
      case 7: {
        static const std::vector<double> kSpecial = {-0.0, 0.0, INFINITY, -INFINITY, 1.5, -2.5};
        if (Chance(0.2)) return Literal(type, Pick(kSpecial));
        return Literal(type, static_cast<double>(Int(-40, 40)) / 4);
      }
      default:
        return Literal(type, Long(-50, 50) * kHour * 1000 + Long(-2, 2));
    }
  }

  Row MakeRow(const spec::Schema& schema) {
    Row row(kColumns + 1);
    for (int id = 1; id <= kColumns; ++id) {
      const auto& field = *schema.FindFieldById(id);
      if (!field.required && Chance(0.12)) {
        row[id] = Literal::Null(field.type);
      } else if (id == 7 && Chance(0.08)) {
        row[id] = Literal(field.type, std::nan(""));
      } else {
        row[id] = Value(id, field.type);
      }
    }
    return row;
  }

  // A random transform that applies to column `id`.
  Transform TransformFor(int id) {
    std::vector<Transform> options = {Transform::Identity(), Transform::Void()};
    if (id != 7) options.push_back(Transform::Bucket(Pick(std::vector<int>{2, 3, 5, 16})));
    if (id == 1 || id == 2 || id == 5 || id == 6) {
      options.push_back(Transform::Truncate(Pick(std::vector<int>{1, 2, 3, 10})));
    }
    if (id == 3 || id == 4 || id == 8 || id == 9) {
      options.insert(options.end(), {Transform::Year(), Transform::Month(), Transform::Day()});
      options.push_back(Transform::Day());
    }
    if (id == 4 || id == 8 || id == 9) options.push_back(Transform::Hour());
    return Pick(options);
  }

  spec::PartitionSpec MakeSpec() {
    spec::PartitionSpec spec;
    int fields = Int(1, 3);
    for (int i = 0; i < fields; ++i) {
      int id = Int(1, kColumns);
      spec.fields.push_back({id, {}, 1000 + i, "p" + std::to_string(i), TransformFor(id)});
    }
    return spec;
  }

  // A literal operand for a predicate on `term`: mostly a value of some row
  // (transformed like the term), sometimes a fresh one.
  Literal Operand(const BoundTerm& term, int id, const std::vector<Row>& rows) {
    Literal value;
    for (int attempt = 0; attempt < 5 && (value.is_null() || IsNan(value)); ++attempt) {
      value = Chance(0.7) ? Pick(rows)[id] : Value(id, term.source_type);
    }
    if (value.is_null() || IsNan(value)) value = Literal(term.source_type, 1.0);
    if (!term.transform) return value;
    return *term.transform->Apply(value);
  }

  static bool IsNan(const Literal& value) {
    const auto* d = std::get_if<double>(&value.value());
    return d != nullptr && std::isnan(*d);
  }

  ExpressionPtr Filter(const spec::Schema& schema, const spec::PartitionSpec& spec,
                       const std::vector<Row>& rows, int depth) {
    if (depth > 0 && Chance(0.45)) {
      auto left = Filter(schema, spec, rows, depth - 1);
      auto right = Filter(schema, spec, rows, depth - 1);
      int kind = Int(0, 2);
      if (kind == 0) return Expression::And(left, right);
      if (kind == 1) return Expression::Or(left, right);
      return Expression::Not(left);
    }
    int id = Int(1, kColumns);
    const auto& field = *schema.FindFieldById(id);
    Term term{field.name, std::nullopt};
    // Sometimes a predicate on a transform of the column, often one the
    // spec partitions by.
    if (Chance(0.2)) {
      std::vector<Transform> candidates;
      for (const auto& partition_field : spec.fields) {
        if (partition_field.source_id == id &&
            partition_field.transform.kind() != spec::TransformKind::kVoid) {
          candidates.push_back(partition_field.transform);
        }
      }
      Transform transform = candidates.empty() || Chance(0.3) ? TransformFor(id) : Pick(candidates);
      if (transform.kind() != spec::TransformKind::kVoid) term.transform = transform;
    }
    BoundTerm bound_term{id, field.type, term.transform, field.type, !field.required};
    if (term.transform && term.transform->kind() != spec::TransformKind::kIdentity) {
      bound_term.type = *term.transform->ResultType(field.type);
    } else {
      bound_term.transform.reset();
    }
    std::vector<Operation> ops = {Operation::kIsNull, Operation::kNotNull, Operation::kLt,
                                  Operation::kLtEq,   Operation::kGt,      Operation::kGtEq,
                                  Operation::kEq,     Operation::kNotEq,   Operation::kIn,
                                  Operation::kNotIn};
    bool string_term = bound_term.type->id() == TypeId::kString;
    if (string_term) ops.insert(ops.end(), {Operation::kStartsWith, Operation::kNotStartsWith});
    if (bound_term.type->id() == TypeId::kDouble) {
      ops.insert(ops.end(), {Operation::kIsNan, Operation::kNotNan});
    }
    Operation op = Pick(ops);
    std::vector<Literal> literals;
    if (op == Operation::kStartsWith || op == Operation::kNotStartsWith) {
      std::string text = std::get<std::string>(Operand(bound_term, id, rows).value());
      literals.push_back(Literal::String(std::string(spec::TruncateUtf8(text, Int(0, 4)))));
    } else if (IsLiteral(op)) {
      literals.push_back(Operand(bound_term, id, rows));
    } else if (IsSet(op)) {
      int count = Int(1, 4);
      for (int i = 0; i < count; ++i) literals.push_back(Operand(bound_term, id, rows));
    }
    return Expression::Predicate(op, std::move(term), std::move(literals));
  }

 private:
  std::mt19937_64 random_;
};

std::string TupleKey(const std::vector<Literal>& tuple) {
  std::string key;
  for (const auto& value : tuple) {
    key += value.is_null() ? "N" : "V" + std::to_string(value.ToBytes().size()) + value.ToBytes();
  }
  return key;
}

bool IsNanValue(const Literal& value) {
  const auto* d = std::get_if<double>(&value.value());
  return d != nullptr && std::isnan(*d);
}

// The metrics a writer records for `file`'s rows; string bounds truncated to
// two code points when `truncate_strings`, and some metrics left out.
void ComputeMetrics(File& file, const spec::Schema& schema, bool truncate_strings,
                    Generator& generator) {
  auto& data = file.data_file;
  data.partition = file.partition;
  data.record_count = static_cast<int64_t>(file.rows.size());
  for (int id = 1; id <= kColumns; ++id) {
    if (generator.Chance(0.05)) continue;  // no metrics for this column
    const TypePtr& type = schema.FindFieldById(id)->type;
    int64_t nulls = 0, nans = 0;
    std::optional<Literal> lower, upper;
    for (const Row& row : file.rows) {
      const Literal& value = row[id];
      if (value.is_null()) {
        ++nulls;
        continue;
      }
      if (IsNanValue(value)) {
        ++nans;
        continue;
      }
      if (!lower || CompareLiterals(value, *lower) < 0) lower = value;
      if (!upper || CompareLiterals(value, *upper) > 0) upper = value;
    }
    data.value_counts[id] = data.record_count;
    data.null_value_counts[id] = nulls;
    if (type->id() == TypeId::kDouble) data.nan_value_counts[id] = nans;
    if (generator.Chance(0.1)) continue;  // counts but no bounds
    if (lower) {
      std::string bytes = lower->ToBytes();
      if (truncate_strings && type->id() == TypeId::kString) {
        bytes = std::string(spec::TruncateUtf8(bytes, 2));
      }
      data.lower_bounds[id] = bytes;
    }
    if (upper) {
      std::optional<std::string> bytes = upper->ToBytes();
      if (truncate_strings && type->id() == TypeId::kString) {
        bytes = spec::TruncateUtf8UpperBound(*bytes, 2);
      }
      if (bytes) data.upper_bounds[id] = *bytes;
    }
  }
}

struct Table {
  spec::PartitionSpec spec;
  std::vector<Row> rows;
  std::vector<File> files;
  std::vector<std::vector<size_t>> manifests;  // file indexes
  std::vector<spec::ManifestFile> manifest_files;
};

Table MakeTable(Generator& generator, const spec::Schema& schema, spec::PartitionSpec spec,
                int row_count) {
  Table table;
  table.spec = std::move(spec);
  std::map<std::string, size_t> file_of_tuple;
  for (int r = 0; r < row_count; ++r) {
    Row row = generator.MakeRow(schema);
    std::vector<Literal> tuple;
    for (const auto& field : table.spec.fields) {
      tuple.push_back(*field.transform.Apply(row[field.source_id]));
    }
    // Two files per partition at most, so files differ in their metrics.
    std::string key = TupleKey(tuple) + (generator.Chance(0.3) ? "#2" : "");
    auto [it, inserted] = file_of_tuple.emplace(key, table.files.size());
    if (inserted) table.files.push_back(File{tuple, {}, {}});
    table.files[it->second].rows.push_back(row);
    table.rows.push_back(std::move(row));
  }
  bool truncate_strings = generator.Chance(0.5);
  for (auto& file : table.files) ComputeMetrics(file, schema, truncate_strings, generator);
  auto partition_type = *table.spec.PartitionType(schema);
  for (size_t i = 0; i < table.files.size();) {
    size_t count = static_cast<size_t>(generator.Int(1, 4));
    std::vector<size_t> members;
    avro::PartitionSummaryBuilder summaries(partition_type);
    for (; i < table.files.size() && members.size() < count; ++i) {
      members.push_back(i);
      summaries.Update(table.files[i].partition);
    }
    spec::ManifestFile manifest;
    manifest.partitions = summaries.Summaries();
    table.manifests.push_back(std::move(members));
    table.manifest_files.push_back(std::move(manifest));
  }
  return table;
}

struct Counts {
  int files = 0;
  int files_matching = 0;
  int pruned_by_partition = 0;
  int pruned_by_metrics = 0;
  int manifests = 0;
  int manifests_pruned = 0;
  int strict_partitions = 0;
  int residual_simplified = 0;
};

// Checks (a), (b) and (c) for one filter on one table; adds to `counts`.
void CheckFilter(const Expression& filter, const Table& table, const spec::Schema& schema,
                 Counts& counts) {
  auto bound = Bind(filter, schema);
  ASSERT_THAT(bound, IsOk()) << filter.ToString();
  const BoundExpression& expression = **bound;
  auto partitions = PartitionEvaluator::Make(expression, table.spec, schema);
  auto manifests = ManifestEvaluator::Make(expression, table.spec, schema);
  auto residuals = ResidualEvaluator::Make(*bound, table.spec, schema);
  auto strict = ProjectStrict(expression, table.spec, schema);
  ASSERT_THAT(partitions, IsOk());
  ASSERT_THAT(manifests, IsOk());
  ASSERT_THAT(residuals, IsOk());
  ASSERT_THAT(strict, IsOk());
  MetricsEvaluator metrics(*bound, schema);

  auto matches = [&](const BoundExpression& e, const Row& row) {
    return EvaluateRow(e, [&](int32_t id) -> const Literal& { return row[id]; });
  };
  std::vector<bool> file_matches;
  for (const File& file : table.files) {
    bool any = false, all = true;
    for (const Row& row : file.rows) {
      bool match = matches(expression, row);
      any = any || match;
      all = all && match;
    }
    file_matches.push_back(any);
    ++counts.files;
    counts.files_matching += any;
    bool by_partition = partitions->MayMatch(file.partition);
    bool by_metrics = metrics.MayMatch(file.data_file);
    counts.pruned_by_partition += !by_partition;
    counts.pruned_by_metrics += !by_metrics;
    if (any) {
      EXPECT_TRUE(by_partition) << "partition evaluator pruned a matching file: "
                                << filter.ToString();
      EXPECT_TRUE(by_metrics) << "metrics evaluator pruned a matching file: " << filter.ToString();
    }
    bool strict_holds = EvaluateRow(**strict, [&](int32_t field_id) -> const Literal& {
      size_t i = 0;
      while (table.spec.fields[i].field_id != field_id) ++i;
      return file.partition[i];
    });
    counts.strict_partitions += strict_holds;
    if (strict_holds) {
      EXPECT_TRUE(all) << "strict projection accepted a partition with a non-matching row: "
                       << filter.ToString() << " projected " << (*strict)->ToString();
    }
    BoundExpressionPtr residual = residuals->ResidualFor(file.partition);
    counts.residual_simplified += !residual->Equals(expression);
    for (const Row& row : file.rows) {
      EXPECT_EQ(matches(expression, row), matches(*residual, row))
          << filter.ToString() << " residual " << residual->ToString(&schema);
    }
  }
  for (size_t m = 0; m < table.manifests.size(); ++m) {
    bool any = false;
    for (size_t file : table.manifests[m]) any = any || file_matches[file];
    bool keep = manifests->MayMatch(table.manifest_files[m]);
    ++counts.manifests;
    counts.manifests_pruned += !keep;
    if (any) {
      EXPECT_TRUE(keep) << "manifest evaluator pruned a matching manifest: " << filter.ToString();
    }
  }
}

TEST(PruningTest, EveryEvaluatorAgreesWithBruteForce) {
  auto schema = GeneratedSchema();
  Generator generator(20261202);
  Counts counts;
  for (int table_index = 0; table_index < 600; ++table_index) {
    Table table = MakeTable(generator, *schema, generator.MakeSpec(), 160);
    for (int f = 0; f < 40; ++f) {
      auto filter = generator.Filter(*schema, table.spec, table.rows, 3);
      CheckFilter(*filter, table, *schema, counts);
      if (::testing::Test::HasFailure()) return;
    }
  }
  // The generated filters prune a fair share: the evaluators do more than
  // keep everything.
  std::cout << counts.files << " file checks: " << counts.files_matching << " matching, "
            << counts.pruned_by_partition << " pruned by partition, " << counts.pruned_by_metrics
            << " by metrics; " << counts.manifests_pruned << " of " << counts.manifests
            << " manifests pruned; strict projection held for " << counts.strict_partitions
            << "; residual simpler for " << counts.residual_simplified << "\n";
  EXPECT_GT(counts.pruned_by_partition, counts.files / 20);
  EXPECT_GT(counts.pruned_by_metrics, counts.files / 10);
  EXPECT_GT(counts.manifests_pruned, counts.manifests / 20);
  EXPECT_GT(counts.strict_partitions, counts.files / 20);
  EXPECT_GT(counts.residual_simplified, counts.files / 10);
}

TEST(PruningTest, SelectiveFiltersPruneMostFiles) {
  auto schema = GeneratedSchema();
  Generator generator(7);
  struct Case {
    std::vector<spec::PartitionField> fields;
    const char* filter;
  };
  Case cases[] = {
      {{{3, {}, 1000, "d_month", Transform::Month()}}, "d >= '1970-03-01' and d < '1970-04-01'"},
      {{{4, {}, 1000, "ts_day", Transform::Day()}}, "ts > '1970-01-02T10:00:00'"},
      {{{5, {}, 1000, "s_trunc", Transform::Truncate(1)}}, "s starts with 'ab'"},
      {{{2, {}, 1000, "l_bucket", Transform::Bucket(16)}}, "l in (5, 6)"},
      {{{1, {}, 1000, "i", Transform::Identity()}}, "i = 7 or i = -3"},
      {{{6, {}, 1000, "dec_trunc", Transform::Truncate(100)}}, "dec < -25.5"},
      {{{9, {}, 1000, "tsns_hour", Transform::Hour()}}, "tsns < '1969-12-31T00:00:00'"},
  };
  for (const auto& c : cases) {
    spec::PartitionSpec spec;
    spec.fields = c.fields;
    Table table = MakeTable(generator, *schema, spec, 2000);
    auto parsed = ParseExpression(c.filter);
    ASSERT_THAT(parsed, IsOk()) << c.filter;
    Counts counts;
    CheckFilter(**parsed, table, *schema, counts);
    SCOPED_TRACE(c.filter);
    EXPECT_GT(counts.pruned_by_partition, counts.files / 2)
        << counts.pruned_by_partition << " of " << counts.files;
    EXPECT_LT(counts.files_matching, counts.files / 2);
    EXPECT_GT(counts.manifests_pruned, 0);
  }
  // Metrics prune on the files' own bounds.
  std::vector<spec::PartitionField> by_long = {{2, {}, 1000, "l", Transform::Identity()}};
  spec::PartitionSpec by_l;
  by_l.fields = by_long;
  Table table = MakeTable(generator, *schema, by_l, 2000);
  auto parsed = ParseExpression("l > 900 or l < -950");
  ASSERT_THAT(parsed, IsOk());
  Counts counts;
  CheckFilter(**parsed, table, *schema, counts);
  EXPECT_GT(counts.pruned_by_metrics, counts.files * 3 / 4);
}

}  // namespace
}  // namespace skade::expr
