// A namespace's and a table's identity as one byte string: the form in which
// every CatalogStore names the tables whose pointers changed (TableChange),
// and by which the catalog's in-memory structures key tables.
//
// A namespace key joins its levels with 0x1F; a table key is its namespace
// key, 0x00, then the table name. Names never contain 0x00 or 0x1F
// (spec::ValidateName rejects control characters), so the keys are unique
// per identifier, a namespace's children sort right after "<ns>\x1F" and its
// tables right after "<ns>\x00" (stores that keep keys in order, such as
// LMDB's, list by prefix).
#pragma once

#include <string>
#include <string_view>

#include "skade/spec/table_identifier.h"

namespace skade::store {

inline constexpr char kNamespaceSeparator = '\x1f';
inline constexpr char kTableSeparator = '\x00';

std::string NamespaceKey(const spec::Namespace& ns);
spec::Namespace NamespaceFromKey(std::string_view key);

/// The prefix shared by the keys of all tables in `ns`.
std::string TablePrefix(const spec::Namespace& ns);
std::string TableKey(const spec::TableIdentifier& identifier);
/// Appends TableKey(identifier) to `out` (lets hot paths reuse a buffer).
void AppendTableKey(std::string* out, const spec::TableIdentifier& identifier);
spec::TableIdentifier TableIdentifierFromKey(std::string_view key);

}  // namespace skade::store
