#include "skade/rest/error_response.h"

#include "skade/rest/http/error_model.h"

namespace skade::rest {

int HttpStatusFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return 400;
    case ErrorKind::kNotAuthorized:
      return 401;
    case ErrorKind::kForbidden:
      return 403;
    case ErrorKind::kNoSuchNamespace:
    case ErrorKind::kNoSuchTable:
    case ErrorKind::kNoSuchView:
    case ErrorKind::kNotFound:
      return 404;
    case ErrorKind::kAlreadyExists:
    case ErrorKind::kNamespaceNotEmpty:
    case ErrorKind::kCommitFailed:
      return 409;
    case ErrorKind::kUnsupported:
      return 501;
    case ErrorKind::kCancelled:
      return 503;
    case ErrorKind::kCommitStateUnknown:
    case ErrorKind::kIo:
    case ErrorKind::kCorruption:
    case ErrorKind::kInternal:
      return 500;
  }
  return 500;
}

std::string_view ErrorTypeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return "BadRequestException";
    case ErrorKind::kNotAuthorized:
      return "NotAuthorizedException";
    case ErrorKind::kForbidden:
      return "ForbiddenException";
    case ErrorKind::kNoSuchNamespace:
      return "NoSuchNamespaceException";
    case ErrorKind::kNoSuchTable:
      return "NoSuchTableException";
    case ErrorKind::kNoSuchView:
      return "NoSuchViewException";
    case ErrorKind::kNotFound:
      return "NotFoundException";
    case ErrorKind::kAlreadyExists:
      return "AlreadyExistsException";
    case ErrorKind::kNamespaceNotEmpty:
      return "NamespaceNotEmptyException";
    case ErrorKind::kCommitFailed:
      return "CommitFailedException";
    case ErrorKind::kCommitStateUnknown:
      return "CommitStateUnknownException";
    case ErrorKind::kUnsupported:
      return "UnsupportedOperationException";
    case ErrorKind::kCancelled:
      return "ServiceUnavailableException";
    case ErrorKind::kIo:
    case ErrorKind::kCorruption:
    case ErrorKind::kInternal:
      return "ServiceFailureException";
  }
  return "ServiceFailureException";
}

HttpResponse ErrorResponse(int status, std::string_view type, std::string_view message) {
  return ErrorModelResponse(status, type, message);
}

HttpResponse ErrorResponse(const Error& error) {
  return ErrorResponse(HttpStatusFor(error.kind), ErrorTypeFor(error.kind), error.message);
}

}  // namespace skade::rest
