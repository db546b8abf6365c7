// The errors for a missing or already existing namespace or table, with the
// message texts clients see (PyIceberg, Spark and the conformance kit match
// on them). Header-only so every module above spec/ (store, catalog, rest)
// can use it.
#pragma once

#include "skade/spec/table_identifier.h"
#include "skade/util/error.h"

namespace skade::spec {

inline tl::unexpected<Error> NoSuchNamespace(const Namespace& ns) {
  return MakeError(ErrorKind::kNoSuchNamespace,
                   "Namespace does not exist: ", NamespaceToString(ns));
}

inline tl::unexpected<Error> NoSuchTable(const TableIdentifier& identifier) {
  return MakeError(ErrorKind::kNoSuchTable, "Table does not exist: ", identifier.ToString());
}

inline tl::unexpected<Error> NamespaceAlreadyExists(const Namespace& ns) {
  return MakeError(ErrorKind::kAlreadyExists, "Namespace already exists: ", NamespaceToString(ns));
}

inline tl::unexpected<Error> TableAlreadyExists(const TableIdentifier& identifier) {
  return MakeError(ErrorKind::kAlreadyExists, "Table already exists: ", identifier.ToString());
}

}  // namespace skade::spec
