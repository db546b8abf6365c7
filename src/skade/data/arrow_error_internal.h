// The module edge between Arrow/Parquet and skade errors.
//
// Arrow reports failures as arrow::Status; Parquet C++ also throws
// parquet::ParquetException (and std::exception subclasses) from many calls.
// Neither may cross out of data/: every Arrow-returning call goes through
// FromArrow*, every call that can throw through CatchArrowExceptions.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <exception>
#include <string_view>
#include <utility>

#include "skade/util/result.h"

namespace skade::data {

/// Maps an arrow::Status to a skade Status: Invalid/TypeError/NotImplemented
/// become kInvalidArgument/kUnsupported, IOError kIo, the rest kInternal. The
/// message is prefixed with `context` when it is not empty.
Status FromArrowStatus(const arrow::Status& status, std::string_view context = {});

template <typename T>
Result<T> FromArrowResult(arrow::Result<T> result, std::string_view context = {}) {
  if (!result.ok()) return tl::unexpected(FromArrowStatus(result.status(), context).error());
  return std::move(result).ValueUnsafe();
}

/// A skade error as an arrow::Status, for callbacks Arrow calls into (our
/// OutputStream adapter).
arrow::Status ToArrowStatus(const Error& error);

/// Runs `fn` (returning a skade Result) and turns any exception it throws
/// into kIo (Parquet's own exceptions; they mostly mean I/O or corrupt input)
/// prefixed with `context`.
template <typename Fn>
auto CatchArrowExceptions(std::string_view context, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return IoError(context, ": ", e.what());
  }
}

}  // namespace skade::data

/// SKADE_RETURN_NOT_OK for an expression returning arrow::Status.
#define SKADE_RETURN_NOT_OK_ARROW(expr) SKADE_RETURN_NOT_OK(::skade::data::FromArrowStatus((expr)))

/// SKADE_ASSIGN_OR_RAISE for an expression returning arrow::Result<T>.
#define SKADE_ASSIGN_OR_RAISE_ARROW(lhs, expr) \
  SKADE_ASSIGN_OR_RAISE(lhs, ::skade::data::FromArrowResult((expr)))
