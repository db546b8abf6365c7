#include <cmath>

#include "skade/expr/bounds_internal.h"

namespace skade::expr::internal {

namespace {

bool StartsWith(const spec::Literal& value, std::string_view prefix) {
  const auto* text = std::get_if<std::string>(&value.value());
  return text != nullptr && text->starts_with(prefix);
}

// `bound` cut to the prefix's length, compared with the prefix.
int ComparePrefix(const spec::Literal& bound, std::string_view prefix) {
  const auto* text = std::get_if<std::string>(&bound.value());
  if (text == nullptr) return 0;
  std::string_view head = std::string_view(*text).substr(0, prefix.size());
  int c = head.compare(prefix);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

std::optional<spec::Literal> ReadBound(const spec::TypePtr& type, const std::string* bytes,
                                       bool lower) {
  if (bytes == nullptr || !type) return std::nullopt;
  auto bound = spec::Literal::FromBytes(type, *bytes);
  if (!bound) return std::nullopt;
  auto& value = bound->value();
  if (const auto* f = std::get_if<float>(&value)) {
    if (std::isnan(*f)) return std::nullopt;
    if (*f == 0) return spec::Literal(type, lower ? -0.0f : 0.0f);
  }
  if (const auto* d = std::get_if<double>(&value)) {
    if (std::isnan(*d)) return std::nullopt;
    if (*d == 0) return spec::Literal(type, lower ? -0.0 : 0.0);
  }
  return std::move(*bound);
}

bool BoundsMayMatch(const BoundExpression& predicate, const std::optional<spec::Literal>& lower,
                    const std::optional<spec::Literal>& upper) {
  const auto& literals = predicate.literals();
  // A set is compared value by value, for every file and manifest a scan
  // prunes: past kMaxSetValuesCompared (Iceberg Java's limit, 200) it may
  // match, so a client's million-value `in` costs no more than a small one.
  if ((predicate.op() == Operation::kIn || predicate.op() == Operation::kNotIn) &&
      literals.size() > kMaxSetValuesCompared) {
    return true;
  }
  switch (predicate.op()) {
    case Operation::kLt:
      return !lower || CompareLiterals(*lower, literals[0]) < 0;
    case Operation::kLtEq:
      return !lower || CompareLiterals(*lower, literals[0]) <= 0;
    case Operation::kGt:
      return !upper || CompareLiterals(*upper, literals[0]) > 0;
    case Operation::kGtEq:
      return !upper || CompareLiterals(*upper, literals[0]) >= 0;
    case Operation::kEq:
    case Operation::kIn:
      for (const auto& literal : literals) {
        if ((!lower || CompareLiterals(*lower, literal) <= 0) &&
            (!upper || CompareLiterals(*upper, literal) >= 0)) {
          return true;
        }
      }
      return false;
    case Operation::kNotEq:
    case Operation::kNotIn:
      // Equal bounds hold one value (a truncated upper bound never equals
      // its lower one); if it is excluded, so is every value.
      if (!lower || !upper || CompareLiterals(*lower, *upper) != 0) return true;
      for (const auto& literal : literals) {
        if (CompareLiterals(*lower, literal) == 0) return false;
      }
      return true;
    case Operation::kStartsWith: {
      const auto& prefix = std::get<std::string>(literals[0].value());
      if (lower && ComparePrefix(*lower, prefix) > 0) return false;
      if (upper && ComparePrefix(*upper, prefix) < 0) return false;
      return true;
    }
    case Operation::kNotStartsWith: {
      // The strings with a prefix are one contiguous range: if both bounds
      // have it, so has every value between them.
      const auto& prefix = std::get<std::string>(literals[0].value());
      return !(lower && upper && StartsWith(*lower, prefix) && StartsWith(*upper, prefix));
    }
    default:
      return true;
  }
}

}  // namespace skade::expr::internal
