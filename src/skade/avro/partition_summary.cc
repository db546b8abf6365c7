#include "skade/avro/partition_summary.h"

#include <cmath>
#include <cstring>
#include <variant>

namespace skade::avro {

namespace {

using spec::Literal;
using spec::TypeId;

template <typename T>
int ThreeWay(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// IEEE 754 totalOrder for non-NaN values: equal magnitudes order by sign, so
// -0.0 comes before +0.0.
template <typename T>
int CompareFloating(T a, T b) {
  if (a < b) return -1;
  if (b < a) return 1;
  return ThreeWay(!std::signbit(a), !std::signbit(b));
}

// Compares big-endian two's complement integers of any length.
int CompareUnscaled(const std::string& a, const std::string& b) {
  size_t length = std::max(a.size(), b.size());
  auto extend = [length](const std::string& value) {
    char fill = !value.empty() && static_cast<uint8_t>(value[0]) >= 0x80 ? '\xFF' : '\x00';
    std::string out(length - value.size(), fill);
    out += value;
    // Flipping the sign bit makes unsigned byte order match numeric order.
    if (!out.empty()) out[0] = static_cast<char>(out[0] ^ 0x80);
    return out;
  };
  std::string left = extend(a);
  std::string right = extend(b);
  int result = std::memcmp(left.data(), right.data(), length);
  return result < 0 ? -1 : (result > 0 ? 1 : 0);
}

bool IsNaN(const Literal& value) {
  if (const float* f = std::get_if<float>(&value.value())) return std::isnan(*f);
  if (const double* d = std::get_if<double>(&value.value())) return std::isnan(*d);
  return false;
}

}  // namespace

int CompareLiterals(const spec::Type& type, const Literal& a, const Literal& b) {
  if (a.value().index() != b.value().index()) return ThreeWay(a.value().index(), b.value().index());
  bool decimal = type.id() == TypeId::kDecimal;
  return std::visit(
      [&](const auto& left) -> int {
        using T = std::decay_t<decltype(left)>;
        const T& right = std::get<T>(b.value());
        if constexpr (std::is_floating_point_v<T>) {
          return CompareFloating(left, right);
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (decimal) return CompareUnscaled(left, right);
          // std::string compares as unsigned char, as Iceberg orders bytes.
          int result = left.compare(right);
          return result < 0 ? -1 : (result > 0 ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else {
          return ThreeWay(left, right);
        }
      },
      a.value());
}

PartitionSummaryBuilder::PartitionSummaryBuilder(spec::TypePtr partition_type)
    : partition_type_(std::move(partition_type)), stats_(partition_type_->fields().size()) {}

void PartitionSummaryBuilder::Update(const std::vector<Literal>& partition) {
  for (size_t i = 0; i < stats_.size() && i < partition.size(); ++i) {
    FieldStats& stats = stats_[i];
    const spec::Type& type = *partition_type_->fields()[i].type;
    const Literal& value = partition[i];
    if (value.is_null()) {
      stats.contains_null = true;
    } else if (IsNaN(value)) {
      stats.contains_nan = true;
    } else {
      if (!stats.lower || CompareLiterals(type, value, *stats.lower) < 0) stats.lower = value;
      if (!stats.upper || CompareLiterals(type, value, *stats.upper) > 0) stats.upper = value;
    }
  }
}

std::vector<spec::PartitionFieldSummary> PartitionSummaryBuilder::Summaries() const {
  std::vector<spec::PartitionFieldSummary> summaries;
  summaries.reserve(stats_.size());
  for (size_t i = 0; i < stats_.size(); ++i) {
    const FieldStats& stats = stats_[i];
    const spec::TypePtr& type = partition_type_->fields()[i].type;
    spec::PartitionFieldSummary summary;
    summary.contains_null = stats.contains_null;
    summary.contains_nan = stats.contains_nan;
    // Bounds are serialized with the partition field's type, whatever type
    // the caller's literal carried.
    if (stats.lower) summary.lower_bound = Literal(type, stats.lower->value()).ToBytes();
    if (stats.upper) summary.upper_bound = Literal(type, stats.upper->value()).ToBytes();
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

}  // namespace skade::avro
