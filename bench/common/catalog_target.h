// What a benchmark target offers the scenario plan: a catalog reached one way
// (the C++ API, or HTTP to an Iceberg REST server), opened as one session per
// benchmark thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::bench {

/// One thread's handle on the catalog (e.g. one keep-alive connection). Not
/// thread-safe: the plan gives each benchmark thread its own.
class CatalogSession {
 public:
  virtual ~CatalogSession() = default;

  virtual Status CreateNamespace(const spec::Namespace& ns) = 0;
  /// A table with the benchmark schema (id long, data string), unpartitioned.
  virtual Status CreateTable(const spec::TableIdentifier& identifier) = 0;
  virtual Status LoadTable(const spec::TableIdentifier& identifier) = 0;
  virtual Result<bool> TableExists(const spec::TableIdentifier& identifier) = 0;
  virtual Status ListTables(const spec::Namespace& ns) = 0;
  virtual Status ListNamespaces() = 0;
  /// The catalog's floor under LoadTable (pointer + cached metadata, no
  /// result assembly), where the target has one; kUnsupported otherwise.
  virtual Status ResolveMetadata(const spec::TableIdentifier& identifier) {
    return MakeError(ErrorKind::kUnsupported, "no resolve_metadata for ", identifier.ToString());
  }
  /// Appends one snapshot as a client does (load, then commit the fast-append
  /// requirements and updates of tests/testing/fast_append.h), reloading and
  /// retrying when a concurrent commit wins; adds the retries to `conflicts`.
  virtual Status Append(const spec::TableIdentifier& identifier, uint64_t* conflicts) = 0;
};

/// Thread-safe: NewSession may be called from any thread.
class CatalogTarget {
 public:
  virtual ~CatalogTarget() = default;

  virtual Result<std::unique_ptr<CatalogSession>> NewSession() = 0;
  /// Record fields: the target name ("skade-embedded", …), its durability
  /// ("immediate", "peer-default", …), its group-commit setting ("on", "off",
  /// or empty when it does not apply) and a note for the records of write
  /// scenarios (e.g. what a commit makes durable).
  virtual std::string name() const = 0;
  virtual std::string durability() const = 0;
  virtual std::string group_commit() const { return ""; }
  virtual std::string write_notes() const { return ""; }
};

}  // namespace skade::bench
