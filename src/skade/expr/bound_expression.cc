#include "skade/expr/bound_expression.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "skade/expr/expression_text_internal.h"
#include "skade/spec/decimal_internal.h"
#include "skade/spec/literal_json.h"
#include "skade/spec/temporal_internal.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::expr {

namespace {

using spec::Literal;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

// A literal converted to a type, or the side of the type's range it fell
// out of (Iceberg Java's AboveMax / BelowMin).
struct Converted {
  enum Kind { kValue, kAboveMax, kBelowMin } kind = kValue;
  Literal literal;
};

Converted Above() { return {Converted::kAboveMax, {}}; }
Converted Below() { return {Converted::kBelowMin, {}}; }

bool IsFloating(TypeId id) { return id == TypeId::kFloat || id == TypeId::kDouble; }

spec::Int128 PowerOfTen(int32_t exponent) {
  spec::Int128 value = 1;
  for (int32_t i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// An unscaled decimal value checked against `type`'s precision.
Converted DecimalOf(spec::Int128 unscaled, const TypePtr& type) {
  spec::Int128 limit = PowerOfTen(std::min(type->decimal_precision(), 38));
  if (unscaled >= limit) return Above();
  if (unscaled <= -limit) return Below();
  return {Converted::kValue, Literal(type, spec::MinimalBigEndian(unscaled))};
}

// An integer value (from an int or long literal) as `type`.
Result<Converted> FromInteger(int64_t value, const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kInt:
    case TypeId::kDate:
      if (value > INT32_MAX) return Above();
      if (value < INT32_MIN) return Below();
      return Converted{Converted::kValue, Literal(type, static_cast<int32_t>(value))};
    case TypeId::kTime:
      // A time of day is in [00:00, 24:00).
      if (value >= 86'400'000'000) return Above();
      if (value < 0) return Below();
      return Converted{Converted::kValue, Literal(type, value)};
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Converted{Converted::kValue, Literal(type, value)};
    case TypeId::kFloat:
      return Converted{Converted::kValue, Literal(type, static_cast<float>(value))};
    case TypeId::kDouble:
      return Converted{Converted::kValue, Literal(type, static_cast<double>(value))};
    case TypeId::kDecimal: {
      if (type->decimal_scale() < 0 || type->decimal_scale() > 38) break;
      // |value| < 2^63 < 10^19, so value * 10^scale fits when scale <= 19;
      // beyond that, any non-zero value exceeds a 38-digit precision.
      if (type->decimal_scale() > 19 && value != 0) return value > 0 ? Above() : Below();
      return DecimalOf(static_cast<spec::Int128>(value) * PowerOfTen(type->decimal_scale()), type);
    }
    default:
      break;
  }
  return InvalidArgument("Cannot convert ", value, " to ", type->ToString());
}

Result<Converted> FromDouble(double value, const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kFloat:
      if (std::isfinite(value) && value > FLT_MAX) return Above();
      if (std::isfinite(value) && value < -FLT_MAX) return Below();
      return Converted{Converted::kValue, Literal(type, static_cast<float>(value))};
    case TypeId::kDouble:
      return Converted{Converted::kValue, Literal(type, value)};
    case TypeId::kDecimal: {
      if (!std::isfinite(value)) break;
      if (value >= 1e38) return Above();
      if (value <= -1e38) return Below();
      // The shortest decimal text that reads back as `value`, converted exactly.
      char buffer[512];
      auto [end, ec] =
          std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed);
      if (ec != std::errc()) break;
      auto wide = spec::LiteralFromJsonString(Type::Decimal(38, type->decimal_scale()),
                                              std::string_view(buffer, end - buffer));
      if (!wide) break;
      return DecimalOf(spec::FromBigEndian(std::get<std::string>(wide->value())), type);
    }
    default:
      break;
  }
  return InvalidArgument("Cannot convert ", value, " to ", type->ToString(),
                         type->id() == TypeId::kDecimal ? " exactly" : "");
}

bool SameZone(TypeId a, TypeId b) {
  auto zoned = [](TypeId id) { return id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs; };
  return zoned(a) == zoned(b);
}

Result<Converted> Convert(const Literal& literal, const TypePtr& type) {
  if (literal.is_null()) return InvalidArgument("Cannot convert a null literal");
  const TypePtr& from = literal.type();
  if (from && spec::TypeEquals(from, type)) return Converted{Converted::kValue, literal};
  const auto& value = literal.value();
  TypeId from_id = from ? from->id() : TypeId::kUnknown;
  switch (from_id) {
    case TypeId::kInt:
      return FromInteger(std::get<int32_t>(value), type);
    case TypeId::kLong:
      return FromInteger(std::get<int64_t>(value), type);
    case TypeId::kFloat:
      return FromDouble(std::get<float>(value), type);
    case TypeId::kDouble:
      return FromDouble(std::get<double>(value), type);
    case TypeId::kString: {
      const std::string& text = std::get<std::string>(value);
      if (IsFloating(type->id())) {
        // How JSON writers spell the values JSON numbers cannot hold.
        if (text == "NaN") return FromDouble(std::numeric_limits<double>::quiet_NaN(), type);
        if (text == "Infinity") return FromDouble(std::numeric_limits<double>::infinity(), type);
        if (text == "-Infinity") return FromDouble(-std::numeric_limits<double>::infinity(), type);
        break;
      }
      if (type->id() == TypeId::kBoolean || type->id() == TypeId::kInt ||
          type->id() == TypeId::kLong) {
        break;
      }
      SKADE_ASSIGN_OR_RAISE(auto converted, spec::LiteralFromJsonString(type, text));
      return Converted{Converted::kValue, std::move(converted)};
    }
    case TypeId::kBinary:
      if (type->id() == TypeId::kBinary) return Converted{Converted::kValue, Literal(type, value)};
      if (type->id() == TypeId::kFixed &&
          std::get<std::string>(value).size() == static_cast<size_t>(type->fixed_length())) {
        return Converted{Converted::kValue, Literal(type, value)};
      }
      break;
    case TypeId::kFixed:
      if (type->id() == TypeId::kBinary) return Converted{Converted::kValue, Literal(type, value)};
      break;
    case TypeId::kDecimal:
      if (type->id() == TypeId::kDecimal && type->decimal_scale() == from->decimal_scale()) {
        return DecimalOf(spec::FromBigEndian(std::get<std::string>(value)), type);
      }
      if (IsFloating(type->id())) {
        double parsed = 0;
        std::string text = spec::LiteralJsonText(literal);
        std::from_chars(text.data(), text.data() + text.size(), parsed);
        return FromDouble(parsed, type);
      }
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      // Microseconds to nanoseconds, as Iceberg Java's TimestampLiteral.to.
      if ((type->id() == TypeId::kTimestampNs || type->id() == TypeId::kTimestampTzNs) &&
          SameZone(from_id, type->id())) {
        int64_t micros = std::get<int64_t>(value);
        if (micros > INT64_MAX / 1000) return Above();
        if (micros < INT64_MIN / 1000) return Below();
        return Converted{Converted::kValue, Literal(type, micros * 1000)};
      }
      break;
    default:
      break;
  }
  return InvalidArgument("Cannot convert ", spec::LiteralJsonText(literal),
                         from ? StrCat(" (", from->ToString(), ")") : std::string(), " to ",
                         type->ToString());
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `year(ts) = '2026'`, `month(ts) = '2026-11'`, `hour(ts) = '2026-11-01-10'`:
// the partition values as partition paths show them, for the transforms
// whose results are plain counts. Other literals are left alone.
Result<Literal> TransformValueFromText(const BoundTerm& term, const Literal& literal) {
  const auto* text = std::get_if<std::string>(&literal.value());
  if (!term.transform || text == nullptr || !literal.type() ||
      literal.type()->id() != TypeId::kString) {
    return literal;
  }
  spec::TransformKind kind = term.transform->kind();
  std::optional<IsoDateTime> parts;
  int64_t value = 0;
  switch (kind) {
    case spec::TransformKind::kYear:
      parts = ParseIsoDateTime(StrCat(*text, "-01-01"));
      if (text->size() == 4 && parts) value = spec::YearsFromEpoch(parts->days);
      break;
    case spec::TransformKind::kMonth:
      parts = ParseIsoDateTime(StrCat(*text, "-01"));
      if (text->size() == 7 && parts) value = spec::MonthsFromEpoch(parts->days);
      break;
    case spec::TransformKind::kHour: {
      bool shape =
          text->size() == 13 && (*text)[10] == '-' && IsDigit((*text)[11]) && IsDigit((*text)[12]);
      int hour = shape ? ((*text)[11] - '0') * 10 + ((*text)[12] - '0') : 24;
      if (hour < 24) parts = ParseIsoDateTime(text->substr(0, 10));
      if (parts) value = parts->days * 24 + hour;
      break;
    }
    default:
      return literal;
  }
  if (!parts || parts->has_time) {
    return InvalidArgument("Invalid ", term.transform->ToString(), " value '", *text,
                           "': expected ",
                           kind == spec::TransformKind::kYear    ? "YYYY"
                           : kind == spec::TransformKind::kMonth ? "YYYY-MM"
                                                                 : "YYYY-MM-DD-HH");
  }
  return Literal::Int(static_cast<int32_t>(value));
}

// Set literals in CompareLiterals order, each once.
void SortUnique(std::vector<Literal>& literals) {
  std::sort(literals.begin(), literals.end(),
            [](const Literal& a, const Literal& b) { return CompareLiterals(a, b) < 0; });
  literals.erase(
      std::unique(literals.begin(), literals.end(),
                  [](const Literal& a, const Literal& b) { return CompareLiterals(a, b) == 0; }),
      literals.end());
}

bool IsNan(const Literal& literal) {
  if (const auto* f = std::get_if<float>(&literal.value())) return std::isnan(*f);
  if (const auto* d = std::get_if<double>(&literal.value())) return std::isnan(*d);
  return false;
}

int ThreeWay(auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); }

// IEEE total order as Iceberg sorts: -0 < 0, NaN above everything.
int CompareFloating(double a, double b) {
  bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan || b_nan) return ThreeWay(a_nan, b_nan);
  if (a == b) return ThreeWay(!std::signbit(a), !std::signbit(b));
  return ThreeWay(a, b);
}

const spec::NestedField* ResolveColumn(const Term& term, const spec::Schema& schema,
                                       bool case_sensitive, std::string* error) {
  const spec::NestedField* field = schema.FindFieldByName(term.name, case_sensitive);
  if (field == nullptr) {
    *error = StrCat("Cannot find column '", term.name, "' in the schema");
    return nullptr;
  }
  if (field->type->is_nested()) {
    *error = StrCat("Cannot filter on '", term.name, "': a ", field->type->ToString(),
                    " column (filter on its primitive fields)");
    return nullptr;
  }
  for (int32_t parent = schema.FindParentId(field->id); parent >= 0;
       parent = schema.FindParentId(parent)) {
    const spec::NestedField* ancestor = schema.FindFieldById(parent);
    if (ancestor != nullptr && ancestor->type->id() != TypeId::kStruct) {
      *error =
          StrCat("Cannot filter on '", term.name, "': it is inside a ", ancestor->type->ToString());
      return nullptr;
    }
  }
  return field;
}

Result<BoundTerm> BindTerm(const Term& term, const spec::Schema& schema, bool case_sensitive) {
  std::string error;
  const spec::NestedField* field = ResolveColumn(term, schema, case_sensitive, &error);
  if (field == nullptr) return InvalidArgument(error);
  BoundTerm bound;
  bound.field_id = field->id;
  bound.source_type = field->type;
  bound.type = field->type;
  bound.optional = !field->required;
  for (int32_t parent = schema.FindParentId(field->id); parent >= 0;
       parent = schema.FindParentId(parent)) {
    const spec::NestedField* ancestor = schema.FindFieldById(parent);
    if (ancestor != nullptr && !ancestor->required) bound.optional = true;
  }
  if (term.transform && term.transform->kind() != spec::TransformKind::kIdentity) {
    const spec::Transform& transform = *term.transform;
    if (transform.kind() == spec::TransformKind::kUnknown ||
        transform.kind() == spec::TransformKind::kVoid || !transform.CanTransform(*field->type)) {
      return InvalidArgument("Cannot apply ", transform.ToString(), " to column '", term.name,
                             "' of type ", field->type->ToString());
    }
    SKADE_ASSIGN_OR_RAISE(bound.type, transform.ResultType(field->type));
    bound.transform = transform;
  }
  return bound;
}

// What a comparison with a value outside the term type's range folds to:
// true for every non-null row, or false.
BoundExpressionPtr Folded(Operation op, Converted::Kind kind, const BoundTerm& term) {
  bool above = kind == Converted::kAboveMax;
  bool holds = false;
  switch (op) {
    case Operation::kLt:
    case Operation::kLtEq:
      holds = above;
      break;
    case Operation::kGt:
    case Operation::kGtEq:
      holds = !above;
      break;
    case Operation::kNotEq:
      holds = true;
      break;
    default:
      holds = false;
      break;
  }
  if (!holds) return BoundExpression::False();
  return term.optional ? BoundExpression::Predicate(Operation::kNotNull, term)
                       : BoundExpression::True();
}

Result<BoundExpressionPtr> BindPredicate(const Expression& expression, const spec::Schema& schema,
                                         bool case_sensitive) {
  SKADE_ASSIGN_OR_RAISE(BoundTerm term, BindTerm(expression.term(), schema, case_sensitive));
  Operation op = expression.op();
  TypeId type_id = term.type->id();
  const std::string& name = expression.term().name;
  if (IsUnary(op)) {
    if ((op == Operation::kIsNan || op == Operation::kNotNan) && !IsFloating(type_id)) {
      return InvalidArgument("'", OperationName(op), "' needs a float or double column; '", name,
                             "' is ", term.type->ToString());
    }
    if (!term.optional && op == Operation::kIsNull) return BoundExpression::False();
    if (!term.optional && op == Operation::kNotNull) return BoundExpression::True();
    return BoundExpression::Predicate(op, std::move(term));
  }
  if (expression.literals().empty() || (IsLiteral(op) && expression.literals().size() != 1)) {
    return InvalidArgument("'", OperationName(op), "' on '", name, "' has ",
                           expression.literals().size(), " values");
  }
  if ((op == Operation::kStartsWith || op == Operation::kNotStartsWith) &&
      type_id != TypeId::kString) {
    return InvalidArgument("'", OperationName(op), "' needs a string column; '", name, "' is ",
                           term.type->ToString());
  }
  std::vector<Literal> literals;
  for (const Literal& written : expression.literals()) {
    SKADE_ASSIGN_OR_RAISE(Literal literal, TransformValueFromText(term, written));
    auto converted = Convert(literal, term.type);
    if (!converted) {
      return InvalidArgument("Invalid value for '", name, "': ", converted.error().message);
    }
    if (converted->kind != Converted::kValue) {
      // Out of range: a comparison folds; a set value cannot be in it.
      if (IsLiteral(op)) return Folded(op, converted->kind, term);
      continue;
    }
    if (IsNan(converted->literal)) {
      return InvalidArgument("Cannot compare '", name, "' with NaN: use 'is nan'");
    }
    literals.push_back(std::move(converted->literal));
  }
  if (IsSet(op)) {
    SortUnique(literals);
    if (literals.empty()) {
      // Every value was out of range.
      return Folded(op == Operation::kIn ? Operation::kEq : Operation::kNotEq, Converted::kAboveMax,
                    term);
    }
    if (literals.size() == 1) op = op == Operation::kIn ? Operation::kEq : Operation::kNotEq;
  }
  return BoundExpression::Predicate(op, std::move(term), std::move(literals));
}

void CollectFieldIds(const BoundExpression& expression, std::set<int32_t>* ids) {
  if (expression.IsPredicate()) {
    ids->insert(expression.term().field_id);
  } else if (expression.left()) {
    CollectFieldIds(*expression.left(), ids);
    if (expression.right()) CollectFieldIds(*expression.right(), ids);
  }
}

}  // namespace

bool BoundTerm::operator==(const BoundTerm& other) const {
  return field_id == other.field_id && spec::TypeEquals(source_type, other.source_type) &&
         transform == other.transform && spec::TypeEquals(type, other.type) &&
         optional == other.optional;
}

BoundExpressionPtr BoundExpression::True() {
  static const BoundExpressionPtr kTrue(new BoundExpression());
  return kTrue;
}

BoundExpressionPtr BoundExpression::False() {
  static const BoundExpressionPtr kFalse = [] {
    auto* e = new BoundExpression();
    e->op_ = Operation::kFalse;
    return BoundExpressionPtr(e);
  }();
  return kFalse;
}

BoundExpressionPtr BoundExpression::And(BoundExpressionPtr left, BoundExpressionPtr right) {
  if (left->IsFalse() || right->IsTrue()) return left;
  if (right->IsFalse() || left->IsTrue()) return right;
  auto* e = new BoundExpression();
  e->op_ = Operation::kAnd;
  e->left_ = std::move(left);
  e->right_ = std::move(right);
  return BoundExpressionPtr(e);
}

BoundExpressionPtr BoundExpression::Or(BoundExpressionPtr left, BoundExpressionPtr right) {
  if (left->IsTrue() || right->IsFalse()) return left;
  if (right->IsTrue() || left->IsFalse()) return right;
  auto* e = new BoundExpression();
  e->op_ = Operation::kOr;
  e->left_ = std::move(left);
  e->right_ = std::move(right);
  return BoundExpressionPtr(e);
}

BoundExpressionPtr BoundExpression::Predicate(Operation op, BoundTerm term,
                                              std::vector<spec::Literal> literals) {
  if (IsSet(op)) SortUnique(literals);
  auto* e = new BoundExpression();
  e->op_ = op;
  e->term_ = std::move(term);
  e->literals_ = std::move(literals);
  return BoundExpressionPtr(e);
}

std::vector<int32_t> BoundExpression::ReferencedFieldIds() const {
  std::set<int32_t> ids;
  CollectFieldIds(*this, &ids);
  return {ids.begin(), ids.end()};
}

std::string BoundExpression::ToString(const spec::Schema* schema) const {
  switch (op_) {
    case Operation::kTrue:
      return "true";
    case Operation::kFalse:
      return "false";
    case Operation::kAnd:
    case Operation::kOr:
      return internal::JunctionText(op_, left_->op_, left_->ToString(schema), right_->op_,
                                    right_->ToString(schema));
    default: {
      std::string column = schema ? schema->FindColumnName(term_.field_id) : std::string();
      column = column.empty() ? StrCat("#", term_.field_id) : internal::ColumnText(column);
      return internal::PredicateText(op_, internal::TermText(column, term_.transform), literals_);
    }
  }
}

bool BoundExpression::Equals(const BoundExpression& other) const {
  if (op_ != other.op_) return false;
  switch (op_) {
    case Operation::kTrue:
    case Operation::kFalse:
      return true;
    case Operation::kAnd:
    case Operation::kOr:
      return left_->Equals(*other.left_) && right_->Equals(*other.right_);
    default:
      if (!(term_ == other.term_) || literals_.size() != other.literals_.size()) return false;
      for (size_t i = 0; i < literals_.size(); ++i) {
        if (CompareLiterals(literals_[i], other.literals_[i]) != 0) return false;
      }
      return true;
  }
}

namespace {

// not(`expression`), the not pushed down to the predicates (negating each
// operator), as Iceberg's RewriteNot. Done before binding: a comparison with
// an out-of-range value folds to "not null" or false, and negating that
// would wrongly select the null rows (`not (i < 1e10)` as "i is null").
ExpressionPtr PushNotDown(const Expression& expression) {
  switch (expression.op()) {
    case Operation::kTrue:
      return Expression::False();
    case Operation::kFalse:
      return Expression::True();
    case Operation::kAnd:
      return Expression::Or(PushNotDown(*expression.left()), PushNotDown(*expression.right()));
    case Operation::kOr:
      return Expression::And(PushNotDown(*expression.left()), PushNotDown(*expression.right()));
    case Operation::kNot:
      return expression.left();
    default:
      return Expression::Predicate(Negate(expression.op()), expression.term(),
                                   expression.literals());
  }
}

}  // namespace

Result<BoundExpressionPtr> Bind(const Expression& expression, const spec::Schema& schema,
                                bool case_sensitive) {
  switch (expression.op()) {
    case Operation::kTrue:
      return BoundExpression::True();
    case Operation::kFalse:
      return BoundExpression::False();
    case Operation::kAnd:
    case Operation::kOr: {
      SKADE_ASSIGN_OR_RAISE(auto left, Bind(*expression.left(), schema, case_sensitive));
      SKADE_ASSIGN_OR_RAISE(auto right, Bind(*expression.right(), schema, case_sensitive));
      return expression.op() == Operation::kAnd ? BoundExpression::And(left, right)
                                                : BoundExpression::Or(left, right);
    }
    case Operation::kNot:
      return Bind(*PushNotDown(*expression.left()), schema, case_sensitive);
    default:
      return BindPredicate(expression, schema, case_sensitive);
  }
}

Result<spec::Literal> ConvertLiteral(const spec::Literal& literal, const spec::TypePtr& type) {
  SKADE_ASSIGN_OR_RAISE(Converted converted, Convert(literal, type));
  if (converted.kind != Converted::kValue) {
    return InvalidArgument("Value ", spec::LiteralJsonText(literal), " is out of range for ",
                           type->ToString());
  }
  return std::move(converted.literal);
}

int CompareLiterals(const spec::Literal& a, const spec::Literal& b) {
  const auto& x = a.value();
  const auto& y = b.value();
  if (x.index() != y.index()) {
    // An int against a long, a float against a double (a value from before a
    // type promotion): by value.
    auto integer = [](const spec::Literal::Value& v) -> std::optional<int64_t> {
      if (const auto* i = std::get_if<int32_t>(&v)) return *i;
      if (const auto* l = std::get_if<int64_t>(&v)) return *l;
      return std::nullopt;
    };
    auto floating = [](const spec::Literal::Value& v) -> std::optional<double> {
      if (const auto* f = std::get_if<float>(&v)) return *f;
      if (const auto* d = std::get_if<double>(&v)) return *d;
      return std::nullopt;
    };
    if (auto i = integer(x), j = integer(y); i && j) return ThreeWay(*i, *j);
    if (auto f = floating(x), g = floating(y); f && g) return CompareFloating(*f, *g);
    return ThreeWay(x.index(), y.index());
  }
  if (a.type() && a.type()->id() == TypeId::kDecimal) {
    return ThreeWay(spec::FromBigEndian(std::get<std::string>(x)),
                    spec::FromBigEndian(std::get<std::string>(y)));
  }
  return std::visit(
      [&](const auto& v) -> int {
        using T = std::decay_t<decltype(v)>;
        const T& w = std::get<T>(y);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else if constexpr (std::is_floating_point_v<T>) {
          return CompareFloating(v, w);
        } else if constexpr (std::is_same_v<T, std::string>) {
          // char_traits<char> compares as unsigned char, like memcmp.
          int c = v.compare(w);
          return c < 0 ? -1 : (c > 0 ? 1 : 0);
        } else {
          return ThreeWay(v, w);
        }
      },
      x);
}

}  // namespace skade::expr
