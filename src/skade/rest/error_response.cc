#include "skade/rest/error_response.h"

#include "skade/rest/http/error_model.h"

namespace skade::rest {

RestErrorType RestErrorTypeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return {400, "BadRequestException"};
    case ErrorKind::kNotAuthorized:
      return {401, "NotAuthorizedException"};
    case ErrorKind::kForbidden:
      return {403, "ForbiddenException"};
    case ErrorKind::kNoSuchNamespace:
      return {404, "NoSuchNamespaceException"};
    case ErrorKind::kNoSuchTable:
      return {404, "NoSuchTableException"};
    case ErrorKind::kNoSuchView:
      return {404, "NoSuchViewException"};
    case ErrorKind::kNoSuchPlanId:
      return {404, "NoSuchPlanIdException"};
    case ErrorKind::kNoSuchPlanTask:
      return {404, "NoSuchPlanTaskException"};
    case ErrorKind::kNotFound:
      return {404, "NotFoundException"};
    case ErrorKind::kNoSuchRoute:
      return {404, "NoSuchRouteException"};
    case ErrorKind::kMethodNotAllowed:
      return {405, "MethodNotAllowedException"};
    case ErrorKind::kAlreadyExists:
      return {409, "AlreadyExistsException"};
    case ErrorKind::kNamespaceNotEmpty:
      return {409, "NamespaceNotEmptyException"};
    case ErrorKind::kCommitFailed:
      return {409, "CommitFailedException"};
    case ErrorKind::kGone:
      return {410, "GoneException"};
    case ErrorKind::kUnprocessableEntity:
      return {422, "UnprocessableEntityException"};
    case ErrorKind::kCommitStateUnknown:
    case ErrorKind::kIdempotencyKeyUsed:
      return {500, "CommitStateUnknownException"};
    case ErrorKind::kUnsupported:
      return {501, "UnsupportedOperationException"};
    case ErrorKind::kCancelled:
      return {503, "ServiceUnavailableException"};
    case ErrorKind::kIo:
    case ErrorKind::kCorruption:
    case ErrorKind::kInternal:
      return {500, "ServiceFailureException"};
  }
  return {500, "ServiceFailureException"};
}

HttpResponse ErrorResponse(const Error& error) {
  const RestErrorType rest = RestErrorTypeFor(error.kind);
  // A 503 is an overload that passes: it says when to come back.
  if (rest.status == 503) return RetryLaterResponse(error.message);
  return ErrorModelResponse(rest.status, rest.type, error.message);
}

}  // namespace skade::rest
