// libFuzzer target: filter expressions in the text form (`skade scan
// --where`) and the REST JSON form must parse or fail cleanly. Whatever
// parses must print to a form that parses back and prints the same; bound
// to a schema, its JSON must bind back to an equal expression.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "expr/test_schema.h"
#include "skade/expr/bound_expression.h"
#include "skade/expr/expression_json.h"
#include "skade/expr/expression_parser.h"

namespace {

using skade::expr::Bind;
using skade::expr::ExpressionPtr;

const skade::spec::Schema& FuzzSchema() {
  static const auto schema = skade::expr::testing::AllTypesSchema();
  return *schema;
}

// Printing is a fixed point after one round: a deeply nested input may print
// with more parentheses than the parser accepts, which it must say.
void CheckPrinted(const std::string& printed, bool json) {
  auto again =
      json ? skade::expr::ParseExpressionJson(printed) : skade::expr::ParseExpression(printed);
  if (!again) {
    if (again.error().message.find("nested too deeply") != std::string::npos) return;
    std::abort();
  }
  std::string reprinted = json ? skade::expr::ExpressionToJson(**again) : (*again)->ToString();
  if (reprinted != printed) std::abort();
}

void CheckBound(const ExpressionPtr& expression) {
  const auto& schema = FuzzSchema();
  auto bound = Bind(*expression, schema);
  if (!bound) return;
  (void)(*bound)->ToString(&schema);
  skade::JsonWriter writer;
  skade::expr::WriteBoundExpressionJson(**bound, schema, writer);
  auto reread = skade::expr::ParseExpressionJson(writer.str());
  if (!reread) {
    if (reread.error().message.find("nested too deeply") != std::string::npos) return;
    std::abort();
  }
  auto rebound = Bind(**reread, schema);
  if (!rebound || !(*rebound)->Equals(**bound)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto parsed = skade::expr::ParseExpression(text)) {
    CheckPrinted((*parsed)->ToString(), /*json=*/false);
    CheckBound(*parsed);
  }
  if (auto parsed = skade::expr::ParseExpressionJson(text)) {
    CheckPrinted(skade::expr::ExpressionToJson(**parsed), /*json=*/true);
    CheckBound(*parsed);
  }
  return 0;
}
