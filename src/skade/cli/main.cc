// `skade`: the command-line front end of the embedded catalog.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "skade/cli/commands.h"
#include "skade/cli/config_sources.h"
#ifdef SKADE_WITH_INGEST
#include "skade/data/arrow_memory_pool.h"
#endif
#ifdef SKADE_WITH_S3
#include "skade/s3/s3_file_io.h"
#endif

namespace {

// A standard descriptor the caller closed (`skade … <&-`) gets /dev/null,
// so no file opened later — the store, a signalfd — takes its number and
// is read or written as stdin, stdout or stderr. (In order: the lowest free
// number is the one opened.)
void OpenClosedStandardDescriptors() {
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      (void)::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  OpenClosedStandardDescriptors();
#ifdef SKADE_WITH_INGEST
  skade::data::PreferJemallocArrowPool();
#endif
#ifdef SKADE_WITH_S3
  // Runs when main returns, after every command's catalog (and FileIO) is gone.
  struct S3Finalizer {
    ~S3Finalizer() { skade::s3::FinalizeS3(); }
  } s3_finalizer;
#endif
  skade::cli::CliContext context;
  context.warehouse = "./warehouse";
#ifdef SKADE_WITH_S3
  skade::s3::RegisterS3FileIO(skade::io::FileIORegistry::Default());
#endif

  CLI::App app{"skade: a fast Apache Iceberg catalog and ingest engine"};
  app.fallthrough();
  app.require_subcommand(1);
  app.add_option("--warehouse,-w", context.warehouse,
                 "Warehouse: a directory or s3://bucket/prefix (default ./warehouse)");
  app.add_option("--store", context.store,
                 "Local directory of the catalog store (default: inside the warehouse; required "
                 "for an s3:// warehouse)");
  app.add_option("--s3-endpoint", context.s3_endpoint,
                 "S3-compatible server, http(s)://host:port (default: AWS)");
  app.add_option("--s3-region", context.s3_region,
                 "S3 region (default $AWS_REGION, else us-east-1)");
  app.add_flag("--s3-path-style-access", context.s3_path_style,
               "Address buckets as http://host/bucket (the default with --s3-endpoint)");
  app.add_option("--io", context.io_pairs,
                 "A FileIO property KEY=VALUE, e.g. s3.multipart.parts-in-flight=8 (repeatable; "
                 "give credentials as AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, not here)");
  app.add_option("--durability", context.durability, "immediate | eventual | none");
  app.add_option("--allow-location", context.allowed_locations,
                 "Also allow table locations under this root (repeatable; * = anywhere)");
  app.add_flag("!--no-group-commit", context.group_commit,
               "Commit every table change in its own store transaction (for benchmarks)");
  skade::cli::AddNamespaceCommands(app, context);
  skade::cli::AddTableCommands(app, context);
  skade::cli::AddServeCommand(app, context);
  skade::cli::AddChangesCommand(app, context);
  skade::cli::AddBackupCommands(app, context);
#ifdef SKADE_WITH_INGEST
  skade::cli::AddIngestCommand(app, context);
  skade::cli::AddScanCommand(app, context);
#endif
  // Last: --config and SKADE_* cover every option registered above.
  if (auto installed = skade::cli::InstallConfigSources(app); !installed) {
    return skade::cli::ReportError(installed.error());
  }
  CLI11_PARSE(app, argc, argv);
  return 0;
}
