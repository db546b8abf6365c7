// ChangePosition: a change-feed reader's place — the last commit it
// processed — as the feed hands it out: "<commit_seq>.<check>", where the
// check is a hash of that commit's log record.
//
// A sequence number alone names a commit only within one history of the
// commit log. A store restored from a backup goes on numbering from the
// backup's last commit, so a reader that had read further would resume at a
// number that now names another commit, and silently skip or misread
// commits. With the check, ReadChanges finds the commit at the reader's
// number and refuses (kGone) a place whose commit is not the one the reader
// saw. A bare number stays valid and is not checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "skade/store/commit_log_record.h"
#include "skade/util/result.h"

namespace skade::catalog {

struct ChangePosition {
  uint64_t seq = 0;
  /// The hash of the commit at `seq` as the reader saw it; absent for a bare
  /// number (and for 0, before the first commit).
  std::optional<uint64_t> check;

  /// After the commit `seq` whose log record is `commit`.
  static ChangePosition After(uint64_t seq, const store::CommitLogRecord& commit);
  /// "N" or "N.<16 hex digits>"; kInvalidArgument naming `name` otherwise.
  static Result<ChangePosition> Parse(std::string_view name, std::string_view text);
  /// "N.<16 hex digits>" with a check, else "N".
  std::string ToString() const;
  bool operator==(const ChangePosition&) const = default;
};

}  // namespace skade::catalog
