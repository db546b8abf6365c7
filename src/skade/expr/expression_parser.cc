#include "skade/expr/expression_parser.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "skade/expr/expression_text_internal.h"
#include "skade/util/strings.h"

namespace skade::expr {

namespace {

using spec::Literal;

// Deeper nesting is refused rather than recursed into (hostile input).
constexpr int kMaxDepth = 200;

enum class TokenKind { kEnd, kIdentifier, kQuotedName, kString, kNumber, kSymbol };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // identifiers and symbols as written; names and strings unquoted
  size_t offset = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<ExpressionPtr> Parse() {
    SKADE_RETURN_NOT_OK(Advance());
    SKADE_ASSIGN_OR_RAISE(auto expression, ParseOr(0));
    if (token_.kind != TokenKind::kEnd) return Expected("'and', 'or' or the end");
    return expression;
  }

 private:
  // --- Tokens ---

  Status Advance() {
    previous_ = token_.kind == TokenKind::kEnd ? std::string() : Describe(token_);
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
    token_ = Token{TokenKind::kEnd, "", pos_};
    if (pos_ >= text_.size()) return OkStatus();
    char c = text_[pos_];
    if (IsIdentifierStart(c)) {
      size_t end = pos_ + 1;
      while (end < text_.size() && (IsIdentifierStart(text_[end]) || IsDigit(text_[end]))) ++end;
      token_ = Token{TokenKind::kIdentifier, std::string(text_.substr(pos_, end - pos_)), pos_};
      pos_ = end;
      return OkStatus();
    }
    if (c == '\'' || c == '"' || c == '`') {
      size_t start = pos_;
      std::string value;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) {
          return InvalidArgument("at ", start, ": unterminated ", c == '\'' ? "string" : "name");
        }
        if (text_[pos_] == c) {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == c) {
            value.push_back(c);
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        value.push_back(text_[pos_++]);
      }
      // Iceberg strings and names are UTF-8.
      if (!simdjson::validate_utf8(value.data(), value.size())) {
        return InvalidArgument("at ", start, ": the ", c == '\'' ? "string" : "name",
                               " is not valid UTF-8");
      }
      token_ =
          Token{c == '\'' ? TokenKind::kString : TokenKind::kQuotedName, std::move(value), start};
      return OkStatus();
    }
    if (IsDigit(c)) {
      size_t end = pos_;
      while (end < text_.size() && IsDigit(text_[end])) ++end;
      if (end < text_.size() && text_[end] == '.') {
        ++end;
        while (end < text_.size() && IsDigit(text_[end])) ++end;
      }
      if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
        size_t exponent = end + 1;
        if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-')) {
          ++exponent;
        }
        if (exponent < text_.size() && IsDigit(text_[exponent])) {
          end = exponent;
          while (end < text_.size() && IsDigit(text_[end])) ++end;
        }
      }
      token_ = Token{TokenKind::kNumber, std::string(text_.substr(pos_, end - pos_)), pos_};
      pos_ = end;
      return OkStatus();
    }
    for (std::string_view symbol :
         {"<=", ">=", "==", "!=", "<>", "<", ">", "=", "(", ")", ",", ".", "-", "+"}) {
      if (text_.substr(pos_).starts_with(symbol)) {
        token_ = Token{TokenKind::kSymbol, std::string(symbol), pos_};
        pos_ += symbol.size();
        return OkStatus();
      }
    }
    return InvalidArgument("at ", pos_, ": unexpected character '", std::string(1, c), "'");
  }

  static bool IsIdentifierStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  static std::string Describe(const Token& token) {
    switch (token.kind) {
      case TokenKind::kString:
        return StrCat("'", token.text, "'");
      case TokenKind::kQuotedName:
        return StrCat("\"", token.text, "\"");
      default:
        return StrCat("'", token.text, "'");
    }
  }

  bool IsWord(std::string_view word) const {
    return token_.kind == TokenKind::kIdentifier && EqualsIgnoreCase(token_.text, word);
  }
  bool IsSymbol(std::string_view symbol) const {
    return token_.kind == TokenKind::kSymbol && token_.text == symbol;
  }

  tl::unexpected<Error> Expected(std::string_view what) const {
    std::string found = token_.kind == TokenKind::kEnd ? "the end" : Describe(token_);
    if (previous_.empty()) {
      return InvalidArgument("at ", token_.offset, ": expected ", what, ", found ", found);
    }
    return InvalidArgument("at ", token_.offset, ": expected ", what, " after ", previous_,
                           ", found ", found);
  }

  Status ExpectSymbol(std::string_view symbol) {
    if (!IsSymbol(symbol)) return Expected(StrCat("'", symbol, "'"));
    return Advance();
  }

  Status ExpectWord(std::string_view word) {
    if (!IsWord(word)) return Expected(StrCat("'", word, "'"));
    return Advance();
  }

  // --- Grammar ---

  Result<ExpressionPtr> ParseOr(int depth) {
    if (depth > kMaxDepth) return InvalidArgument("at ", token_.offset, ": nested too deeply");
    std::vector<ExpressionPtr> operands;
    SKADE_ASSIGN_OR_RAISE(auto first, ParseAnd(depth));
    operands.push_back(std::move(first));
    while (IsWord("or")) {
      SKADE_RETURN_NOT_OK(Advance());
      SKADE_ASSIGN_OR_RAISE(auto next, ParseAnd(depth));
      operands.push_back(std::move(next));
    }
    return Balanced(operands, 0, operands.size(), Operation::kOr);
  }

  // A chain `a or b or c …` as a balanced tree, so that a long chain does
  // not make a tree deep enough to exhaust the stack of whoever walks it.
  static ExpressionPtr Balanced(const std::vector<ExpressionPtr>& operands, size_t begin,
                                size_t end, Operation op) {
    if (end - begin == 1) return operands[begin];
    size_t middle = begin + (end - begin) / 2;
    auto left = Balanced(operands, begin, middle, op);
    auto right = Balanced(operands, middle, end, op);
    return op == Operation::kAnd ? Expression::And(std::move(left), std::move(right))
                                 : Expression::Or(std::move(left), std::move(right));
  }

  Result<ExpressionPtr> ParseAnd(int depth) {
    std::vector<ExpressionPtr> operands;
    SKADE_ASSIGN_OR_RAISE(auto first, ParseNot(depth));
    operands.push_back(std::move(first));
    while (IsWord("and")) {
      SKADE_RETURN_NOT_OK(Advance());
      SKADE_ASSIGN_OR_RAISE(auto next, ParseNot(depth));
      operands.push_back(std::move(next));
    }
    return Balanced(operands, 0, operands.size(), Operation::kAnd);
  }

  Result<ExpressionPtr> ParseNot(int depth) {
    if (depth > kMaxDepth) return InvalidArgument("at ", token_.offset, ": nested too deeply");
    if (IsWord("not")) {
      SKADE_RETURN_NOT_OK(Advance());
      SKADE_ASSIGN_OR_RAISE(auto child, ParseNot(depth + 1));
      return Expression::Not(std::move(child));
    }
    return ParsePrimary(depth);
  }

  Result<ExpressionPtr> ParsePrimary(int depth) {
    if (IsSymbol("(")) {
      SKADE_RETURN_NOT_OK(Advance());
      SKADE_ASSIGN_OR_RAISE(auto inner, ParseOr(depth + 1));
      SKADE_RETURN_NOT_OK(ExpectSymbol(")"));
      return inner;
    }
    if (IsWord("true") || IsWord("false")) {
      bool value = IsWord("true");
      SKADE_RETURN_NOT_OK(Advance());
      return value ? Expression::True() : Expression::False();
    }
    if (token_.kind == TokenKind::kNumber || token_.kind == TokenKind::kString || IsSymbol("-") ||
        IsSymbol("+")) {
      // literal op term
      SKADE_ASSIGN_OR_RAISE(Literal literal, ParseLiteral());
      SKADE_ASSIGN_OR_RAISE(auto op, ParseComparison());
      if (!op) return Expected("a comparison ('<', '<=', '>', '>=', '=', '!=')");
      SKADE_ASSIGN_OR_RAISE(Term term, ParseTerm());
      return Expression::Predicate(Flip(*op), std::move(term), {std::move(literal)});
    }
    if (token_.kind == TokenKind::kIdentifier || token_.kind == TokenKind::kQuotedName) {
      return ParsePredicate();
    }
    return Expected("a column, a literal, 'not', 'true', 'false' or '('");
  }

  // The comparison operator at the current token, consumed; nullopt if none.
  Result<std::optional<Operation>> ParseComparison() {
    if (token_.kind != TokenKind::kSymbol) return std::optional<Operation>();
    std::optional<Operation> op;
    const std::string& s = token_.text;
    if (s == "<") op = Operation::kLt;
    if (s == "<=") op = Operation::kLtEq;
    if (s == ">") op = Operation::kGt;
    if (s == ">=") op = Operation::kGtEq;
    if (s == "=" || s == "==") op = Operation::kEq;
    if (s == "!=" || s == "<>") op = Operation::kNotEq;
    if (op) SKADE_RETURN_NOT_OK(Advance());
    return op;
  }

  Result<ExpressionPtr> ParsePredicate() {
    SKADE_ASSIGN_OR_RAISE(Term term, ParseTerm());
    SKADE_ASSIGN_OR_RAISE(auto comparison, ParseComparison());
    if (comparison) {
      if (token_.kind == TokenKind::kEnd || token_.kind == TokenKind::kQuotedName ||
          (token_.kind == TokenKind::kIdentifier && !IsLiteralWord())) {
        return Expected("a literal");
      }
      SKADE_ASSIGN_OR_RAISE(Literal literal, ParseLiteral());
      return Expression::Predicate(*comparison, std::move(term), {std::move(literal)});
    }
    if (IsWord("is")) {
      SKADE_RETURN_NOT_OK(Advance());
      bool negated = IsWord("not");
      if (negated) SKADE_RETURN_NOT_OK(Advance());
      if (IsWord("null")) {
        SKADE_RETURN_NOT_OK(Advance());
        return Expression::Predicate(negated ? Operation::kNotNull : Operation::kIsNull,
                                     std::move(term));
      }
      if (IsWord("nan")) {
        SKADE_RETURN_NOT_OK(Advance());
        return Expression::Predicate(negated ? Operation::kNotNan : Operation::kIsNan,
                                     std::move(term));
      }
      return Expected("'null' or 'nan'");
    }
    bool negated = IsWord("not");
    if (negated) SKADE_RETURN_NOT_OK(Advance());
    if (IsWord("in")) {
      SKADE_RETURN_NOT_OK(Advance());
      SKADE_RETURN_NOT_OK(ExpectSymbol("("));
      std::vector<Literal> literals;
      while (true) {
        SKADE_ASSIGN_OR_RAISE(Literal literal, ParseLiteral());
        literals.push_back(std::move(literal));
        if (IsSymbol(")")) break;
        SKADE_RETURN_NOT_OK(ExpectSymbol(","));
      }
      SKADE_RETURN_NOT_OK(Advance());
      return Expression::Predicate(negated ? Operation::kNotIn : Operation::kIn, std::move(term),
                                   std::move(literals));
    }
    Operation starts = negated ? Operation::kNotStartsWith : Operation::kStartsWith;
    if (IsWord("starts")) {
      SKADE_RETURN_NOT_OK(Advance());
      SKADE_RETURN_NOT_OK(ExpectWord("with"));
      if (token_.kind != TokenKind::kString) return Expected("a string");
      std::string prefix = token_.text;
      SKADE_RETURN_NOT_OK(Advance());
      return Expression::Predicate(starts, std::move(term), {Literal::String(std::move(prefix))});
    }
    if (IsWord("like")) {
      SKADE_RETURN_NOT_OK(Advance());
      if (token_.kind != TokenKind::kString) return Expected("a string");
      std::string prefix = token_.text;
      if (prefix.empty() || prefix.back() != '%' ||
          prefix.find_first_of("%_") != prefix.size() - 1) {
        return InvalidArgument("at ", token_.offset,
                               ": only 'prefix%' patterns are supported (use 'starts with' for a "
                               "prefix with '_' or '%')");
      }
      prefix.pop_back();
      SKADE_RETURN_NOT_OK(Advance());
      return Expression::Predicate(starts, std::move(term), {Literal::String(std::move(prefix))});
    }
    if (negated) return Expected("'in', 'starts with' or 'like'");
    return Expected("a comparison, 'in', 'is', 'starts with' or 'like'");
  }

  bool IsLiteralWord() const {
    return IsWord("true") || IsWord("false") || IsWord("nan") || IsWord("inf") ||
           IsWord("infinity");
  }

  static std::optional<spec::Transform> TransformNamed(std::string_view name) {
    if (EqualsIgnoreCase(name, "identity")) return spec::Transform::Identity();
    if (EqualsIgnoreCase(name, "year")) return spec::Transform::Year();
    if (EqualsIgnoreCase(name, "month")) return spec::Transform::Month();
    if (EqualsIgnoreCase(name, "day")) return spec::Transform::Day();
    if (EqualsIgnoreCase(name, "hour")) return spec::Transform::Hour();
    if (EqualsIgnoreCase(name, "void")) return spec::Transform::Void();
    if (EqualsIgnoreCase(name, "bucket")) return spec::Transform::Bucket(1);
    if (EqualsIgnoreCase(name, "truncate")) return spec::Transform::Truncate(1);
    return std::nullopt;
  }

  Result<Term> ParseTerm() {
    if (token_.kind == TokenKind::kIdentifier && pos_ < text_.size()) {
      // A transform is a name directly followed by '(' (after spaces).
      size_t next = pos_;
      while (next < text_.size() && text_[next] == ' ') ++next;
      if (next < text_.size() && text_[next] == '(') {
        auto transform = TransformNamed(token_.text);
        if (!transform) {
          return InvalidArgument("at ", token_.offset, ": unknown transform '", token_.text,
                                 "' (expected year, month, day, hour, bucket, truncate, identity "
                                 "or void)");
        }
        SKADE_RETURN_NOT_OK(Advance());
        SKADE_RETURN_NOT_OK(Advance());  // '('
        if (transform->kind() == spec::TransformKind::kBucket ||
            transform->kind() == spec::TransformKind::kTruncate) {
          std::optional<int64_t> param;
          if (token_.kind == TokenKind::kNumber) param = ParseInt64(token_.text);
          if (!param || *param <= 0 || *param > std::numeric_limits<int32_t>::max()) {
            return Expected("a positive integer parameter");
          }
          auto value = static_cast<int32_t>(*param);
          transform = transform->kind() == spec::TransformKind::kBucket
                          ? spec::Transform::Bucket(value)
                          : spec::Transform::Truncate(value);
          SKADE_RETURN_NOT_OK(Advance());
          SKADE_RETURN_NOT_OK(ExpectSymbol(","));
        }
        SKADE_ASSIGN_OR_RAISE(std::string column, ParseColumn());
        SKADE_RETURN_NOT_OK(ExpectSymbol(")"));
        return Term{std::move(column), transform};
      }
    }
    SKADE_ASSIGN_OR_RAISE(std::string column, ParseColumn());
    return Term{std::move(column), std::nullopt};
  }

  Result<std::string> ParseColumn() {
    std::string name;
    while (true) {
      bool quoted = token_.kind == TokenKind::kQuotedName;
      if (!quoted && (token_.kind != TokenKind::kIdentifier || internal::IsKeyword(token_.text))) {
        return Expected("a column name");
      }
      name += token_.text;
      SKADE_RETURN_NOT_OK(Advance());
      if (!IsSymbol(".")) break;
      name.push_back('.');
      SKADE_RETURN_NOT_OK(Advance());
    }
    return name;
  }

  Result<Literal> ParseLiteral() {
    size_t offset = token_.offset;
    if (token_.kind == TokenKind::kString) {
      Literal literal = Literal::String(token_.text);
      SKADE_RETURN_NOT_OK(Advance());
      return literal;
    }
    if (IsWord("true") || IsWord("false")) {
      Literal literal = Literal::Boolean(IsWord("true"));
      SKADE_RETURN_NOT_OK(Advance());
      return literal;
    }
    bool negative = false;
    if (IsSymbol("-") || IsSymbol("+")) {
      negative = IsSymbol("-");
      SKADE_RETURN_NOT_OK(Advance());
    }
    if (IsWord("nan")) {
      SKADE_RETURN_NOT_OK(Advance());
      return Literal::Double(std::numeric_limits<double>::quiet_NaN());
    }
    if (IsWord("inf") || IsWord("infinity")) {
      SKADE_RETURN_NOT_OK(Advance());
      double inf = std::numeric_limits<double>::infinity();
      return Literal::Double(negative ? -inf : inf);
    }
    if (token_.kind != TokenKind::kNumber) return Expected("a literal");
    std::string text = StrCat(negative ? "-" : "", token_.text);
    SKADE_RETURN_NOT_OK(Advance());
    if (text.find_first_of(".eE") == std::string::npos) {
      if (auto value = ParseInt64(text)) return Literal::Long(*value);
    }
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (end != text.data() + text.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return InvalidArgument("at ", offset, ": invalid number '", text, "'");
    }
    if (ec == std::errc::result_out_of_range) {
      return InvalidArgument("at ", offset, ": number out of range '", text, "'");
    }
    return Literal::Double(value);
  }

  std::string_view text_;
  size_t pos_ = 0;
  Token token_;
  std::string previous_;
};

}  // namespace

Result<ExpressionPtr> ParseExpression(std::string_view text) { return Parser(text).Parse(); }

}  // namespace skade::expr
