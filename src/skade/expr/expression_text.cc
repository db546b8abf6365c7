#include <charconv>
#include <cmath>

#include "skade/expr/expression_text_internal.h"
#include "skade/spec/literal_json.h"
#include "skade/util/strings.h"

namespace skade::expr::internal {

namespace {

bool IsIdentifier(std::string_view text) {
  if (text.empty()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string Quoted(std::string_view text, char quote) {
  std::string out(1, quote);
  for (char c : text) {
    out.push_back(c);
    if (c == quote) out.push_back(quote);
  }
  out.push_back(quote);
  return out;
}

std::string DoubleText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string_view Symbol(Operation op) {
  switch (op) {
    case Operation::kLt:
      return "<";
    case Operation::kLtEq:
      return "<=";
    case Operation::kGt:
      return ">";
    case Operation::kGtEq:
      return ">=";
    case Operation::kEq:
      return "=";
    case Operation::kNotEq:
      return "!=";
    default:
      return "?";
  }
}

}  // namespace

bool IsKeyword(std::string_view word) {
  for (std::string_view keyword : {"and", "or", "not", "in", "is", "null", "nan", "true", "false",
                                   "starts", "with", "like", "inf", "infinity"}) {
    if (EqualsIgnoreCase(word, keyword)) return true;
  }
  return false;
}

std::string ColumnText(std::string_view name) {
  std::vector<std::string> parts = Split(name, '.');
  for (const auto& part : parts) {
    if (!IsIdentifier(part) || IsKeyword(part)) return Quoted(name, '"');
  }
  return std::string(name);
}

std::string TermText(const std::string& column, const std::optional<spec::Transform>& transform) {
  if (!transform) return column;
  switch (transform->kind()) {
    case spec::TransformKind::kBucket:
      return StrCat("bucket(", transform->param(), ", ", column, ")");
    case spec::TransformKind::kTruncate:
      return StrCat("truncate(", transform->param(), ", ", column, ")");
    default:
      return StrCat(transform->ToString(), "(", column, ")");
  }
}

std::string LiteralText(const spec::Literal& literal) {
  const auto& value = literal.value();
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* f = std::get_if<float>(&value)) return DoubleText(*f);
  if (const auto* d = std::get_if<double>(&value)) return DoubleText(*d);
  spec::TypeId id = literal.type() ? literal.type()->id() : spec::TypeId::kUnknown;
  if (id == spec::TypeId::kInt || id == spec::TypeId::kLong) return literal.ToString();
  return Quoted(spec::LiteralJsonText(literal), '\'');
}

std::string JunctionText(Operation op, Operation left_op, const std::string& left,
                         Operation right_op, const std::string& right) {
  auto grouped = [](const std::string& text, bool parenthesize) {
    return parenthesize ? StrCat("(", text, ")") : text;
  };
  auto needs_group = [op](Operation side) {
    return side == op || (op == Operation::kAnd && side == Operation::kOr);
  };
  return StrCat(grouped(left, needs_group(left_op)), op == Operation::kAnd ? " and " : " or ",
                grouped(right, needs_group(right_op)));
}

std::string PredicateText(Operation op, const std::string& term,
                          const std::vector<spec::Literal>& literals) {
  switch (op) {
    case Operation::kIsNull:
      return StrCat(term, " is null");
    case Operation::kNotNull:
      return StrCat(term, " is not null");
    case Operation::kIsNan:
      return StrCat(term, " is nan");
    case Operation::kNotNan:
      return StrCat(term, " is not nan");
    case Operation::kStartsWith:
      return StrCat(term, " starts with ", LiteralText(literals.at(0)));
    case Operation::kNotStartsWith:
      return StrCat(term, " not starts with ", LiteralText(literals.at(0)));
    case Operation::kIn:
    case Operation::kNotIn: {
      std::vector<std::string> values;
      for (const auto& literal : literals) values.push_back(LiteralText(literal));
      return StrCat(term, op == Operation::kIn ? " in (" : " not in (", Join(values, ", "), ")");
    }
    default:
      return StrCat(term, " ", Symbol(op), " ", LiteralText(literals.at(0)));
  }
}

}  // namespace skade::expr::internal
