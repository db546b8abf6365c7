// `skade backup`, `skade restore`, `skade doctor`: the CLI over
// catalog/store_backup.h and catalog/warehouse_doctor.h.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "skade/catalog/store_backup.h"
#include "skade/catalog/warehouse_doctor.h"
#include "skade/cli/commands.h"
#include "skade/cli/progress_bar.h"
#include "skade/io/location.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::cli {

namespace {

struct BackupArgs {
  std::string destination;
  std::string backup;
  bool force = false;
  bool with_metadata = false;
  bool repair = false;
  bool drop_dangling = false;
  bool all_snapshots = false;
  bool json = false;
};

// The local directory of the catalog store: --store (a path or
// "lmdb:<path>"), else the one inside a local warehouse.
Result<std::string> StoreDirectory(const CliContext& context) {
  if (!context.store.empty()) {
    std::string_view store = context.store;
    ConsumePrefix(&store, "lmdb:");
    return std::string(store);
  }
  SKADE_ASSIGN_OR_RAISE(auto warehouse, io::Location::ParseUserInput(context.warehouse));
  auto path = io::LocalPath(warehouse.ToString());
  if (!path) {
    return InvalidArgument(
        "the warehouse ", context.warehouse,
        " is not local, so its catalog store is elsewhere: name it with --store");
  }
  return catalog::EmbeddedCatalog::DefaultStorePath(*path);
}

// Opens the catalog of an existing store without changing anything (no
// journal recovery), so that a mistyped --warehouse is an error rather than
// a new, empty warehouse.
Result<std::shared_ptr<catalog::EmbeddedCatalog>> OpenExisting(const CliContext& context) {
  SKADE_ASSIGN_OR_RAISE(std::string store, StoreDirectory(context));
  std::error_code ec;
  if (!std::filesystem::is_directory(store, ec)) {
    return MakeError(ErrorKind::kNotFound, "there is no catalog store at ", store,
                     " (check --warehouse and --store)");
  }
  return context.OpenCatalog(/*long_running=*/false, /*recover_journal=*/false);
}

// Draws a stage's progress on the bar.
catalog::BackupProgress Drawing(ProgressBar& bar) {
  return [&bar](std::string_view stage, uint64_t done, uint64_t total) {
    double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
    bar.Update(fraction, StrCat(stage, " ", done, "/", total), done == total);
  };
}

Status Backup(const CliContext& context, const BackupArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto catalog, OpenExisting(context));
  ProgressBar bar(::isatty(STDERR_FILENO) != 0);
  catalog::BackupOptions options;
  options.force = args.force;
  options.with_metadata = args.with_metadata;
  options.warehouse = catalog->warehouse_location();
  SKADE_ASSIGN_OR_RAISE(options.store_directory, StoreDirectory(context));
  options.progress = Drawing(bar);
  auto manifest = catalog::BackupStore(catalog->store(), catalog->file_io(),
                                       catalog->location_policy(), args.destination, options);
  bar.Finish();
  if (!manifest) return tl::unexpected(manifest.error());
  size_t copies = 0;
  for (const auto& table : manifest->tables) copies += table.metadata_copy.empty() ? 0 : 1;
  std::cout << "backed up " << catalog->warehouse_location() << " at commit "
            << manifest->commit_seq << " (" << manifest->tables.size() << " tables, "
            << manifest->namespaces.size() << " namespaces";
  if (args.with_metadata) std::cout << ", " << copies << " metadata files copied";
  std::cout << ") into " << args.destination << "\n";
  return OkStatus();
}

void PrintMissing(std::string_view what,
                  const std::vector<catalog::BackupManifest::Table>& tables) {
  for (const auto& table : tables) {
    std::cerr << "  " << what << ": " << spec::QuotedIdentifier(table.identifier) << " "
              << table.metadata_location << "\n";
  }
}

// `warehouse_given`: --warehouse or $SKADE_WAREHOUSE named one; else the
// backup's own warehouse is the one restored.
Status Restore(const CliContext& given_context, const BackupArgs& args, bool warehouse_given) {
  SKADE_ASSIGN_OR_RAISE(auto backed_up, catalog::ReadBackupManifest(args.backup));
  CliContext context = given_context;
  if (!warehouse_given) context.warehouse = backed_up.warehouse;
  SKADE_ASSIGN_OR_RAISE(std::string target, StoreDirectory(context));
  ProgressBar bar(::isatty(STDERR_FILENO) != 0);
  catalog::RestoreOptions options;
  options.force = args.force;
  options.progress = Drawing(bar);
  auto restored = catalog::RestoreStore(args.backup, target, options);
  bar.Finish();
  if (!restored) return tl::unexpected(restored.error());
  const auto& manifest = restored->manifest;
  std::cout << "restored the store of " << manifest.warehouse << " at commit "
            << manifest.commit_seq << " (backed up "
            << FormatTimestampMillis(manifest.created_at_ms) << ", " << manifest.tables.size()
            << " tables) into " << target << "\n";
  if (!restored->replaced.empty()) {
    std::cout << "the store that was there is now " << restored->replaced << "\n";
  }

  SKADE_ASSIGN_OR_RAISE(auto catalog,
                        context.OpenCatalog(/*long_running=*/false, /*recover_journal=*/false));
  ProgressBar check_bar(::isatty(STDERR_FILENO) != 0);
  auto check =
      catalog::CheckBackupMetadata(args.backup, manifest, catalog->store(), catalog->file_io(),
                                   catalog->location_policy(), Drawing(check_bar));
  check_bar.Finish();
  if (!check) return tl::unexpected(check.error());
  std::cout << "metadata files: " << check->checked << " checked in "
            << catalog->warehouse_location() << ", " << check->missing_current.size()
            << " current missing (" << check->rewritten_current.size()
            << " put back from the backup, " << check->journaled_current.size()
            << " in the store's journal, rewritten when the catalog opens), "
            << check->missing_history.size() << " older missing\n";
  PrintMissing("put back", check->rewritten_current);
  PrintMissing("journaled", check->journaled_current);
  size_t lost = check->missing_current.size() - check->rewritten_current.size() -
                check->journaled_current.size();
  if (lost > 0) {
    std::cerr << "skade: " << lost
              << " tables point at metadata files the warehouse lacks; `skade doctor` lists "
                 "them, `--repair --drop-dangling` drops their pointers\n";
  }
  for (const auto& file : check->unrebuildable) {
    std::cerr << "  cannot be rebuilt: " << file.location << " (" << file.reason << ")\n";
  }
  if (!check->unrebuildable.empty()) {
    std::cerr << "skade: " << check->unrebuildable.size()
              << " journaled files cannot be rebuilt and the catalog does not open with them; "
                 "`skade doctor --repair --drop-dangling` releases them (and drops the pointer "
                 "of a table whose current file one was)\n";
  }
  for (const auto& location : check->not_allowed) {
    std::cerr << "  not checked (outside the allowed locations): " << location << "\n";
  }
  if (!check->not_allowed.empty()) {
    // Restored into a warehouse that is not the backed-up one: the tables
    // point outside it, and the catalog refuses to read them.
    return InvalidArgument(
        check->not_allowed.size(), " metadata files are outside ", catalog->warehouse_location(),
        "'s allowed locations, and their tables "
        "cannot be read: the backup is of ",
        manifest.warehouse, "; restore it there, or allow that root (--allow-location)");
  }
  return OkStatus();
}

void PrintReport(const catalog::DoctorReport& report) {
  for (const auto& problem : report.problems) {
    std::cout << (problem.table ? problem.table->ToString() : std::string("(journal)")) << ": "
              << catalog::DoctorProblemName(problem.kind) << ": " << problem.location;
    if (!problem.detail.empty()) std::cout << " (" << problem.detail << ")";
    switch (problem.repair) {
      case catalog::DoctorRepair::kRewritten:
        std::cout << " [rewritten from the store's journal]";
        break;
      case catalog::DoctorRepair::kDropped:
        std::cout << " [pointer dropped]";
        break;
      case catalog::DoctorRepair::kReleased:
        std::cout << " [journal entry released: it cannot rebuild the file]";
        break;
      case catalog::DoctorRepair::kNone:
        if (problem.journaled) std::cout << " [journaled: --repair rewrites it]";
        break;
    }
    std::cout << "\n";
  }
  std::cout << report.tables << " tables, " << report.files_checked << " files checked, "
            << report.problems.size() << " problems, " << report.unrepaired() << " left\n";
}

// The exit code of checks that could not run.
int CouldNotRun(const Error& error) {
  ReportError(error);
  return 2;
}

// Exit codes: 0 nothing wrong (or all repaired), 1 problems left, 2 the
// checks could not run.
int Doctor(const CliContext& context, const BackupArgs& args) {
  if (args.drop_dangling && !args.repair) {
    return CouldNotRun(Error{ErrorKind::kInvalidArgument, "--drop-dangling needs --repair"});
  }
  auto catalog = OpenExisting(context);
  if (!catalog) return CouldNotRun(catalog.error());
  ProgressBar bar(::isatty(STDERR_FILENO) != 0 && !args.json);
  catalog::DoctorOptions options;
  options.repair = args.repair;
  options.drop_dangling = args.drop_dangling;
  options.all_snapshots = args.all_snapshots;
  options.progress = [&bar](uint64_t done, uint64_t total) {
    bar.Update(total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total),
               StrCat("tables ", done, "/", total), done == total);
  };
  catalog::WarehouseDoctor doctor((*catalog)->store(), (*catalog)->file_io(),
                                  (*catalog)->location_policy());
  auto report = doctor.Run(options);
  bar.Finish();
  if (!report) return CouldNotRun(report.error());
  if (args.json) {
    std::cout << report->ToJson() << "\n";
  } else {
    PrintReport(*report);
  }
  return report->unrepaired() > 0 ? 1 : 0;
}

}  // namespace

void AddBackupCommands(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<BackupArgs>();

  auto* backup = app.add_subcommand(
      "backup",
      "Copy the catalog store consistently (while a server goes on committing) into DEST, "
      "with a manifest of the metadata files it references; data files stay in the warehouse");
  backup->add_option("destination", args->destination, "Backup directory (new or empty)")
      ->required();
  backup->add_flag("--force", args->force,
                   "Replace an earlier skade backup in DEST (never any other directory, nor one "
                   "that holds the warehouse or the store)");
  backup->add_flag("--with-metadata", args->with_metadata,
                   "Also copy every table's current metadata file");
  backup->callback(
      [&context, args] { throw CLI::RuntimeError(Run([&] { return Backup(context, *args); })); });

  auto* restore = app.add_subcommand(
      "restore",
      "Restore a backup's store into --store DIR (else the store inside --warehouse, by default "
      "the backed-up warehouse), which must be new or empty and not in use, and report the "
      "metadata files the warehouse lacks");
  restore->add_option("backup", args->backup, "Backup directory (from skade backup)")->required();
  restore->add_flag("--force", args->force,
                    "Replace a store no process has open (it is moved aside, not deleted)");
  const CLI::Option* warehouse = app.get_option("--warehouse");
  restore->callback([&context, args, warehouse] {
    // An empty variable counts as unset, as everywhere.
    const char* variable = std::getenv("SKADE_WAREHOUSE");
    bool warehouse_given = warehouse->count() > 0 || (variable != nullptr && *variable != '\0');
    throw CLI::RuntimeError(Run([&] { return Restore(context, *args, warehouse_given); }));
  });

  auto* doctor = app.add_subcommand(
      "doctor",
      "Check that every table pointer, metadata file, manifest list and manifest of the "
      "warehouse is there and readable; exit 1 if problems are left. Changes nothing unless "
      "--repair");
  doctor->add_flag("--repair", args->repair,
                   "Rewrite missing or damaged files whose bytes the store's journal holds");
  doctor->add_flag("--drop-dangling", args->drop_dangling,
                   "With --repair: also drop table pointers whose metadata file is gone (not "
                   "those under a root that looks unmounted)");
  doctor->add_flag("--all-snapshots", args->all_snapshots,
                   "Check every snapshot the metadata keeps, not only those of its branches and "
                   "tags");
  doctor->add_flag("--json", args->json, "Print the report as JSON");
  doctor->callback([&context, args] { throw CLI::RuntimeError(Doctor(context, *args)); });
}

}  // namespace skade::cli
