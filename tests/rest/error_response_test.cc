// The one mapping from error kinds to REST statuses and ErrorModel types, and
// the shared "does not exist" / "already exists" messages clients match on.
#include "skade/rest/error_response.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "skade/spec/catalog_errors.h"

namespace skade::rest {
namespace {

TEST(ErrorResponseTest, EveryKindHasItsRestStatusAndType) {
  const std::vector<std::tuple<ErrorKind, int, std::string_view>> expected = {
      {ErrorKind::kInvalidArgument, 400, "BadRequestException"},
      {ErrorKind::kNotAuthorized, 401, "NotAuthorizedException"},
      {ErrorKind::kForbidden, 403, "ForbiddenException"},
      {ErrorKind::kNoSuchNamespace, 404, "NoSuchNamespaceException"},
      {ErrorKind::kNoSuchTable, 404, "NoSuchTableException"},
      {ErrorKind::kNoSuchView, 404, "NoSuchViewException"},
      {ErrorKind::kNoSuchPlanId, 404, "NoSuchPlanIdException"},
      {ErrorKind::kNoSuchPlanTask, 404, "NoSuchPlanTaskException"},
      {ErrorKind::kNotFound, 404, "NotFoundException"},
      {ErrorKind::kNoSuchRoute, 404, "NoSuchRouteException"},
      {ErrorKind::kMethodNotAllowed, 405, "MethodNotAllowedException"},
      {ErrorKind::kAlreadyExists, 409, "AlreadyExistsException"},
      {ErrorKind::kNamespaceNotEmpty, 409, "NamespaceNotEmptyException"},
      {ErrorKind::kCommitFailed, 409, "CommitFailedException"},
      {ErrorKind::kUnprocessableEntity, 422, "UnprocessableEntityException"},
      {ErrorKind::kCommitStateUnknown, 500, "CommitStateUnknownException"},
      {ErrorKind::kIdempotencyKeyUsed, 500, "CommitStateUnknownException"},
      {ErrorKind::kUnsupported, 501, "UnsupportedOperationException"},
      {ErrorKind::kCancelled, 503, "ServiceUnavailableException"},
      {ErrorKind::kIo, 500, "ServiceFailureException"},
      {ErrorKind::kCorruption, 500, "ServiceFailureException"},
      {ErrorKind::kInternal, 500, "ServiceFailureException"},
  };
  for (const auto& [kind, status, type] : expected) {
    EXPECT_EQ(RestErrorTypeFor(kind).status, status) << ErrorKindName(kind);
    EXPECT_EQ(RestErrorTypeFor(kind).type, type) << ErrorKindName(kind);
    HttpResponse response = ErrorResponse(Error{kind, "m"});
    EXPECT_EQ(response.status, status);
    EXPECT_NE(response.body.find(StrCat("\"type\":\"", type, "\"")), std::string::npos)
        << response.body;
    // A 503 says when to come back.
    std::string retry_after;
    for (const auto& [name, value] : response.headers) {
      if (name == "Retry-After") retry_after = value;
    }
    EXPECT_EQ(retry_after, status == 503 ? "1" : "") << ErrorKindName(kind);
  }
}

TEST(ErrorResponseTest, CatalogErrorsKeepTheirMessages) {
  const spec::Namespace ns = {"a", "b"};
  const spec::TableIdentifier table = {ns, "t"};
  const std::vector<std::tuple<Error, ErrorKind, std::string_view>> expected = {
      {spec::NoSuchNamespace(ns).value(), ErrorKind::kNoSuchNamespace,
       "Namespace does not exist: a.b"},
      {spec::NoSuchTable(table).value(), ErrorKind::kNoSuchTable, "Table does not exist: a.b.t"},
      {spec::NamespaceAlreadyExists(ns).value(), ErrorKind::kAlreadyExists,
       "Namespace already exists: a.b"},
      {spec::TableAlreadyExists(table).value(), ErrorKind::kAlreadyExists,
       "Table already exists: a.b.t"},
  };
  for (const auto& [error, kind, message] : expected) {
    EXPECT_EQ(error.kind, kind) << message;
    EXPECT_EQ(error.message, message);
  }
}

}  // namespace
}  // namespace skade::rest
