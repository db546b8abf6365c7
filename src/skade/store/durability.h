// How hard a commit works to survive crashes before it is acknowledged.
#pragma once

#include <string_view>

#include "skade/util/result.h"

namespace skade::store {

/// What each level may lose:
///
/// - kImmediate (default): the new metadata file and its directory entry are
///   fsynced, then the LMDB transaction is committed with a full sync. An
///   acknowledged commit survives a process crash, an OS crash and power loss.
/// - kEventual: nothing is fsynced on the commit path (LMDB MDB_NOSYNC); a
///   background flusher fsyncs the metadata files written since its last
///   round and then the store, every `flush_interval_ms` (default 1000). A
///   process crash (kill -9) loses nothing — the data is in the OS page
///   cache. An OS crash or power loss may lose the commits acknowledged after
///   the last flush and, as LMDB documents for MDB_NOSYNC on file systems
///   that reorder writes, may leave the store needing recovery (re-register
///   tables from their metadata files with `skade table register`).
/// - kNone: never fsyncs except when the catalog is closed cleanly. Process
///   crashes lose nothing; an OS crash or power loss may lose any commit since
///   the last clean close. For tests and benchmarks.
enum class Durability { kImmediate, kEventual, kNone };

/// "immediate", "eventual" or "none".
std::string_view DurabilityName(Durability durability);
Result<Durability> ParseDurability(std::string_view name);

}  // namespace skade::store
