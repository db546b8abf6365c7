// What a benchmark target offers the scenario plan: a catalog reached one way
// (the C++ API, or HTTP to an Iceberg REST server), opened as one session per
// benchmark thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::bench {

/// What one thread's appends met (CatalogSession::Append adds to it).
struct AppendStats {
  /// Commit attempts the catalog refused because another commit won (REST: 409).
  uint64_t conflicts = 0;
  /// Attempts made again after a conflict.
  uint64_t retries = 0;
  /// Appends the client gave up on after its last retry lost too.
  uint64_t failures = 0;
};

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
  /// Appends one snapshot as a client does (CatalogTarget::append_notes says
  /// how: at least load, commit with assert-table-uuid +
  /// assert-ref-snapshot-id on main, add-snapshot and set-snapshot-ref, and
  /// reload and retry when a concurrent commit wins) and counts what it met
  /// in `stats`. An append the client gives up on is counted in
  /// `stats->failures` and returns OK, so the scenario goes on; any other
  /// error is returned.
  virtual Status Append(const spec::TableIdentifier& identifier, AppendStats* stats) = 0;
  /// What Append does on the client before it sends the commit — load,
  /// write the files, build the request — and no commit: on a machine the
  /// load generator shares with the catalog, the part of a mixed scenario's
  /// read latency that the writers' own work costs. kUnsupported where the
  /// target has no such split.
  virtual Status StageAppend(const spec::TableIdentifier& identifier) {
    return MakeError(ErrorKind::kUnsupported, "no staged append for ", identifier.ToString());
  }
};

/// Thread-safe: NewSession may be called from any thread.
class CatalogTarget {
 public:
  virtual ~CatalogTarget() = default;

  virtual Result<std::unique_ptr<CatalogSession>> NewSession() = 0;
  /// Record fields: the target name ("skade-embedded", …), its durability
  /// ("immediate", "peer-default", …), its group-commit setting and whether
  /// the server rebases refused appends (each "on", "off", or empty when it
  /// does not apply), what one Append does, and a note for the records of
  /// write scenarios (e.g. what a commit makes durable).
  virtual std::string name() const = 0;
  virtual std::string durability() const = 0;
  virtual std::string group_commit() const { return ""; }
  virtual std::string rebase() const { return ""; }
  virtual std::string append_notes() const = 0;
  virtual std::string write_notes() const { return ""; }
  /// Store transactions that swapped table pointers so far (skade's
  /// embedded store: one per group commit), or nullopt where the target
  /// cannot tell. Write records give the difference over their scenario.
  virtual std::optional<uint64_t> store_transactions() const { return std::nullopt; }
};

}  // namespace skade::bench
