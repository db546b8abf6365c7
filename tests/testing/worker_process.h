// Runs a worker program in a child process and collects the commits it
// acknowledged ("ACK <id>" lines on its stdout). Start(args) runs
// tests/catalog/commit_worker, whose path comes from the build
// (SKADE_COMMIT_WORKER); Start(program, args) any other.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace skade::testing {

class WorkerProcess {
 public:
  struct Outcome {
    int exit_code = -1;  // -1 when killed by a signal
    int signal = 0;
    std::vector<int64_t> acks;
    std::string stderr_text;
  };

#ifdef SKADE_COMMIT_WORKER
  static WorkerProcess Start(const std::vector<std::string>& args) {
    return Start(SKADE_COMMIT_WORKER, args);
  }
#endif

  static WorkerProcess Start(const std::string& program, const std::vector<std::string>& args) {
    WorkerProcess worker;
    int out[2];
    int err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) std::abort();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<std::string> argv_storage{program};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_storage) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (posix_spawn(&worker.pid_, program.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
      std::abort();
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err[1]);
    worker.stdout_fd_ = out[0];
    worker.stderr_fd_ = err[0];
    return worker;
  }

  WorkerProcess(WorkerProcess&& other) noexcept
      : pid_(std::exchange(other.pid_, -1)),
        stdout_fd_(std::exchange(other.stdout_fd_, -1)),
        stderr_fd_(std::exchange(other.stderr_fd_, -1)),
        stdout_buffer_(std::move(other.stdout_buffer_)),
        stdout_consumed_(other.stdout_consumed_) {}
  ~WorkerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
  }

  void Kill() { ::kill(pid_, SIGKILL); }

  /// Blocks until the worker prints its next "ACK <id>" line and returns the
  /// id; nullopt once its output ends. Wait() still reports every ack.
  std::optional<int64_t> NextAck() {
    for (;;) {
      size_t newline = stdout_buffer_.find('\n', stdout_consumed_);
      if (newline != std::string::npos) {
        std::istringstream fields(
            stdout_buffer_.substr(stdout_consumed_, newline - stdout_consumed_));
        stdout_consumed_ = newline + 1;
        std::string word;
        long long id;
        if (fields >> word >> id && word == "ACK") return id;
        continue;
      }
      char buf[4096];
      ssize_t n = ::read(stdout_fd_, buf, sizeof(buf));
      if (n <= 0) return std::nullopt;
      stdout_buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  /// Waits for the process to end and returns what it acknowledged.
  Outcome Wait() {
    Outcome outcome;
    std::string out = std::move(stdout_buffer_) + Drain(stdout_fd_);
    outcome.stderr_text = Drain(stderr_fd_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
    std::istringstream lines(out);
    std::string word;
    long long id;
    // Only whole lines count: a line cut by the kill was not acknowledged.
    std::string line;
    while (std::getline(lines, line)) {
      if (lines.eof()) break;
      std::istringstream fields(line);
      if (fields >> word >> id && word == "ACK") outcome.acks.push_back(id);
    }
    return outcome;
  }

 private:
  WorkerProcess() = default;

  static std::string Drain(int& fd) {
    std::string data;
    if (fd < 0) return data;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof(buf))) > 0) data.append(buf, static_cast<size_t>(n));
    ::close(fd);
    fd = -1;
    return data;
  }

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string stdout_buffer_;  // read by NextAck(), handed to Wait()
  size_t stdout_consumed_ = 0;
};

}  // namespace skade::testing
