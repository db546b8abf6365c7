// The table properties skade itself reads, all under "skade.commit.".
//
// Declared in one place so that a commit setting one is checked at once: a
// typo ("rebase-appends=flase", "history-mode=merge") would otherwise be
// stored and read later as a silent default or fail an unrelated write.
// Plain values and a pure function; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "skade/spec/table_update.h"
#include "skade/util/result.h"

namespace skade::catalog {

inline constexpr char kSkadeCommitPropertyPrefix[] = "skade.commit.";

/// "true" or "false" (any case); "false" turns the server-side rebase of
/// appends off (append_rebase.h).
inline constexpr char kRebaseAppendsProperty[] = "skade.commit.rebase-appends";
inline constexpr bool kRebaseAppendsDefault = true;

/// "merged" or "per-transaction" (commit/coalescing_committer.h).
inline constexpr char kHistoryModeProperty[] = "skade.commit.history-mode";

/// Batches smaller than this many bytes (Arrow buffers) are kept in memory
/// and encoded together at the flush; larger ones are written by the caller.
inline constexpr char kDeferredMaxBytesProperty[] = "skade.commit.deferred-max-bytes";
inline constexpr int64_t kDeferredMaxBytesDefault = 4ll << 20;

/// kInvalidArgument naming the first key of `properties` under
/// "skade.commit." that skade does not know or whose value it would refuse;
/// keys outside that prefix are not looked at.
Status CheckSkadeProperties(const std::map<std::string, std::string>& properties);

/// kInvalidArgument if `value` is not one the known property `key` takes;
/// OkStatus for keys this file does not declare.
Status CheckKnownSkadeProperty(const std::string& key, const std::string& value);

/// CheckSkadeProperties of what each `set-properties` of `updates` sets.
Status CheckSkadePropertyUpdates(const std::vector<spec::TableUpdate>& updates);

}  // namespace skade::catalog
