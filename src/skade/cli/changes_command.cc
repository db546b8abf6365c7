// `skade changes`: the change feed of the catalog's commit log, read from
// the store directly (while `skade serve` runs on it too), and `skade
// changes prune` for the commit log's retention.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include "skade/catalog/commit_log_retention.h"
#include "skade/cli/commands.h"
#include "skade/rest/idempotency.h"
#include "skade/rest/rest_messages.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::cli {

namespace {

struct ChangesArgs {
  std::string since;  // a number or a position; empty: from the first commit kept
  size_t limit = 0;   // 0: no limit
  bool follow = false;
  int poll_interval_ms = 1000;
  bool json = false;
  std::string older_than;
};

std::atomic<bool> interrupted{false};

// One line per commit: seq, time, what, table, snapshots, by whom, file.
void PrintText(uint64_t seq, const store::CommitLogRecord& commit) {
  std::string snapshots;
  for (size_t i = 0; i < commit.added_snapshot_ids.size(); ++i) {
    if (i > 0) snapshots += ',';
    StrAppend(&snapshots, commit.added_snapshot_ids[i]);
    if (i < commit.snapshot_operations.size() && !commit.snapshot_operations[i].empty()) {
      StrAppend(&snapshots, '(', commit.snapshot_operations[i], ')');
    }
  }
  std::string by;
  for (const auto& origin : commit.origins) {
    if (origin.requester.empty()) continue;
    if (!by.empty()) by += ',';
    by += origin.requester;
  }
  std::string table = commit.identifier.name.empty() ? StrCat("table#", commit.table_id)
                                                     : spec::QuotedIdentifier(commit.identifier);
  std::cout << seq << '\t' << FormatTimestampMillis(commit.committed_at_ms) << '\t'
            << rest::ChangeOperationType(commit.kind) << '\t' << table << '\t'
            << (snapshots.empty() ? "-" : snapshots) << '\t' << (by.empty() ? "-" : by) << '\t'
            << commit.metadata_location << '\n';
}

Status ShowChanges(const CliContext& context, const ChangesArgs& args) {
  if (args.poll_interval_ms <= 0) {
    return InvalidArgument("--poll-interval must be positive (got ", args.poll_interval_ms, ")");
  }
  // A reader changes nothing in the warehouse, not even journal recovery
  // (that is for the processes that write).
  SKADE_ASSIGN_OR_RAISE(auto catalog,
                        context.OpenCatalog(/*long_running=*/false, /*recover_journal=*/false));
  // Ctrl-C ends --follow after the page in hand: every line printed is whole.
  struct sigaction action {};
  action.sa_handler = [](int) { interrupted.store(true); };
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  constexpr size_t kPage = 1000;
  catalog::ChangePosition since;
  if (!args.since.empty()) {
    SKADE_ASSIGN_OR_RAISE(since, catalog::ChangePosition::Parse("--since", args.since));
  } else {
    // "All kept": from where retention left the log.
    SKADE_ASSIGN_OR_RAISE(auto kept, catalog->store().ReadCommitLogPage(0, 0));
    since.seq = kept.bounds.pruned_through;
  }
  size_t shown = 0;
  while (!interrupted.load()) {
    size_t want = args.limit == 0 ? kPage : std::min(kPage, args.limit - shown);
    SKADE_ASSIGN_OR_RAISE(auto page, catalog->ReadChanges(since, want));
    for (const auto& [seq, commit] : page.commits) {
      if (args.json) {
        std::cout << rest::WriteChangeEvent(seq, commit) << '\n';
      } else {
        PrintText(seq, commit);
      }
      since = catalog::ChangePosition::After(seq, commit);
    }
    std::cout.flush();
    shown += page.commits.size();
    if (args.limit != 0 && shown >= args.limit) break;
    if (page.commits.size() == want) continue;  // more to read now
    if (!args.follow) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(args.poll_interval_ms));
  }
  // Where to resume: on stderr, so that stdout stays the events alone.
  std::cerr << "skade changes: through commit " << since.seq << " (resume with --since "
            << since.ToString() << ")\n";
  return OkStatus();
}

Status PruneChanges(const CliContext& context, const ChangesArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto retention, rest::ParseIsoDuration(args.older_than));
  if (retention.count() <= 0) {
    // As --commit-log-retention 0 (keep all), 0 never means "prune all".
    return InvalidArgument("--older-than must be positive (got ", args.older_than, ")");
  }
  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  const int64_t retention_ms = std::chrono::milliseconds(retention).count();
  SKADE_ASSIGN_OR_RAISE(size_t examined, catalog::CommitLogRetention::PruneOnce(
                                             catalog->store(), retention_ms, NowMillis()));
  SKADE_ASSIGN_OR_RAISE(auto retained, catalog->store().ReadCommitLogPage(0, 0));
  std::cout << "pruned commits older than " << args.older_than << " (" << examined
            << " examined); the change feed now starts after commit "
            << retained.bounds.pruned_through << " of " << retained.bounds.last_seq << "\n";
  return OkStatus();
}

}  // namespace

void AddChangesCommand(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<ChangesArgs>();
  auto* changes = app.add_subcommand(
      "changes",
      "Every commit of the catalog since a sequence number: table, operation, snapshots, "
      "requester, metadata file (the commit log's change feed)");
  changes->add_option("--since", args->since,
                      "Show commits after this commit sequence number, or after the position "
                      "a previous run printed (N.check: refused if the store was restored from a "
                      "backup since; default: all kept)");
  changes->add_option("--limit", args->limit, "Stop after this many commits");
  changes->add_flag("--follow,-f", args->follow,
                    "Keep waiting for new commits (Ctrl-C ends); prints where to resume");
  changes->add_option("--poll-interval", args->poll_interval_ms,
                      "--follow: milliseconds between looks at the log (default 1000)");
  changes->add_flag("--json", args->json,
                    "One JSON event per line, as GET /v1/skade/changes answers them");
  changes->callback([&context, args, changes] {
    if (changes->get_subcommands().empty()) {
      throw CLI::RuntimeError(Run([&] { return ShowChanges(context, *args); }));
    }
  });
  auto* prune = changes->add_subcommand(
      "prune",
      "Drop commits older than a duration from the commit log (each table keeps its last one; "
      "snapshot ids keep resolving)");
  prune->add_option("--older-than", args->older_than, "ISO-8601 duration (P30D, PT12H) or seconds")
      ->required();
  prune->callback([&context, args] {
    throw CLI::RuntimeError(Run([&] { return PruneChanges(context, *args); }));
  });
}

}  // namespace skade::cli
