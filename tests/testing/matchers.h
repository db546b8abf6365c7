// GoogleTest matchers for Result/Status: IsOk(), IsError(kind),
// IsErrorWithMessage(kind, substring).
#pragma once

#include <gmock/gmock.h>

#include <ostream>
#include <string>

#include "skade/util/result.h"

namespace tl {

// Prints results as "ok" or the error instead of their raw bytes.
template <typename T>
void PrintTo(const expected<T, skade::Error>& result, std::ostream* os) {
  *os << (result ? std::string("ok") : result.error().ToString());
}

}  // namespace tl

namespace skade::testing {

MATCHER(IsOk, "is OK") {
  if (arg) return true;
  *result_listener << "error " << arg.error().ToString();
  return false;
}

MATCHER_P(IsError, kind, "fails with " + std::string(ErrorKindName(kind))) {
  if (arg) {
    *result_listener << "succeeded";
    return false;
  }
  *result_listener << "error " << arg.error().ToString();
  return arg.error().kind == kind;
}

MATCHER_P2(IsErrorWithMessage, kind, substring,
           "fails with " + std::string(ErrorKindName(kind)) + " containing \"" +
               std::string(substring) + "\"") {
  if (arg) {
    *result_listener << "succeeded";
    return false;
  }
  *result_listener << "error " << arg.error().ToString();
  return arg.error().kind == kind && arg.error().message.find(substring) != std::string::npos;
}

}  // namespace skade::testing
