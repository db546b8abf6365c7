// Namespaces and table identifiers, and the rules for valid names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::spec {

/// A namespace: one or more levels, outermost first.
using Namespace = std::vector<std::string>;

struct TableIdentifier {
  Namespace ns;
  std::string name;

  /// "level1.level2.name", as Iceberg prints identifiers in messages.
  std::string ToString() const;
  bool operator==(const TableIdentifier& other) const = default;
  auto operator<=>(const TableIdentifier& other) const = default;
};

/// "level1.level2".
std::string NamespaceToString(const Namespace& ns);

/// Parses "a.b.t" (the last level is the table name). A level may be quoted
/// in backticks, as Spark SQL quotes identifiers, to hold '.' or '`' (a '`'
/// inside doubled): "a.`b.c`" is table "b.c" in namespace a, and
/// "`a.b`.c" table c in the one-level namespace "a.b".
Result<TableIdentifier> ParseTableIdentifier(std::string_view text);
/// Parses "a.b" into levels, quoted as ParseTableIdentifier reads them.
Result<Namespace> ParseNamespace(std::string_view text);

/// The text ParseTableIdentifier reads back to `identifier`: levels joined
/// by '.', a level that holds '.' or starts with '`' in backticks ('`'
/// doubled). Plain names print as ToString() does.
std::string QuotedIdentifier(const TableIdentifier& identifier);
/// As QuotedIdentifier, for ParseNamespace.
std::string QuotedNamespace(const Namespace& ns);

/// Checks one namespace level or table name: non-empty, at most 255 bytes,
/// valid UTF-8, no NUL, control characters or the 0x1F level separator, and
/// not "." or "..". `what` names it in the message. '/' is allowed (Iceberg's
/// conformance kit requires it); EncodePathComponent keeps it out of paths.
Status ValidateName(std::string_view name, std::string_view what);
/// Also: the whole identifier, its levels (and table name) joined by one
/// separator byte each, is at most kMaxIdentifierBytes (the catalog store
/// keys tables and namespaces by it).
Status ValidateNamespace(const Namespace& ns);
Status ValidateTableIdentifier(const TableIdentifier& identifier);

inline constexpr size_t kMaxIdentifierBytes = 511;

/// A valid name as one path component: '/', '\\' and '%' are
/// percent-encoded, so a default table location can never leave its parent
/// directory; '?' and '#', which readers that take a location as a URI
/// (pyarrow, Hadoop) would read as its query or fragment; and '*' and '$',
/// which an S3 access policy scoped to the location would read as a wildcard
/// or a variable.
std::string EncodePathComponent(std::string_view name);

}  // namespace skade::spec
