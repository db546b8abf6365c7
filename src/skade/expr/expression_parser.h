// The text form of filter expressions, for the CLI (`skade scan --where`).
//
//   expr      := or
//   or        := and ('or' and)*
//   and       := not ('and' not)*
//   not       := 'not' not | primary
//   primary   := '(' expr ')' | 'true' | 'false' | predicate
//   predicate := term ('<' | '<=' | '>' | '>=' | '=' | '==' | '!=' | '<>') literal
//              | literal op term                      (flipped: 5 < id)
//              | term ['not'] 'in' '(' literal (',' literal)* ')'
//              | term 'is' ['not'] ('null' | 'nan')
//              | term ['not'] 'starts' 'with' string
//              | term ['not'] 'like' 'prefix%'         (starts with)
//   term      := column | transform '(' [int ','] column ')'
//                (year, month, day, hour, bucket(N, c), truncate(W, c), identity)
//   column    := name ('.' name)* | "quoted name" | `quoted name`
//   literal   := integer | decimal | float (1.5, 1e3, 'nan') | 'string' | true | false
//
// Keywords are case-insensitive; column names are kept as written. Strings
// use single quotes, '' for a quote inside. Errors are kInvalidArgument with
// the offset and what was expected: "at 7: expected a literal after '>'".
// Stateless; thread-safe.
#pragma once

#include <string_view>

#include "skade/expr/expression.h"
#include "skade/util/result.h"

namespace skade::expr {

Result<ExpressionPtr> ParseExpression(std::string_view text);

}  // namespace skade::expr
