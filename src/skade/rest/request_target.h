// Decoding the request-target of an Iceberg REST call: path segments,
// namespace segments and query parameters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::rest {

/// Percent-decodes `text`; with `plus_as_space`, '+' decodes to ' ' (Java
/// clients encode path segments with URLEncoder). kInvalidArgument for a
/// malformed escape.
Result<std::string> PercentDecode(std::string_view text, bool plus_as_space);

/// Percent-encodes everything but unreserved characters (RFC 3986).
std::string PercentEncode(std::string_view text);

/// A request-target split into raw (still encoded) path segments and decoded
/// query parameters.
struct RequestTarget {
  std::vector<std::string> segments;
  std::map<std::string, std::string> query;

  std::optional<std::string_view> Query(const std::string& name) const;
};

Result<RequestTarget> ParseRequestTarget(std::string_view target);

/// Decodes a `{namespace}` path segment: levels are separated by %1F (or a
/// raw 0x1F), then each level is percent-decoded with '+' as space.
Result<spec::Namespace> DecodeNamespaceSegment(std::string_view raw_segment);

/// Decodes the `parent` query value (already percent-decoded): levels split
/// on 0x1F.
Result<spec::Namespace> DecodeNamespaceParameter(std::string_view value);

/// Parses a boolean query value case-insensitively ("true"/"True"/"false").
Result<bool> ParseBooleanParameter(std::string_view name, std::string_view value);

/// Parses a path or query value that is a non-negative 64-bit integer (Unix
/// milliseconds, a commit sequence number): decimal digits only, no sign or
/// spaces, at most 2^63-1. kInvalidArgument naming `name` otherwise.
Result<int64_t> ParseNonNegativeLongParameter(std::string_view name, std::string_view value);

/// As ParseNonNegativeLongParameter, but a leading '-' is allowed: a
/// snapshot id. Iceberg's writers pick non-negative ids, yet a commit may
/// carry a negative one and the table must be readable at it.
Result<int64_t> ParseLongParameter(std::string_view name, std::string_view value);

}  // namespace skade::rest
