#include <signal.h>

#include <iostream>
#include <thread>

#include "skade/cli/commands.h"
#include "skade/rest/catalog_service.h"
#include "skade/rest/http/http_server.h"
#include "skade/util/strings.h"

namespace skade::cli {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8181;
  int threads = 0;
  std::string auth = "none";
  std::vector<std::string> clients;
  int token_ttl_seconds = 3600;
  bool quiet = false;
};

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

Status Serve(const CliContext& context, const ServeArgs& args) {
  if (args.port < 0 || args.port > 65535) return InvalidArgument("Invalid --port ", args.port);
  rest::AuthOptions auth;
  if (args.auth == "token") {
    auth.mode = rest::AuthOptions::Mode::kToken;
    if (args.clients.empty()) {
      return InvalidArgument("--auth token needs at least one --oauth-client ID:SECRET");
    }
    for (const auto& client : args.clients) {
      SKADE_ASSIGN_OR_RAISE(auto parsed, rest::ParseOAuthClient(client));
      auth.clients.push_back(std::move(parsed));
    }
    auth.token_ttl_seconds = args.token_ttl_seconds;
  } else if (args.auth != "none") {
    return InvalidArgument("Unknown --auth '", args.auth, "' (expected none or token)");
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  auto service = std::make_shared<rest::CatalogService>(
      catalog, std::make_shared<rest::Authenticator>(std::move(auth)));
  rest::HttpServerOptions options;
  options.host = args.host;
  options.port = static_cast<uint16_t>(args.port);
  options.threads = args.threads;
  options.log_requests = !args.quiet;
  SKADE_ASSIGN_OR_RAISE(auto server,
                        rest::HttpServer::Start(options, [service](const rest::HttpRequest& r) {
                          return service->Handle(r);
                        }));
  std::string uri = StrCat("http://", args.host, ":", server->port());
  std::cerr << "skade serve: Iceberg REST catalog on " << uri << "  (warehouse "
            << catalog->warehouse_location() << ", durability " << context.durability << ", auth "
            << args.auth << ")\n";
  std::cout << "listening " << uri << std::endl;
  int signal = WaitForTerminationSignal();
  std::cerr << "skade serve: received " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
            << ", finishing in-flight requests\n";
  server->Shutdown();
  std::cerr << "skade serve: stopped\n";
  return OkStatus();
}

}  // namespace

void AddServeCommand(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<ServeArgs>();
  auto* serve = app.add_subcommand("serve", "Run the Iceberg REST catalog server");
  serve->add_option("--host", args->host, "Address to bind (default 127.0.0.1)");
  serve->add_option("--port", args->port, "Port (default 8181; 0 picks a free one)");
  serve->add_option("--threads", args->threads, "I/O threads (default: one per core)");
  serve->add_option("--auth", args->auth, "none | token (OAuth2 client credentials)");
  serve->add_option("--oauth-client", args->clients,
                    "Client allowed to get tokens: ID:SECRET or ID:SECRET:ro (repeatable)");
  serve->add_option("--token-ttl", args->token_ttl_seconds, "Token lifetime in seconds");
  serve->add_flag("--quiet,-q", args->quiet, "Do not log one line per request");
  serve->callback(
      [&context, args] { throw CLI::RuntimeError(Run([&] { return Serve(context, *args); })); });
}

}  // namespace skade::cli
