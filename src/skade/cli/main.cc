// `skade`: the command-line front end of the embedded catalog.
#include <cstdlib>

#include "skade/cli/commands.h"

int main(int argc, char** argv) {
  skade::cli::CliContext context;
  const char* env_warehouse = std::getenv("SKADE_WAREHOUSE");
  context.warehouse = env_warehouse != nullptr ? env_warehouse : "./warehouse";

  CLI::App app{"skade: a fast Apache Iceberg catalog and ingest engine"};
  app.fallthrough();
  app.require_subcommand(1);
  app.add_option("--warehouse,-w", context.warehouse,
                 "Warehouse directory (default $SKADE_WAREHOUSE or ./warehouse)");
  app.add_option("--durability", context.durability, "immediate | eventual | none");
  skade::cli::AddNamespaceCommands(app, context);
  skade::cli::AddTableCommands(app, context);
  skade::cli::AddServeCommand(app, context);
#ifdef SKADE_WITH_INGEST
  skade::cli::AddIngestCommand(app, context);
#endif
  CLI11_PARSE(app, argc, argv);
  return 0;
}
