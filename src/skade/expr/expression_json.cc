#include "skade/expr/expression_json.h"

#include "skade/spec/literal_json.h"
#include "skade/spec/temporal_internal.h"
#include "skade/util/json_reader.h"
#include "skade/util/strings.h"

namespace skade::expr {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using spec::Literal;

// Deeper nesting is refused rather than recursed into (hostile input). Clients
// send long conjunctions as left-deep trees (PyIceberg's And(a, b, c, …)), so
// the limit is simdjson's own document depth, not a small one.
constexpr int kMaxDepth = 1000;
// Predicates and set values one filter may hold: planning costs memory and
// time in proportion to them (per file and partition), and no client needs
// more (a long IN list is one predicate of many values).
constexpr size_t kMaxFilterValues = 100'000;

// What is left of kMaxFilterValues while a filter is read.
struct Budget {
  size_t left = kMaxFilterValues;

  Status Take(size_t values, const std::string& path) {
    if (values > left) {
      return InvalidArgument(path, ": the filter has more than ", kMaxFilterValues,
                             " predicates and values; split the scan");
    }
    left -= values;
    return OkStatus();
  }
};

std::optional<Operation> OperationFromName(std::string_view name) {
  for (int i = static_cast<int>(Operation::kTrue); i <= static_cast<int>(Operation::kNotIn); ++i) {
    auto op = static_cast<Operation>(i);
    if (OperationName(op) == name) return op;
  }
  return std::nullopt;
}

std::optional<element> Field(simdjson::dom::object object, std::string_view key) {
  element value;
  if (object[key].get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

Result<std::string> StringAt(element value, const std::string& path) {
  std::string_view text;
  if (value.get(text) != simdjson::SUCCESS) return InvalidArgument(path, ": expected a string");
  return std::string(text);
}

bool IsReferenceObject(element value) {
  simdjson::dom::object object;
  if (value.get(object) != simdjson::SUCCESS) return false;
  std::string_view type;
  if (object["type"].get(type) != simdjson::SUCCESS) return false;
  return type == "reference" || type == "transform" || type == "apply";
}

Result<spec::Transform> TransformAt(std::string_view name, const std::string& path) {
  auto transform = spec::Transform::Parse(name);
  if (!transform) return InvalidArgument(path, ": ", transform.error().message);
  if (transform->kind() == spec::TransformKind::kUnknown) {
    return InvalidArgument(path, ": unknown transform '", name, "'");
  }
  return *transform;
}

// A term: a column name, {"type":"reference","name":…},
// {"type":"transform","transform":"day","term":"ts"}, or
// {"type":"apply","function":"day","arguments":[reference]} (bucket and
// truncate with the parameter first: [16, reference], or as "bucket[16]").
Result<Term> TermAt(element value, const std::string& path) {
  std::string_view name;
  if (value.get(name) == simdjson::SUCCESS) return Term{std::string(name), std::nullopt};
  simdjson::dom::object object;
  if (value.get(object) != simdjson::SUCCESS) {
    return InvalidArgument(path, ": expected a string or object");
  }
  auto type_field = Field(object, "type");
  if (!type_field) return InvalidArgument(path, ".type: missing");
  SKADE_ASSIGN_OR_RAISE(std::string type, StringAt(*type_field, path + ".type"));
  if (type == "reference") {
    auto name_field = Field(object, "name");
    if (!name_field) {
      return InvalidArgument(path, ": a reference needs a 'name' (references by field id are ",
                             "not accepted in a filter)");
    }
    SKADE_ASSIGN_OR_RAISE(std::string column, StringAt(*name_field, path + ".name"));
    return Term{std::move(column), std::nullopt};
  }
  if (type == "transform") {
    auto transform_field = Field(object, "transform");
    auto term_field = Field(object, "term");
    if (!transform_field) return InvalidArgument(path, ".transform: missing");
    if (!term_field) return InvalidArgument(path, ".term: missing");
    SKADE_ASSIGN_OR_RAISE(std::string transform_name,
                          StringAt(*transform_field, path + ".transform"));
    SKADE_ASSIGN_OR_RAISE(auto transform, TransformAt(transform_name, path + ".transform"));
    SKADE_ASSIGN_OR_RAISE(Term inner, TermAt(*term_field, path + ".term"));
    if (inner.transform) return InvalidArgument(path, ".term: a transform of a transform");
    return Term{std::move(inner.name), transform};
  }
  if (type == "apply") {
    auto function_field = Field(object, "function");
    auto arguments_field = Field(object, "arguments");
    if (!function_field) return InvalidArgument(path, ".function: missing");
    SKADE_ASSIGN_OR_RAISE(std::string function, StringAt(*function_field, path + ".function"));
    simdjson::dom::array arguments;
    if (!arguments_field || arguments_field->get(arguments) != simdjson::SUCCESS) {
      return InvalidArgument(path, ".arguments: expected an array");
    }
    std::vector<element> args(arguments.begin(), arguments.end());
    if (args.size() == 2 && (function == "bucket" || function == "truncate")) {
      int64_t param = 0;
      if (args[0].get(param) != simdjson::SUCCESS || param <= 0 || param > INT32_MAX) {
        return InvalidArgument(path, ".arguments[0]: expected a positive integer");
      }
      function = StrCat(function, "[", param, "]");
      args.erase(args.begin());
    }
    if (args.size() != 1) return InvalidArgument(path, ".arguments: expected one column");
    SKADE_ASSIGN_OR_RAISE(auto transform, TransformAt(function, path + ".function"));
    SKADE_ASSIGN_OR_RAISE(Term inner, TermAt(args[0], path + ".arguments[0]"));
    if (inner.transform) return InvalidArgument(path, ".arguments[0]: a transform of a transform");
    return Term{std::move(inner.name), transform};
  }
  return InvalidArgument(path, ".type: expected 'reference', 'transform' or 'apply', found '", type,
                         "'");
}

Result<Literal> PrimitiveAt(element value, const std::string& path) {
  switch (value.type()) {
    case element_type::BOOL:
      return Literal::Boolean(bool(value));
    case element_type::INT64:
      return Literal::Long(int64_t(value));
    case element_type::UINT64:
    case element_type::DOUBLE:
      return Literal::Double(double(value));
    case element_type::STRING:
      return Literal::String(std::string(std::string_view(value)));
    case element_type::NULL_VALUE:
      return InvalidArgument(path, ": null is not a value (use is-null)");
    default:
      return InvalidArgument(path, ": expected a number, string or boolean");
  }
}

Result<spec::TypePtr> DataTypeAt(simdjson::dom::object object, const std::string& path) {
  auto field = Field(object, "data-type");
  if (!field) return spec::TypePtr();
  SKADE_ASSIGN_OR_RAISE(std::string name, StringAt(*field, path + ".data-type"));
  auto type = spec::Type::ParsePrimitive(name);
  if (!type) return InvalidArgument(path, ".data-type: ", type.error().message);
  return *type;
}

Result<Literal> TypedAt(element value, const spec::TypePtr& type, const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(Literal literal, PrimitiveAt(value, path));
  if (!type) return literal;
  auto converted = ConvertLiteral(literal, type);
  if (!converted) return InvalidArgument(path, ": ", converted.error().message);
  return *converted;
}

// A bare value or {"type":"literal","value":…,"data-type":…}.
Result<Literal> LiteralAt(element value, const std::string& path) {
  simdjson::dom::object object;
  if (value.get(object) != simdjson::SUCCESS) return PrimitiveAt(value, path);
  auto type_field = Field(object, "type");
  if (!type_field) return InvalidArgument(path, ".type: missing");
  SKADE_ASSIGN_OR_RAISE(std::string type, StringAt(*type_field, path + ".type"));
  if (type != "literal") return InvalidArgument(path, ".type: expected 'literal'");
  auto inner = Field(object, "value");
  if (!inner) return InvalidArgument(path, ".value: missing");
  SKADE_ASSIGN_OR_RAISE(auto data_type, DataTypeAt(object, path));
  return TypedAt(*inner, data_type, path + ".value");
}

// A bare array of literals or {"type":"literals","values":[…],"data-type":…}.
Result<std::vector<Literal>> LiteralsAt(element value, const std::string& path, Budget& budget) {
  spec::TypePtr data_type;
  std::string values_path = path;
  simdjson::dom::object object;
  if (value.get(object) == simdjson::SUCCESS) {
    auto type_field = Field(object, "type");
    if (!type_field) return InvalidArgument(path, ".type: missing");
    SKADE_ASSIGN_OR_RAISE(std::string type, StringAt(*type_field, path + ".type"));
    if (type != "literals") return InvalidArgument(path, ".type: expected 'literals'");
    SKADE_ASSIGN_OR_RAISE(data_type, DataTypeAt(object, path));
    auto inner = Field(object, "values");
    if (!inner) return InvalidArgument(path, ".values: missing");
    value = *inner;
    values_path = path + ".values";
  }
  simdjson::dom::array array;
  if (value.get(array) != simdjson::SUCCESS) {
    return InvalidArgument(values_path, ": expected an array");
  }
  SKADE_RETURN_NOT_OK(budget.Take(array.size(), values_path));
  std::vector<Literal> literals;
  size_t index = 0;
  for (element item : array) {
    std::string item_path = StrCat(values_path, "[", index++, "]");
    if (data_type) {
      SKADE_ASSIGN_OR_RAISE(Literal literal, TypedAt(item, data_type, item_path));
      literals.push_back(std::move(literal));
    } else {
      SKADE_ASSIGN_OR_RAISE(Literal literal, LiteralAt(item, item_path));
      literals.push_back(std::move(literal));
    }
  }
  if (literals.empty()) return InvalidArgument(values_path, ": expected at least one value");
  return literals;
}

Result<ExpressionPtr> ExpressionAt(element value, const std::string& path, int depth,
                                   Budget& budget);

Result<ExpressionPtr> ChildAt(simdjson::dom::object object, std::string_view key,
                              const std::string& path, int depth, Budget& budget) {
  auto child = Field(object, key);
  if (!child) return InvalidArgument(path, ".", key, ": missing");
  return ExpressionAt(*child, StrCat(path, ".", key), depth + 1, budget);
}

// The operand of a unary or set predicate: "child" or (older) "term".
Result<Term> OperandAt(simdjson::dom::object object, const std::string& path) {
  if (auto child = Field(object, "child")) return TermAt(*child, path + ".child");
  if (auto term = Field(object, "term")) return TermAt(*term, path + ".term");
  return InvalidArgument(path, ".term: missing");
}

Result<ExpressionPtr> ExpressionAt(element value, const std::string& path, int depth,
                                   Budget& budget) {
  if (depth > kMaxDepth) return InvalidArgument(path, ": nested too deeply");
  bool constant = false;
  if (value.get(constant) == simdjson::SUCCESS) {
    return constant ? Expression::True() : Expression::False();
  }
  simdjson::dom::object object;
  if (value.get(object) != simdjson::SUCCESS) {
    return InvalidArgument(path, ": expected a boolean or an object");
  }
  auto type_field = Field(object, "type");
  if (!type_field) return InvalidArgument(path, ".type: missing");
  SKADE_ASSIGN_OR_RAISE(std::string type, StringAt(*type_field, path + ".type"));
  auto op = OperationFromName(type);
  if (!op) return InvalidArgument(path, ".type: unknown expression type '", type, "'");
  switch (*op) {
    case Operation::kTrue:
      return Expression::True();
    case Operation::kFalse:
      return Expression::False();
    case Operation::kAnd:
    case Operation::kOr: {
      SKADE_ASSIGN_OR_RAISE(auto left, ChildAt(object, "left", path, depth, budget));
      SKADE_ASSIGN_OR_RAISE(auto right, ChildAt(object, "right", path, depth, budget));
      return *op == Operation::kAnd ? Expression::And(left, right) : Expression::Or(left, right);
    }
    case Operation::kNot: {
      SKADE_ASSIGN_OR_RAISE(auto child, ChildAt(object, "child", path, depth, budget));
      return Expression::Not(child);
    }
    default:
      break;
  }
  SKADE_RETURN_NOT_OK(budget.Take(1, path));
  if (IsUnary(*op)) {
    SKADE_ASSIGN_OR_RAISE(Term term, OperandAt(object, path));
    return Expression::Predicate(*op, std::move(term));
  }
  if (IsSet(*op)) {
    SKADE_ASSIGN_OR_RAISE(Term term, OperandAt(object, path));
    auto values = Field(object, "values");
    if (!values) return InvalidArgument(path, ".values: missing");
    SKADE_ASSIGN_OR_RAISE(auto literals, LiteralsAt(*values, path + ".values", budget));
    return Expression::Predicate(*op, std::move(term), std::move(literals));
  }
  // A comparison: "term" and "value", or "left" and "right" (either side
  // the reference).
  if (auto term_field = Field(object, "term")) {
    SKADE_ASSIGN_OR_RAISE(Term term, TermAt(*term_field, path + ".term"));
    auto literal_field = Field(object, "value");
    if (!literal_field) return InvalidArgument(path, ".value: missing");
    SKADE_ASSIGN_OR_RAISE(Literal literal, LiteralAt(*literal_field, path + ".value"));
    return Expression::Predicate(*op, std::move(term), {std::move(literal)});
  }
  auto left = Field(object, "left");
  auto right = Field(object, "right");
  if (!left || !right) return InvalidArgument(path, ".term: missing");
  bool flipped = !IsReferenceObject(*left) && left->type() != element_type::STRING &&
                 IsReferenceObject(*right);
  if (flipped && IsLiteral(*op) && *op != Operation::kStartsWith &&
      *op != Operation::kNotStartsWith) {
    SKADE_ASSIGN_OR_RAISE(Term term, TermAt(*right, path + ".right"));
    SKADE_ASSIGN_OR_RAISE(Literal literal, LiteralAt(*left, path + ".left"));
    return Expression::Predicate(Flip(*op), std::move(term), {std::move(literal)});
  }
  SKADE_ASSIGN_OR_RAISE(Term term, TermAt(*left, path + ".left"));
  SKADE_ASSIGN_OR_RAISE(Literal literal, LiteralAt(*right, path + ".right"));
  return Expression::Predicate(*op, std::move(term), {std::move(literal)});
}

// The text forms of dates and timestamps have four-digit years; a value
// beyond them (only a number converted at binding makes one) is written as
// that number, which binds back to the same value.
bool HasTextForm(const Literal& value) {
  constexpr int64_t kFirstDay = -719'528;  // 0000-01-01
  constexpr int64_t kLastDay = 2'932'896;  // 9999-12-31
  int64_t units_per_day = 0;
  switch (value.type() ? value.type()->id() : spec::TypeId::kUnknown) {
    case spec::TypeId::kDate: {
      int64_t days = std::get<int32_t>(value.value());
      return days >= kFirstDay && days <= kLastDay;
    }
    case spec::TypeId::kTimestamp:
    case spec::TypeId::kTimestampTz:
      units_per_day = 86'400'000'000;
      break;
    case spec::TypeId::kTimestampNs:
    case spec::TypeId::kTimestampTzNs:
      units_per_day = 86'400'000'000'000;
      break;
    default:
      return true;
  }
  int64_t days = spec::FloorDiv(std::get<int64_t>(value.value()), units_per_day);
  return days >= kFirstDay && days <= kLastDay;
}

void WriteValue(const Literal& value, JsonWriter& writer) {
  if (value.is_null() || HasTextForm(value)) return spec::WriteLiteralJson(value, writer);
  const auto& v = value.value();
  writer.Int(std::holds_alternative<int32_t>(v) ? std::get<int32_t>(v) : std::get<int64_t>(v));
}

void WriteTerm(const std::string& column, const std::optional<spec::Transform>& transform,
               JsonWriter& writer) {
  if (!transform) return writer.String(column);
  writer.StartObject();
  writer.Field("type", "transform");
  writer.Field("transform", transform->ToString());
  writer.Field("term", column);
  writer.EndObject();
}

// The JSON of an expression tree (Expression or BoundExpression), columns
// named by `column`.
template <typename E, typename ColumnName>
void WriteJson(const E& expression, const ColumnName& column, JsonWriter& writer) {
  Operation op = expression.op();
  switch (op) {
    case Operation::kTrue:
      return writer.Bool(true);
    case Operation::kFalse:
      return writer.Bool(false);
    case Operation::kAnd:
    case Operation::kOr:
      writer.StartObject();
      writer.Field("type", OperationName(op));
      writer.Key("left");
      WriteJson(*expression.left(), column, writer);
      writer.Key("right");
      WriteJson(*expression.right(), column, writer);
      writer.EndObject();
      return;
    case Operation::kNot:
      writer.StartObject();
      writer.Field("type", OperationName(op));
      writer.Key("child");
      WriteJson(*expression.left(), column, writer);
      writer.EndObject();
      return;
    default:
      break;
  }
  writer.StartObject();
  writer.Field("type", OperationName(op));
  writer.Key("term");
  WriteTerm(column(expression.term()), expression.term().transform, writer);
  if (IsLiteral(op)) {
    writer.Key("value");
    WriteValue(expression.literals().at(0), writer);
  } else if (IsSet(op)) {
    writer.Key("values");
    writer.StartArray();
    for (const auto& literal : expression.literals()) WriteValue(literal, writer);
    writer.EndArray();
  }
  writer.EndObject();
}

}  // namespace

Result<ExpressionPtr> ExpressionFromJson(simdjson::dom::element element) {
  Budget budget;
  return ExpressionAt(element, "filter", 0, budget);
}

Result<ExpressionPtr> ParseExpressionJson(std::string_view json) {
  thread_local simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto element, json::Parse(parser, json));
  return ExpressionFromJson(element);
}

void WriteExpressionJson(const Expression& expression, JsonWriter& writer) {
  WriteJson(
      expression, [](const Term& term) -> const std::string& { return term.name; }, writer);
}

std::string ExpressionToJson(const Expression& expression) {
  JsonWriter writer;
  WriteExpressionJson(expression, writer);
  return writer.Take();
}

void WriteBoundExpressionJson(const BoundExpression& expression, const spec::Schema& schema,
                              JsonWriter& writer) {
  WriteJson(
      expression, [&](const BoundTerm& term) { return schema.FindColumnName(term.field_id); },
      writer);
}

}  // namespace skade::expr
