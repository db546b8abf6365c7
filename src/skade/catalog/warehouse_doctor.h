// WarehouseDoctor: checks that a warehouse's catalog state and its files
// agree (`skade doctor`), and makes the safe repairs when asked.
//
// Checks, per table pointer in the store:
// - its namespace exists;
// - the metadata file it names is allowed (location_policy.h), exists and
//   parses, and lies in the metadata directory of the table it describes
//   (`<location>/metadata` or `write.metadata.path`): a file that does not
//   is most likely another table's, copied or restored over this one's (the
//   store keeps no table uuid to compare);
// - every manifest list of the snapshots its refs name (main included; with
//   DoctorOptions::all_snapshots, of every snapshot the metadata keeps) is in
//   the table's file scope (table_file_scope.h), exists and parses, and every
//   manifest those lists name is in scope, exists, has the length its list
//   records and starts with Avro's magic (one 4-byte read: a file zeroed or
//   torn at its own length).
// Then every entry of the store's journal: a journaled file missing or
// different on disk (which the catalog would rewrite when it next opens).
// A location outside the allowed roots or the table's scope is reported and
// never read or written: every one of them came from a client.
//
// Repairs, only with DoctorOptions::repair: a missing or damaged file whose
// bytes the journal holds is rewritten from them (journal_recovery.h's
// rewrite, under the store's hold on commits); with drop_dangling also, a
// pointer whose metadata file is missing and not journaled is dropped (the
// table's other files are left alone), and a journal entry that cannot
// rebuild its missing or damaged file — a difference whose base is gone too,
// after files were deleted by hand or a warehouse restored without them — is
// released, since the catalog refuses to open while it is there. When no
// table's metadata file is there at all, nothing is dropped and the run
// fails: that is a warehouse not mounted or not the right one. Nothing else
// is ever changed.
//
// Whether storage is mounted is judged per root — the warehouse, or for a
// table outside it the outermost allowed location (--allow-location) its
// file lies under; a mount below a root is not known as one. A pointer
// under a root is kept, its problem saying why, when the root's directory
// is missing, empty or cannot be listed, or when two or more tables lie
// under it and all their metadata files are missing. A root holding one table is ambiguous (a
// deleted file or a root not there): its pointer is dropped only when the directory its file was in
// is there and holds other files. With "*" allowed, every table outside the warehouse counts as
// under one root per storage. A pointer is dropped only if it still names the file checked; the
// store has no conditional drop, so a `table register --overwrite` landing between that check and
// the drop is caught after it (the pointer dropped is not the one checked) and fails the run naming
// the file to register again.
//
// The checks read one state of the store but files as they are while they
// run: with a server committing meanwhile, a file deleted on purpose after
// its read (metadata cleanup, a dropped table's purge) can show as a
// problem; run it again, or when writers are quiet, before acting on one.
// Not thread-safe (one run at a time per instance); the store and FileIO are
// the caller's and must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/catalog/location_policy.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_identifier.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

enum class DoctorProblemKind {
  kTableWithoutNamespace,
  kLocationNotAllowed,  // not read: outside the allowed roots or the table's scope
  kMetadataMissing,     // the table's pointer names a file that is not there
  kMetadataUnreadable,  // there, but cannot be read or parsed (truncated, corrupt)
  // There, but outside the metadata directory of the table it describes:
  // probably another table's file. Never repaired.
  kMetadataLocationMismatch,
  kManifestListMissing,
  kManifestListUnreadable,
  kManifestMissing,
  kManifestDamaged,       // not the length its list records, or not an Avro file
  kJournaledFileDamaged,  // journaled, and missing or different on disk
};

/// The stable name of a kind, e.g. "metadata-missing".
std::string_view DoctorProblemName(DoctorProblemKind kind);

/// What a repair did about a problem.
/// kReleased: a journal entry that cannot rebuild its file (a difference
/// whose base is gone too) was released, with drop_dangling.
enum class DoctorRepair { kNone, kRewritten, kDropped, kReleased };

struct DoctorProblem {
  DoctorProblemKind kind;
  /// The table whose pointer or metadata leads to the file; nullopt for a
  /// journal entry no table check reached.
  std::optional<spec::TableIdentifier> table;
  std::string location;
  std::string detail;
  /// The store's journal holds the file's bytes (can rebuild them): repair
  /// rewrites it.
  bool journaled = false;
  DoctorRepair repair = DoctorRepair::kNone;
};

struct DoctorOptions {
  /// Make the safe repairs (see above); off, nothing is changed.
  bool repair = false;
  /// With `repair`: also drop pointers to missing, unjournaled metadata
  /// (not those under a root that looks unmounted, see above), and release
  /// journal entries that cannot rebuild their file.
  bool drop_dangling = false;
  /// Check every snapshot the metadata keeps, not only those its refs name.
  bool all_snapshots = false;
  /// Told after each table (done of total); may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct DoctorReport {
  uint64_t tables = 0;
  uint64_t files_checked = 0;
  uint64_t journaled = 0;
  std::vector<DoctorProblem> problems;

  /// Problems no repair took care of.
  size_t unrepaired() const;
  /// The report as one JSON object (tables, files-checked, journaled,
  /// problems: kind, table, location, detail, journaled, repair).
  std::string ToJson() const;
};

class WarehouseDoctor {
 public:
  /// `policy` is the warehouse's (the catalog's allowed roots).
  WarehouseDoctor(store::CatalogStore& store, io::FileIO& io, const LocationPolicy& policy)
      : store_(store), io_(io), policy_(policy) {}

  /// Checks the warehouse and, as `options` say, repairs it. Problems are in
  /// the report; the error is for a store that cannot be read or a repair
  /// that failed (what was done stays done).
  Result<DoctorReport> Run(const DoctorOptions& options);

 private:
  store::CatalogStore& store_;
  io::FileIO& io_;
  const LocationPolicy& policy_;
};

}  // namespace skade::catalog
