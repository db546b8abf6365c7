#include "skade/expr/projection.h"

#include <optional>

#include "skade/spec/decimal_internal.h"
#include "skade/spec/truncation.h"

namespace skade::expr {

namespace {

using spec::Literal;
using spec::TransformKind;
using spec::TypeId;

enum class Mode { kInclusive, kStrict };

// The value one unit above (`delta` 1) or below (-1) `value` in its type's
// integer representation (int, date, long, time, timestamps, the unscaled
// decimal); nullopt at the end of the range.
std::optional<Literal> Adjacent(const Literal& value, int delta) {
  const auto& v = value.value();
  if (value.type()->id() == TypeId::kDecimal) {
    spec::Int128 unscaled = spec::FromBigEndian(std::get<std::string>(v));
    return Literal(value.type(), spec::MinimalBigEndian(unscaled + delta));
  }
  if (const auto* i = std::get_if<int32_t>(&v)) {
    if ((delta > 0 && *i == INT32_MAX) || (delta < 0 && *i == INT32_MIN)) return std::nullopt;
    return Literal(value.type(), *i + delta);
  }
  if (const auto* l = std::get_if<int64_t>(&v)) {
    if ((delta > 0 && *l == INT64_MAX) || (delta < 0 && *l == INT64_MIN)) return std::nullopt;
    return Literal(value.type(), *l + delta);
  }
  return std::nullopt;
}

class Projector {
 public:
  Projector(const spec::PartitionSpec& spec, const spec::Schema& schema, Mode mode)
      : spec_(spec), schema_(schema), mode_(mode) {}

  Result<BoundExpressionPtr> Project(const BoundExpression& expression) const {
    switch (expression.op()) {
      case Operation::kTrue:
      case Operation::kFalse:
        return expression.IsTrue() ? BoundExpression::True() : BoundExpression::False();
      case Operation::kAnd:
      case Operation::kOr: {
        SKADE_ASSIGN_OR_RAISE(auto left, Project(*expression.left()));
        SKADE_ASSIGN_OR_RAISE(auto right, Project(*expression.right()));
        return expression.op() == Operation::kAnd ? BoundExpression::And(left, right)
                                                  : BoundExpression::Or(left, right);
      }
      default:
        break;
    }
    // Each partition field of the column gives a projection the predicate
    // implies (inclusive: all of them hold) or that implies it (strict: any).
    BoundExpressionPtr result;
    for (const spec::PartitionField& field : spec_.fields) {
      if (field.source_id != expression.term().field_id || field.source_ids.size() > 1) continue;
      const spec::NestedField* source = schema_.FindFieldById(field.source_id);
      if (source == nullptr) continue;
      SKADE_ASSIGN_OR_RAISE(auto projected, ProjectOnto(expression, field, source->type));
      if (!projected) continue;
      if (!result) {
        result = projected;
      } else {
        result = mode_ == Mode::kInclusive ? BoundExpression::And(result, projected)
                                           : BoundExpression::Or(result, projected);
      }
    }
    if (result) return result;
    return mode_ == Mode::kInclusive ? BoundExpression::True() : BoundExpression::False();
  }

 private:
  // The projection of one predicate through one partition field, or null
  // when that field cannot express it.
  Result<BoundExpressionPtr> ProjectOnto(const BoundExpression& predicate,
                                         const spec::PartitionField& field,
                                         const spec::TypePtr& source_type) const {
    const spec::Transform& transform = field.transform;
    if (transform.kind() == TransformKind::kVoid || transform.kind() == TransformKind::kUnknown ||
        !transform.CanTransform(*source_type)) {
      return BoundExpressionPtr();
    }
    SKADE_ASSIGN_OR_RAISE(spec::TypePtr result_type, transform.ResultType(source_type));
    BoundTerm term{field.field_id, result_type, std::nullopt, result_type, true};
    Operation op = predicate.op();
    const auto& literals = predicate.literals();
    auto same = [&](Operation projected_op, std::vector<Literal> values) {
      return BoundExpression::Predicate(projected_op, term, std::move(values));
    };
    if (predicate.term().transform) {
      // `day(ts) = …` is a predicate on that very partition field.
      if (*predicate.term().transform != transform) return BoundExpressionPtr();
      return same(op, literals);
    }
    if (transform.kind() == TransformKind::kIdentity) return same(op, literals);
    // Every other transform maps null, and only null, to null.
    if (op == Operation::kIsNull || op == Operation::kNotNull) return same(op, {});
    if (IsUnary(op)) return BoundExpressionPtr();

    std::vector<Literal> transformed;
    for (const Literal& literal : literals) {
      SKADE_ASSIGN_OR_RAISE(Literal value, transform.Apply(literal));
      transformed.push_back(std::move(value));
    }
    auto on = [&](Operation projected_op, const Literal& value) -> Result<BoundExpressionPtr> {
      SKADE_ASSIGN_OR_RAISE(Literal result, transform.Apply(value));
      return same(projected_op, {std::move(result)});
    };
    auto adjacent = [&](Operation projected_op, int delta) -> Result<BoundExpressionPtr> {
      auto value = Adjacent(literals[0], delta);
      if (!value) return BoundExpressionPtr();
      return on(projected_op, *value);
    };
    bool inclusive = mode_ == Mode::kInclusive;

    if (transform.kind() == TransformKind::kBucket) {
      // Buckets keep no order: only (in)equality survives.
      if (inclusive && (op == Operation::kEq || op == Operation::kIn)) return same(op, transformed);
      if (!inclusive && (op == Operation::kNotEq || op == Operation::kNotIn)) {
        return same(op, transformed);
      }
      return BoundExpressionPtr();
    }

    TypeId source_id = source_type->id();
    if (transform.kind() == TransformKind::kTruncate &&
        (source_id == TypeId::kString || source_id == TypeId::kBinary)) {
      return ProjectTruncatedBytes(op, literals, transformed, same, transform.param(),
                                   source_id == TypeId::kString);
    }

    // Truncated numbers and the time transforms keep order: each partition
    // holds one contiguous range of values.
    if (inclusive) {
      switch (op) {
        case Operation::kLt:
          return adjacent(Operation::kLtEq, -1);
        case Operation::kLtEq:
          return same(Operation::kLtEq, transformed);
        case Operation::kGt:
          return adjacent(Operation::kGtEq, 1);
        case Operation::kGtEq:
          return same(Operation::kGtEq, transformed);
        case Operation::kEq:
        case Operation::kIn:
          return same(op, transformed);
        default:
          return BoundExpressionPtr();
      }
    }
    switch (op) {
      case Operation::kLt:
        return same(Operation::kLt, transformed);
      case Operation::kLtEq:
        return adjacent(Operation::kLt, 1);
      case Operation::kGt:
        return same(Operation::kGt, transformed);
      case Operation::kGtEq:
        return adjacent(Operation::kGt, -1);
      case Operation::kNotEq:
      case Operation::kNotIn:
        return same(op, transformed);
      default:
        return BoundExpressionPtr();
    }
  }

  // truncate[W] of strings (W code points) and binary (W bytes): order is
  // kept, and a prefix no longer than W survives whole.
  template <typename Same>
  Result<BoundExpressionPtr> ProjectTruncatedBytes(Operation op,
                                                   const std::vector<Literal>& literals,
                                                   const std::vector<Literal>& transformed,
                                                   const Same& same, int32_t width,
                                                   bool utf8) const {
    bool short_prefix = false;
    if (op == Operation::kStartsWith || op == Operation::kNotStartsWith) {
      const std::string& prefix = std::get<std::string>(literals[0].value());
      short_prefix =
          (utf8 ? spec::TruncateUtf8(prefix, width) : spec::TruncateBinary(prefix, width)).size() ==
          prefix.size();
    }
    if (mode_ == Mode::kInclusive) {
      switch (op) {
        case Operation::kLt:
        case Operation::kLtEq:
          return same(Operation::kLtEq, transformed);
        case Operation::kGt:
        case Operation::kGtEq:
          return same(Operation::kGtEq, transformed);
        case Operation::kEq:
        case Operation::kIn:
          return same(op, transformed);
        case Operation::kStartsWith:
          return short_prefix ? same(op, literals) : same(Operation::kEq, transformed);
        case Operation::kNotStartsWith:
          return short_prefix ? same(op, literals) : BoundExpressionPtr();
        default:
          return BoundExpressionPtr();
      }
    }
    switch (op) {
      case Operation::kLt:
      case Operation::kLtEq:
        return same(Operation::kLt, transformed);
      case Operation::kGt:
      case Operation::kGtEq:
        return same(Operation::kGt, transformed);
      case Operation::kNotEq:
      case Operation::kNotIn:
        return same(op, transformed);
      case Operation::kStartsWith:
        return short_prefix ? same(op, literals) : BoundExpressionPtr();
      case Operation::kNotStartsWith:
        // A row starting with a longer prefix lies in the partition of its
        // truncation, so every other partition holds none.
        return short_prefix ? same(op, literals) : same(Operation::kNotEq, transformed);
      default:
        return BoundExpressionPtr();
    }
  }

  const spec::PartitionSpec& spec_;
  const spec::Schema& schema_;
  Mode mode_;
};

}  // namespace

Result<BoundExpressionPtr> ProjectInclusive(const BoundExpression& filter,
                                            const spec::PartitionSpec& spec,
                                            const spec::Schema& schema) {
  return Projector(spec, schema, Mode::kInclusive).Project(filter);
}

Result<BoundExpressionPtr> ProjectStrict(const BoundExpression& filter,
                                         const spec::PartitionSpec& spec,
                                         const spec::Schema& schema) {
  return Projector(spec, schema, Mode::kStrict).Project(filter);
}

}  // namespace skade::expr
