// Error values shared by every skade module.
//
// skade never throws across module boundaries: fallible functions return
// Result<T> (or Status), whose error is an Error. ErrorKind is catalog-shaped
// and maps one-to-one to an Iceberg REST error response (see rest/).
#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

#include "skade/util/strings.h"

namespace skade {

enum class ErrorKind {
  kInvalidArgument,     // bad input from the caller (REST 400)
  kNoSuchNamespace,     // REST 404 NoSuchNamespaceException
  kNoSuchTable,         // REST 404 NoSuchTableException
  kNoSuchView,          // REST 404 NoSuchViewException
  kNoSuchPlanId,        // a scan plan id unknown or expired (REST 404 NoSuchPlanIdException)
  kNoSuchPlanTask,      // a plan task unknown or expired (REST 404 NoSuchPlanTaskException)
  kNotFound,            // a file or other object is missing (REST 404 NotFoundException)
  kAlreadyExists,       // REST 409 AlreadyExistsException
  kNamespaceNotEmpty,   // REST 409 NamespaceNotEmptyException
  kCommitFailed,        // a requirement failed or a concurrent commit won (REST 409)
  kCommitStateUnknown,  // the commit may or may not have landed (REST 500)
  kUnsupported,         // valid request that skade does not implement (REST 501/406)
  kNotAuthorized,       // REST 401
  kForbidden,           // REST 403
  kIo,                  // file system or store failure (REST 500)
  kCorruption,          // a file or store record is malformed (REST 500)
  kCancelled,           // the operation was cancelled by its caller
  kInternal,            // a bug (REST 500)
  kNoSuchRoute,         // no REST route has the request's path (REST 404 NoSuchRouteException)
  kMethodNotAllowed,    // a REST route has the path but not the method (REST 405)
  // A well-formed request whose content contradicts itself (REST 422).
  kUnprocessableEntity,
  // A request with this Idempotency-Key was answered before (and recorded):
  // the caller replays that answer instead. Should one reach a client
  // anyway, REST 500 CommitStateUnknownException, the answer that never
  // makes a client delete what may have been committed.
  kIdempotencyKeyUsed,
  // What was asked for existed but is no longer kept: change-feed commits
  // pruned by retention (REST 410 GoneException).
  kGone,
};

/// The stable name of an error kind, e.g. "NoSuchTable".
std::string_view ErrorKindName(ErrorKind kind);

/// An error: what kind, a human-readable message, and whether retrying the
/// same operation may succeed (e.g. a lost compare-and-swap).
struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  bool retryable = false;

  /// "<KindName>: <message>", for logs and CLI output.
  std::string ToString() const;
};

/// Builds an unexpected Error whose message is the concatenation of `parts`.
template <typename... Parts>
tl::unexpected<Error> MakeError(ErrorKind kind, const Parts&... parts) {
  return tl::unexpected<Error>(Error{kind, StrCat(parts...), false});
}

/// As MakeError, with the retryable bit set.
template <typename... Parts>
tl::unexpected<Error> MakeRetryableError(ErrorKind kind, const Parts&... parts) {
  return tl::unexpected<Error>(Error{kind, StrCat(parts...), true});
}

template <typename... Parts>
tl::unexpected<Error> InvalidArgument(const Parts&... parts) {
  return MakeError(ErrorKind::kInvalidArgument, parts...);
}

template <typename... Parts>
tl::unexpected<Error> IoError(const Parts&... parts) {
  return MakeError(ErrorKind::kIo, parts...);
}

template <typename... Parts>
tl::unexpected<Error> Corruption(const Parts&... parts) {
  return MakeError(ErrorKind::kCorruption, parts...);
}

template <typename... Parts>
tl::unexpected<Error> CommitFailed(const Parts&... parts) {
  return MakeError(ErrorKind::kCommitFailed, parts...);
}

template <typename... Parts>
tl::unexpected<Error> Unsupported(const Parts&... parts) {
  return MakeError(ErrorKind::kUnsupported, parts...);
}

template <typename... Parts>
tl::unexpected<Error> InternalError(const Parts&... parts) {
  return MakeError(ErrorKind::kInternal, parts...);
}

}  // namespace skade
