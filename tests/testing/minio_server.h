// MinioServer: a real MinIO server (scripts/minio.sh installs it into
// .deps/bin; the build passes its path as SKADE_MINIO) on a free loopback
// port with its data in a temporary directory, for tests of the S3 FileIO
// against a real S3 implementation. Start() fails the calling test when the
// binary is missing — S3 tests must never pass without a server.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "skade/s3/s3_client.h"
#include "skade/s3/s3_config.h"
#include "testing/temp_dir.h"

namespace skade::testing {

class MinioServer {
 public:
  static constexpr char kAccessKey[] = "skade-test";

  /// This server's root secret: its own, so that another server that took
  /// its port (another test's MinIO, started meanwhile) refuses its requests
  /// instead of passing for it.
  const std::string& secret_key() const { return secret_key_; }

  /// Starts the server and waits until it answers; empty on failure, with
  /// the reason in `error`.
  static std::unique_ptr<MinioServer> Start(std::string* error) {
    std::string binary = SKADE_MINIO;
    if (!std::filesystem::exists(binary)) {
      *error = binary + " is missing: run scripts/minio.sh install (make setup does)";
      return nullptr;
    }
    // The ports are free when chosen but not held: another process may bind
    // one before MinIO does, and MinIO then exits. It starts again on others.
    for (int attempt = 1;; ++attempt) {
      auto server = std::unique_ptr<MinioServer>(new MinioServer());
      auto [port, console] = FreePorts();
      server->port_ = port;
      bool exited = false;
      if (server->Launch(binary, console, error, &exited)) return server;
      if (!exited || attempt == 3) return nullptr;
    }
  }

  ~MinioServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  /// FileIO properties that reach this server with its root credentials.
  io::FileIOProperties Properties() const {
    return {{"s3.endpoint", endpoint()},
            {"s3.access-key-id", kAccessKey},
            {"s3.secret-access-key", secret_key_},
            {"s3.region", "us-east-1"}};
  }

  /// A signed client for requests the FileIO does not make (buckets,
  /// multipart listings).
  std::unique_ptr<s3::S3Client> Client() const {
    auto config = s3::S3Config::FromProperties(Properties());
    s3::AwsCredentials credentials{kAccessKey, secret_key_, ""};
    config->max_attempts = 1;
    return std::make_unique<s3::S3Client>(
        *config, [credentials]() -> Result<s3::AwsCredentials> { return credentials; });
  }

  Status CreateBucket(const std::string& bucket) const {
    auto created = Client()->Request("PUT", bucket, "", "", {}, "");
    if (!created) return tl::unexpected(created.error());
    return OkStatus();
  }

 private:
  MinioServer() = default;

  // Starts MinIO on port_ and waits until it answers. False with the reason
  // in `error`; `*exited` when MinIO ended by itself (a port was taken).
  bool Launch(const std::string& binary, int console, std::string* error, bool* exited) {
    std::string address = "127.0.0.1:" + std::to_string(port_);
    std::string console_address = "127.0.0.1:" + std::to_string(console);
    std::string data = dir_.Sub("data");
    std::string log = dir_.Sub("minio.log");
    std::vector<std::string> env_strings = {std::string("MINIO_ROOT_USER=") + kAccessKey,
                                            "MINIO_ROOT_PASSWORD=" + secret_key_,
                                            "MINIO_UPDATE=off",
                                            "MINIO_BROWSER=off",
                                            "HOME=" + dir_.path(),
                                            "PATH=/usr/bin:/bin"};
    std::vector<char*> env;
    for (auto& item : env_strings) env.push_back(item.data());
    env.push_back(nullptr);
    std::vector<std::string> args = {binary,          "server", data,
                                     "--address",     address,  "--console-address",
                                     console_address, "--quiet"};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    // fork + exec rather than posix_spawn, for PR_SET_PDEATHSIG: a test
    // killed on a timeout takes its server with it instead of leaving it
    // running. The signal follows the thread that forks, so start the server
    // from one that outlives it (S3Environment: the main thread). The child
    // calls only async-signal-safe functions.
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(127);
      ::execve(binary.c_str(), argv.data(), env.data());
      ::_exit(127);
    }
    if (pid_ < 0) {
      *error = "cannot start " + binary;
      return false;
    }
    auto client = Client();
    for (int i = 0; i < 600; ++i) {
      // Checked first: another server on a port MinIO could not take must
      // not pass for this one.
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        *exited = true;
        std::ifstream said(log);
        std::string text((std::istreambuf_iterator<char>(said)), {});
        *error = "MinIO exited at start: " + text.substr(0, 2000);
        return false;
      }
      if (client->Request("GET", "", "", "", {}, "")) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    *error = "MinIO did not answer within 30 s; see " + log;
    return false;
  }

  // Two distinct free loopback ports (both held until both are chosen).
  static std::pair<int, int> FreePorts() {
    int fds[2];
    int ports[2];
    for (int i = 0; i < 2; ++i) {
      fds[i] = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ::bind(fds[i], reinterpret_cast<sockaddr*>(&address), sizeof(address));
      socklen_t length = sizeof(address);
      ::getsockname(fds[i], reinterpret_cast<sockaddr*>(&address), &length);
      ports[i] = ntohs(address.sin_port);
    }
    ::close(fds[0]);
    ::close(fds[1]);
    return {ports[0], ports[1]};
  }

  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string secret_key_ = "skade-test-secret-" + std::to_string(::getpid()) + "-" +
                            std::to_string(std::random_device()());
};

}  // namespace skade::testing
