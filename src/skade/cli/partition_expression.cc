#include "skade/cli/partition_expression.h"

#include "skade/util/strings.h"

namespace skade::cli {

namespace {

struct ParsedExpression {
  std::string transform;  // as Transform::Parse accepts it
  std::string column;
};

Result<ParsedExpression> ParseOne(std::string_view raw) {
  std::string_view text = StripWhitespace(raw);
  size_t open = text.find('(');
  if (open == std::string_view::npos) return ParsedExpression{"identity", std::string(text)};
  if (!text.ends_with(")")) return InvalidArgument("Invalid partition expression: ", raw);
  std::string name = AsciiLower(StripWhitespace(text.substr(0, open)));
  std::string_view args = text.substr(open + 1, text.size() - open - 2);
  size_t comma = args.find(',');
  if (comma != std::string_view::npos) {
    // bucket(N, col) / truncate(W, col)
    return ParsedExpression{StrCat(name, "[", StripWhitespace(args.substr(0, comma)), "]"),
                            std::string(StripWhitespace(args.substr(comma + 1)))};
  }
  return ParsedExpression{name, std::string(StripWhitespace(args))};
}

}  // namespace

Result<spec::PartitionSpec> ParsePartitionBy(const std::vector<std::string>& expressions,
                                             const spec::Schema& schema) {
  spec::PartitionSpec spec;
  int32_t next_id = spec::PartitionSpec::kPartitionDataIdStart;
  for (const auto& expression : expressions) {
    SKADE_ASSIGN_OR_RAISE(auto parsed, ParseOne(expression));
    SKADE_ASSIGN_OR_RAISE(auto transform, spec::Transform::Parse(parsed.transform));
    if (transform.kind() == spec::TransformKind::kUnknown) {
      return InvalidArgument("Unknown partition transform in '", expression, "'");
    }
    const spec::NestedField* field = schema.FindFieldByName(parsed.column);
    if (field == nullptr) {
      return InvalidArgument("Cannot partition by '", expression, "': no column named '",
                             parsed.column, "'");
    }
    spec.fields.push_back(
        spec::PartitionField{field->id,
                             {},
                             next_id++,
                             spec::DefaultPartitionFieldName(transform, parsed.column),
                             transform});
  }
  SKADE_RETURN_NOT_OK(spec.Validate(schema));
  return spec;
}

}  // namespace skade::cli
