#include "skade/util/error.h"

namespace skade {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return "InvalidArgument";
    case ErrorKind::kNoSuchNamespace:
      return "NoSuchNamespace";
    case ErrorKind::kNoSuchTable:
      return "NoSuchTable";
    case ErrorKind::kNoSuchView:
      return "NoSuchView";
    case ErrorKind::kNotFound:
      return "NotFound";
    case ErrorKind::kAlreadyExists:
      return "AlreadyExists";
    case ErrorKind::kNamespaceNotEmpty:
      return "NamespaceNotEmpty";
    case ErrorKind::kCommitFailed:
      return "CommitFailed";
    case ErrorKind::kCommitStateUnknown:
      return "CommitStateUnknown";
    case ErrorKind::kUnsupported:
      return "Unsupported";
    case ErrorKind::kNotAuthorized:
      return "NotAuthorized";
    case ErrorKind::kForbidden:
      return "Forbidden";
    case ErrorKind::kIo:
      return "Io";
    case ErrorKind::kCorruption:
      return "Corruption";
    case ErrorKind::kCancelled:
      return "Cancelled";
    case ErrorKind::kInternal:
      return "Internal";
    case ErrorKind::kNoSuchRoute:
      return "NoSuchRoute";
    case ErrorKind::kMethodNotAllowed:
      return "MethodNotAllowed";
    case ErrorKind::kUnprocessableEntity:
      return "UnprocessableEntity";
    case ErrorKind::kIdempotencyKeyUsed:
      return "IdempotencyKeyUsed";
    case ErrorKind::kGone:
      return "Gone";
    case ErrorKind::kNoSuchPlanId:
      return "NoSuchPlanId";
    case ErrorKind::kNoSuchPlanTask:
      return "NoSuchPlanTask";
  }
  return "Unknown";
}

std::string Error::ToString() const { return StrCat(ErrorKindName(kind), ": ", message); }

}  // namespace skade
