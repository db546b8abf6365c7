#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>
#include <thread>
#include <utility>

#include "skade/cli/commands.h"
#include "skade/io/location.h"
#include "skade/rest/catalog_service.h"
#include "skade/rest/http/http_server.h"
#include "skade/rest/http_metrics.h"
#include "skade/rest/operations_endpoints.h"
#include "skade/rest/readiness_probe.h"
#include "skade/rest/server_metrics.h"
#include "skade/util/strings.h"
#ifdef SKADE_WITH_S3
#include "skade/s3/credential_vendor.h"
#endif

namespace skade::cli {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8181;
  int threads = 0;
  int commit_threads = rest::HttpServerOptions{}.pool_threads;
  int commit_queue = rest::HttpServerOptions{}.pool_queue_limit;
  std::string auth = "none";
  std::vector<std::string> clients;
  std::string clients_file;
  int token_ttl_seconds = 3600;
  int token_max_lifetime_seconds = 24 * 3600;
  int max_tokens = 100'000;
  int max_connections = 1024;
  int request_timeout_seconds = 30;
  int idle_timeout_seconds = 60;
  int shutdown_timeout_seconds = 10;
  std::string idempotency_key_lifetime;  // empty: the default (IdempotencyKeyLifetime)
  std::string vend_credentials = "none";
  int vended_credentials_seconds = 3600;
  std::string vended_role_arn;
  int scan_tasks_per_response = rest::ScanPlanningOptions{}.tasks_per_response;
  int manifest_cache_mb = static_cast<int>(cache::ManifestCacheOptions{}.capacity_bytes >> 20);
  std::string commit_log_retention = "0";
  std::string metrics_auth = "none";
  int shutdown_delay_seconds = 0;
  bool quiet = false;
  std::string log_format = "text";
};

// The environment variable that may list OAuth clients, so that secrets need
// not appear on the command line (where `ps` shows them).
constexpr char kClientsVariable[] = "SKADE_OAUTH_CLIENTS";

// After the drain bound, how long a handler still running (it cannot be
// interrupted) may take before the process exits without it.
constexpr int kShutdownGraceSeconds = 10;

// What clients are told about an object-store warehouse: where it is, and
// (--vend-credentials) the credentials to reach it.
Result<rest::StorageAccess> StorageAccessFor(const CliContext& context, const ServeArgs& args) {
  rest::StorageAccess storage;
  SKADE_ASSIGN_OR_RAISE(io::Location warehouse, io::Location::ParseUserInput(context.warehouse));
  bool on_s3 = warehouse.scheme == "s3" || warehouse.scheme == "s3a";
  if (!on_s3) {
    if (args.vend_credentials != "none") {
      return InvalidArgument("--vend-credentials needs an s3:// warehouse");
    }
    return storage;
  }
#ifdef SKADE_WITH_S3
  SKADE_ASSIGN_OR_RAISE(auto properties, context.FileIOProperties());
  SKADE_ASSIGN_OR_RAISE(storage.client_properties, s3::ClientProperties(properties));
  s3::VendingOptions vending;
  SKADE_ASSIGN_OR_RAISE(vending.mode, s3::ParseVendingMode(args.vend_credentials));
  vending.duration_seconds = args.vended_credentials_seconds;
  vending.role_arn = args.vended_role_arn;
  SKADE_ASSIGN_OR_RAISE(storage.vendor, s3::MakeCredentialVendor(properties, vending));
#endif
  return storage;
}

// Whether `host` (--host) takes connections from this machine only.
bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host.starts_with("127.") || host == "::1" || host == "[::1]";
}

// The clients from --oauth-client, --oauth-client-file and SKADE_OAUTH_CLIENTS.
Result<std::vector<rest::OAuthClient>> CollectClients(const ServeArgs& args) {
  std::vector<rest::OAuthClient> clients;
  for (const auto& client : args.clients) {
    SKADE_ASSIGN_OR_RAISE(auto parsed, rest::ParseOAuthClient(client));
    clients.push_back(std::move(parsed));
  }
  if (!args.clients_file.empty()) {
    std::ifstream file(args.clients_file);
    if (!file) return IoError("cannot read --oauth-client-file ", args.clients_file);
    struct stat info {};
    if (::stat(args.clients_file.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO))) {
      std::cerr << "skade serve: warning: " << args.clients_file
                << " holds secrets but others may read it (chmod 600)\n";
    }
    std::stringstream text;
    text << file.rdbuf();
    auto parsed = rest::ParseOAuthClientList(text.str(), false);
    if (!parsed) return InvalidArgument(args.clients_file, ": ", parsed.error().message);
    clients.insert(clients.end(), parsed->begin(), parsed->end());
  }
  if (const char* listed = std::getenv(kClientsVariable); listed && *listed) {
    auto parsed = rest::ParseOAuthClientList(listed, true);
    if (!parsed) return InvalidArgument(kClientsVariable, ": ", parsed.error().message);
    clients.insert(clients.end(), parsed->begin(), parsed->end());
  }
  return clients;
}

// Blocks SIGINT/SIGTERM in every thread (call before starting any) and waits
// for one; the server then shuts down gracefully.
int WaitForTerminationSignal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int received = 0;
  sigwait(&signals, &received);
  return received;
}

// Waits up to `seconds` for another SIGINT/SIGTERM (still blocked); true if
// one came.
bool TerminationSignalWithin(int seconds) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (true) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return false;
    auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec timeout{static_cast<time_t>(nanos / 1'000'000'000),
                     static_cast<long>(nanos % 1'000'000'000)};
    if (sigtimedwait(&signals, nullptr, &timeout) > 0) return true;
    if (errno != EINTR && errno != EAGAIN) return false;
  }
}

Status Serve(const CliContext& context, const ServeArgs& args) {
  if (args.port < 0 || args.port > 65535) return InvalidArgument("Invalid --port ", args.port);
  const std::pair<const char*, int> limits[] = {
      {"--token-ttl", args.token_ttl_seconds},
      {"--token-max-lifetime", args.token_max_lifetime_seconds},
      {"--max-tokens", args.max_tokens},
      {"--max-connections", args.max_connections},
      {"--commit-threads", args.commit_threads},
      {"--request-timeout", args.request_timeout_seconds},
      {"--idle-timeout", args.idle_timeout_seconds},
      {"--shutdown-timeout", args.shutdown_timeout_seconds},
      {"--scan-tasks-per-response", args.scan_tasks_per_response}};
  for (const auto& [flag, value] : limits) {
    if (value <= 0) return InvalidArgument(flag, " must be positive (got ", value, ")");
  }
  if (args.manifest_cache_mb < 0) {
    return InvalidArgument("--manifest-cache-mb must not be negative (got ", args.manifest_cache_mb,
                           ")");
  }
  if (args.commit_queue < 0) {
    return InvalidArgument("--commit-queue must not be negative (got ", args.commit_queue, ")");
  }
  if (args.shutdown_delay_seconds < 0) {
    return InvalidArgument("--shutdown-delay must not be negative (got ",
                           args.shutdown_delay_seconds, ")");
  }
  SKADE_ASSIGN_OR_RAISE(rest::MetricsAuth metrics_auth, rest::ParseMetricsAuth(args.metrics_auth));
  rest::AuthOptions auth;
  if (args.auth == "token") {
    auth.mode = rest::AuthOptions::Mode::kToken;
    SKADE_ASSIGN_OR_RAISE(auth.clients, CollectClients(args));
    if (auth.clients.empty()) {
      return InvalidArgument("--auth token needs at least one client: --oauth-client ID:SECRET, ",
                             "--oauth-client-file PATH or ", kClientsVariable);
    }
    auth.token_ttl_seconds = args.token_ttl_seconds;
    auth.max_token_lifetime_seconds = args.token_max_lifetime_seconds;
    auth.max_tokens = static_cast<size_t>(args.max_tokens);
  } else if (args.auth != "none") {
    return InvalidArgument("Unknown --auth '", args.auth, "' (expected none or token)");
  }
  // Without --auth there are no tokens: /metrics would be open whatever the
  // banner said.
  if (metrics_auth == rest::MetricsAuth::kToken && auth.mode != rest::AuthOptions::Mode::kToken) {
    return InvalidArgument(
        "--metrics-auth token needs --auth token (there are no tokens to check "
        "without it)");
  }
  // Static vending hands out skade's own keys: without authentication, to
  // whoever can connect.
  if (args.vend_credentials == "static" && auth.mode == rest::AuthOptions::Mode::kNone &&
      !IsLoopbackHost(args.host)) {
    return InvalidArgument("--vend-credentials static with --auth none would hand skade's own S3 ",
                           "keys to anyone who can reach ", args.host,
                           ": use --auth token, --vend-credentials sts, or a loopback --host");
  }

  rest::IdempotencyOptions idempotency;
  if (args.idempotency_key_lifetime.empty()) {
    // The spec: keys SHOULD NOT expire before the advertised token lifetime
    // (a client retries with its token until it expires).
    idempotency.lifetime = std::chrono::minutes(30);
    if (auth.mode == rest::AuthOptions::Mode::kToken) {
      // As a lifetime given in seconds, under the same bound.
      auto token_lifetime = rest::ParseIsoDuration(std::to_string(auth.token_ttl_seconds));
      if (!token_lifetime) {
        return InvalidArgument("--token-ttl ", auth.token_ttl_seconds,
                               " is longer than an Idempotency-Key may live, which the spec "
                               "wants to cover a token's lifetime: ",
                               token_lifetime.error().message,
                               " (or give --idempotency-key-lifetime)");
      }
      idempotency.lifetime = std::max(idempotency.lifetime, *token_lifetime);
    }
  } else {
    auto lifetime = rest::ParseIsoDuration(args.idempotency_key_lifetime);
    if (!lifetime) {
      return InvalidArgument("--idempotency-key-lifetime: ", lifetime.error().message);
    }
    idempotency.lifetime = *lifetime;
  }
  rest::HttpLogFormat log_format = rest::HttpLogFormat::kText;
  if (args.log_format == "json") {
    log_format = rest::HttpLogFormat::kJson;
  } else if (args.log_format != "text") {
    return InvalidArgument("Unknown --log-format '", args.log_format, "' (expected text or json)");
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto retention = rest::ParseIsoDuration(args.commit_log_retention);
  if (!retention) {
    return InvalidArgument("--commit-log-retention: ", retention.error().message);
  }
  // One manifest cache for the process: every plan of every request and the
  // catalog's rebases of appends share it.
  cache::ManifestCacheOptions manifest_cache;
  manifest_cache.capacity_bytes = static_cast<size_t>(args.manifest_cache_mb) << 20;
  SKADE_ASSIGN_OR_RAISE(
      auto catalog, context.OpenCatalog(
                        /*long_running=*/true, /*recover_journal=*/true,
                        std::chrono::duration_cast<std::chrono::milliseconds>(*retention).count(),
                        std::make_shared<cache::ManifestCache>(manifest_cache)));
  SKADE_ASSIGN_OR_RAISE(auto storage, StorageAccessFor(context, args));
  const bool vending = static_cast<bool>(storage.vendor);
  rest::ScanPlanningOptions scan_planning;
  scan_planning.io = catalog->file_io_ptr();
  // The catalog's own policy, kept alive by the catalog.
  scan_planning.file_policy =
      std::shared_ptr<const catalog::LocationPolicy>(catalog, &catalog->location_policy());
  scan_planning.manifest_cache = catalog->manifest_cache_ptr();
  scan_planning.tasks_per_response = static_cast<size_t>(args.scan_tasks_per_response);
  // Health and metrics (operations_endpoints.h): the registry reads the
  // catalog, its caches and (once started) the server at each scrape.
  auto registry = std::make_shared<metrics::Registry>();
  SKADE_RETURN_NOT_OK(
      rest::RegisterCatalogMetrics(*registry, *catalog, scan_planning.manifest_cache.get()));
  SKADE_ASSIGN_OR_RAISE(auto http_metrics, rest::HttpMetrics::Make(*registry));
  // A local warehouse root exists from the start (tables' directories are
  // otherwise made on first use), so readiness can tell a fresh warehouse
  // from a lost one (an unmounted volume); no-op on an object store.
  SKADE_RETURN_NOT_OK(catalog->file_io().CreateDirectories(catalog->warehouse_location()));
  SKADE_ASSIGN_OR_RAISE(std::shared_ptr<rest::ReadinessProbe> readiness,
                        rest::ReadinessProbe::Start(rest::CatalogReadinessChecks(catalog)));
  SKADE_RETURN_NOT_OK(rest::RegisterReadinessMetrics(*registry, *readiness));
  auto operations = std::make_shared<rest::OperationsEndpoints>(registry, readiness, metrics_auth);
  auto service = std::make_shared<rest::CatalogService>(
      catalog, std::make_shared<rest::Authenticator>(std::move(auth)), std::move(idempotency),
      std::move(storage), std::move(scan_planning), operations);
  rest::HttpServerOptions options;
  options.host = args.host;
  options.port = static_cast<uint16_t>(args.port);
  options.threads = args.threads;
  // Writes wait on files, syncs and group commit, a load of an uncached
  // table on the object store: on the pool, never on the I/O threads that
  // answer reads (and /health/live).
  options.may_block = [service](const rest::HttpRequest& request) {
    return service->MayBlock(request);
  };
  // A request without valid credentials is refused before its body is read.
  options.refuse_before_body = [service](const rest::HttpRequest& request) {
    return service->RefuseBeforeBody(request);
  };
  options.pool_threads = args.commit_threads;
  options.pool_queue_limit = args.commit_queue;
  options.log_requests = !args.quiet;
  options.log_format = log_format;
  options.max_connections = args.max_connections;
  // One bound for the client's side of an exchange: receiving its request and
  // sending it the response. The header keeps its shorter bound.
  const auto millis = [](int seconds) {
    return static_cast<int>(std::min<int64_t>(int64_t{seconds} * 1000, INT32_MAX));
  };
  options.request_timeout_ms = millis(args.request_timeout_seconds);
  options.body_timeout_ms = options.request_timeout_ms;
  options.header_timeout_ms = std::min(options.header_timeout_ms, options.request_timeout_ms);
  options.idle_timeout_ms = millis(args.idle_timeout_seconds);
  options.shutdown_timeout_ms = millis(args.shutdown_timeout_seconds);
  options.on_request = [metrics = http_metrics.get()](const rest::RequestRecord& record) {
    metrics->Record(record);
  };
  SKADE_ASSIGN_OR_RAISE(auto server,
                        rest::HttpServer::Start(options, [service](const rest::HttpRequest& r) {
                          return service->Handle(r);
                        }));
  // The last scrape is answered before `server` is destroyed (first, as
  // declared last).
  SKADE_RETURN_NOT_OK(rest::RegisterServerMetrics(*registry, *server));
  std::string uri = StrCat("http://", args.host, ":", server->port());
  std::cerr << "skade serve: Iceberg REST catalog on " << uri << "  (warehouse "
            << catalog->warehouse_location() << ", durability " << context.durability << ", auth "
            << args.auth << (vending ? ", vending " + args.vend_credentials + " credentials" : "")
            << ")\n";
  std::cerr << "skade serve: health " << uri << "/health/ready, metrics " << uri << "/metrics"
            << (metrics_auth == rest::MetricsAuth::kToken ? " (bearer token)" : "") << "\n";
  std::cout << "listening " << uri << std::endl;
  int signal = WaitForTerminationSignal();
  // Load balancers stop sending new requests once readiness fails; the
  // delay gives them time to notice before the drain closes connections.
  readiness->BeginShutdown();
  if (args.shutdown_delay_seconds > 0) {
    std::cerr << "skade serve: received " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
              << ", not ready; serving " << args.shutdown_delay_seconds
              << " s more before draining (a second signal skips the wait)\n";
    TerminationSignalWithin(args.shutdown_delay_seconds);
  }
  std::cerr << "skade serve: received " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
            << ", finishing in-flight requests (at most " << args.shutdown_timeout_seconds
            << " s)\n";
  // Shutdown() waits for a handler that is running; one stuck (say, on a hung
  // disk) must not keep the process alive. The store survives an exit at any
  // point, as it survives a crash.
  std::promise<void> stopped;
  std::thread watchdog([done = stopped.get_future(), &args]() mutable {
    if (done.wait_for(std::chrono::seconds(int64_t{args.shutdown_timeout_seconds} +
                                           kShutdownGraceSeconds)) == std::future_status::ready) {
      return;
    }
    std::cerr << "skade serve: requests still running after the shutdown timeout; exiting\n";
    std::_Exit(3);
  });
  server->Shutdown();
  stopped.set_value();
  watchdog.join();
  std::cerr << "skade serve: stopped\n";
  return OkStatus();
}

}  // namespace

void AddServeCommand(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<ServeArgs>();
  auto* serve = app.add_subcommand("serve", "Run the Iceberg REST catalog server");
  serve->add_option("--host", args->host, "Address to bind (default 127.0.0.1)");
  serve->add_option("--port", args->port, "Port (default 8181; 0 picks a free one)");
  serve->add_option("--threads", args->threads,
                    "I/O threads: all socket I/O, and reads (default: one per core)");
  serve->add_option("--commit-threads", args->commit_threads,
                    StrCat("Threads that run writes (commits, creates, drops), apart from the "
                           "I/O threads (default ",
                           args->commit_threads, ")"));
  serve->add_option("--commit-queue", args->commit_queue,
                    StrCat("Writes waiting for a commit thread, at most; more get 503 with "
                           "Retry-After (default ",
                           args->commit_queue, ")"));
  serve->add_option("--auth", args->auth, "none | token (OAuth2 client credentials)");
  serve->add_option("--oauth-client", args->clients,
                    "Client allowed to get tokens: ID:SECRET or ID:SECRET:ro (repeatable; "
                    "visible in ps, prefer --oauth-client-file or SKADE_OAUTH_CLIENTS)");
  serve->add_option("--oauth-client-file", args->clients_file,
                    "File of clients, one ID:SECRET or ID:SECRET:ro per line ('#' comments)");
  serve->add_option("--token-ttl", args->token_ttl_seconds,
                    "Token lifetime in seconds (default 3600)");
  serve->add_option("--token-max-lifetime", args->token_max_lifetime_seconds,
                    "Seconds after a client-credentials grant beyond which refreshing no longer "
                    "extends a token (default 86400)");
  serve->add_option("--max-tokens", args->max_tokens,
                    "Live tokens kept; when full the one expiring first is dropped "
                    "(default 100000)");
  serve->add_option("--max-connections", args->max_connections,
                    "Open connections at most; more get 503 (default 1024, and always below "
                    "the file descriptor limit)");
  serve->add_option("--request-timeout", args->request_timeout_seconds,
                    "Seconds to receive a whole request, and to send one response (default 30)");
  serve->add_option("--idle-timeout", args->idle_timeout_seconds,
                    "Seconds an idle keep-alive connection is kept (default 60)");
  serve->add_option("--shutdown-timeout", args->shutdown_timeout_seconds,
                    "On SIGTERM/SIGINT, seconds to let requests under way finish (default 10)");
  serve->add_option("--idempotency-key-lifetime", args->idempotency_key_lifetime,
                    "How long the answer to a request with an Idempotency-Key is kept and "
                    "replayed to its retries: ISO-8601 (PT30M, PT24H) or seconds; advertised in "
                    "/v1/config; 0 turns Idempotency-Key off (default PT30M, or --token-ttl "
                    "under --auth token when that is longer)");
  serve->add_option("--vend-credentials", args->vend_credentials,
                    "s3:// warehouse: credentials for clients that ask (X-Iceberg-Access-"
                    "Delegation: vended-credentials): none (default), static (skade's own) or sts "
                    "(temporary, limited to the table's location, from the S3 server's STS)");
  serve->add_option("--vended-credentials-lifetime", args->vended_credentials_seconds,
                    "--vend-credentials sts: seconds the credentials last (900-43200, default "
                    "3600)");
  serve->add_option("--vended-role-arn", args->vended_role_arn,
                    "--vend-credentials sts on AWS: the role to assume");
  serve->add_option("--scan-tasks-per-response", args->scan_tasks_per_response,
                    StrCat("Server-side scan planning: a plan of more tasks is held and paged out "
                           "as plan tasks of this many (default ",
                           args->scan_tasks_per_response, ")"));
  serve->add_option("--manifest-cache-mb", args->manifest_cache_mb,
                    StrCat("Parsed manifests and manifest lists kept for scan planning, in MiB; "
                           "0 keeps none (default ",
                           args->manifest_cache_mb, ")"));
  serve->add_option("--commit-log-retention", args->commit_log_retention,
                    "Prune commits older than this from the commit log (the change feed and "
                    "time travel by time; each table keeps its last commit and snapshot ids "
                    "keep resolving): ISO-8601 (P30D) or seconds; 0 keeps all (default 0)");
  serve->add_option("--metrics-auth", args->metrics_auth,
                    "Who may read GET /metrics: none (anyone, the default) or token (a valid "
                    "bearer token, as for /v1); /health/* is always public");
  serve->add_option("--shutdown-delay", args->shutdown_delay_seconds,
                    "On SIGTERM/SIGINT, seconds to keep serving with /health/ready answering 503 "
                    "before draining, so load balancers stop routing here first (default 0)");
  serve->add_flag("--quiet,-q", args->quiet, "Do not log one line per request");
  serve->add_option("--log-format", args->log_format,
                    "text (default) | json: one JSON object per log line, for log collectors");
  serve->callback(
      [&context, args] { throw CLI::RuntimeError(Run([&] { return Serve(context, *args); })); });
}

}  // namespace skade::cli
