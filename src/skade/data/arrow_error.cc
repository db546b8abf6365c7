#include "skade/data/arrow_error_internal.h"

namespace skade::data {

Status FromArrowStatus(const arrow::Status& status, std::string_view context) {
  if (status.ok()) return OkStatus();
  ErrorKind kind = ErrorKind::kInternal;
  if (status.IsInvalid() || status.IsTypeError() || status.IsIndexError() || status.IsKeyError()) {
    kind = ErrorKind::kInvalidArgument;
  } else if (status.IsNotImplemented()) {
    kind = ErrorKind::kUnsupported;
  } else if (status.IsIOError()) {
    kind = ErrorKind::kIo;
  } else if (status.IsCapacityError() || status.IsOutOfMemory()) {
    kind = ErrorKind::kIo;
  } else if (status.IsCancelled()) {
    kind = ErrorKind::kCancelled;
  }
  if (context.empty()) return MakeError(kind, status.message());
  return MakeError(kind, context, ": ", status.message());
}

arrow::Status ToArrowStatus(const Error& error) {
  switch (error.kind) {
    case ErrorKind::kInvalidArgument:
      return arrow::Status::Invalid(error.message);
    case ErrorKind::kUnsupported:
      return arrow::Status::NotImplemented(error.message);
    case ErrorKind::kCancelled:
      return arrow::Status::Cancelled(error.message);
    default:
      return arrow::Status::IOError(error.ToString());
  }
}

}  // namespace skade::data
