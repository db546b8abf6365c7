// Result<T> and Status, and the macros that propagate their errors.
#pragma once

#include <tl/expected.hpp>
#include <utility>

#include "skade/util/error.h"

namespace skade {

/// A value or an Error. Same API as C++23 std::expected (it is one, with
/// [[nodiscard]] added: a dropped error does not compile, since the build
/// turns -Wunused-result into an error; discard on purpose with `(void)`).
template <typename T>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using tl::expected<T, Error>::expected;
  // What the monadic operations (and_then, map, …) return.
  Result(tl::expected<T, Error> other) : tl::expected<T, Error>(std::move(other)) {}
};

/// Success or an Error.
using Status = Result<void>;

}  // namespace skade

// and_then/or_else accept callables that return a Result, as they accept
// those that return a tl::expected.
template <typename T>
struct tl::detail::is_expected_impl<skade::Result<T>> : std::true_type {};

namespace skade {

/// The success value of a Status.
inline Status OkStatus() { return {}; }

}  // namespace skade

#define SKADE_CONCAT_INNER(a, b) a##b
#define SKADE_CONCAT(a, b) SKADE_CONCAT_INNER(a, b)

/// Evaluates `expr` (a Result or Status) once; returns its error from the
/// enclosing function if it failed.
#define SKADE_RETURN_NOT_OK(expr)                                \
  do {                                                           \
    auto&& _skade_status = (expr);                               \
    if (!_skade_status) {                                        \
      return ::tl::unexpected(std::move(_skade_status).error()); \
    }                                                            \
  } while (false)

#define SKADE_ASSIGN_OR_RAISE_IMPL(tmp, lhs, expr)   \
  auto tmp = (expr);                                 \
  if (!tmp) {                                        \
    return ::tl::unexpected(std::move(tmp).error()); \
  }                                                  \
  lhs = std::move(*tmp)

/// Evaluates `expr` (a Result<T>) once; on success moves its value into `lhs`
/// (which may be a declaration, e.g. `auto x`), otherwise returns the error.
#define SKADE_ASSIGN_OR_RAISE(lhs, expr) \
  SKADE_ASSIGN_OR_RAISE_IMPL(SKADE_CONCAT(_skade_result_, __COUNTER__), lhs, expr)
