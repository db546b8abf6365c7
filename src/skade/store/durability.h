// How hard a commit works to survive crashes before it is acknowledged.
#pragma once

#include <string_view>

#include "skade/util/result.h"

namespace skade::store {

/// What each level may lose. "Files" are every file a commit depends on
/// that skade writes: the metadata file, and the manifests, manifest lists
/// and data files written through the catalog's FileIO
/// (EmbeddedCatalog::file_io_ptr(), which table::Table, ingest and the CLI
/// use); "their directories" includes new ancestors up to one known durable.
///
/// - kImmediate (default): before a commit is acknowledged its files and
///   their directories are fsynced, then the store commits with a full sync
///   (LMDB: of its transaction). The catalog's own metadata file is the
///   exception, by default: its bytes are journaled in that same store
///   transaction (PointerSwap::journaled_files), the file is written without
///   sync and made durable later by the flusher, and opening the catalog
///   rewrites it from the store if a power loss took it
///   (EmbeddedCatalogOptions::journal_max_bytes). An acknowledged commit
///   survives a process crash, an OS crash and power loss.
/// - kEventual: nothing is fsynced on the commit path (LMDB: MDB_NOSYNC); a
///   background flusher, every `flush_interval_ms` (default 1000), fsyncs
///   the files written since its last round, then their directories, then
///   the store (CatalogStore::Sync), holding commits off for the store sync
///   so a synced pointer never names an unsynced file. A failed sync is logged and retried the
///   next round, and the store is not synced until it succeeds. A process
///   crash (kill -9) loses nothing — the data is in the OS page cache. An OS
///   crash or power loss may lose the commits acknowledged after the last
///   completed round and, as LMDB documents for MDB_NOSYNC on file systems
///   that reorder writes (and since the OS may write store pages back
///   before the round syncs the files they name), may leave the store
///   needing recovery (re-register tables from their metadata files with
///   `skade table register`). A round syncs the files of its own process
///   only: with several processes writing one warehouse, another process's
///   round can make this one's pointers durable before their files.
/// - kNone: never fsyncs except when the catalog is closed cleanly, which
///   syncs every file written since it was opened, their directories, then
///   the store (and the store's directory when it is opened). Process
///   crashes lose nothing; an OS crash or power loss may lose any commit
///   since the last clean close, with the same recovery caveat as kEventual.
///   For tests and benchmarks.
enum class Durability { kImmediate, kEventual, kNone };

/// "immediate", "eventual" or "none".
std::string_view DurabilityName(Durability durability);
Result<Durability> ParseDurability(std::string_view name);

}  // namespace skade::store
