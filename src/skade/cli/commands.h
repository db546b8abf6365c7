// Registration of the CLI's subcommand groups.
#pragma once

#include <CLI/CLI.hpp>

#include "skade/cli/cli_context.h"

namespace skade::cli {

/// `skade ns create|list|describe|drop|set|unset`.
void AddNamespaceCommands(CLI::App& app, const CliContext& context);
/// `skade table create|list|describe|drop|rename|history|at|as-of|register|commit|set|unset`.
void AddTableCommands(CLI::App& app, const CliContext& context);
/// `skade serve`: the Iceberg REST catalog server.
void AddServeCommand(CLI::App& app, const CliContext& context);
/// `skade changes [--follow]` and `skade changes prune`: the change feed.
void AddChangesCommand(CLI::App& app, const CliContext& context);
/// `skade ingest`: Parquet, CSV and JSON-lines files into a table.
void AddIngestCommand(CLI::App& app, const CliContext& context);
/// `skade scan`: a table's rows, or its scan plan.
void AddScanCommand(CLI::App& app, const CliContext& context);
/// `skade backup`, `skade restore`, `skade doctor`.
void AddBackupCommands(CLI::App& app, const CliContext& context);

}  // namespace skade::cli
