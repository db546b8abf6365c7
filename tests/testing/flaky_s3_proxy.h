// FlakyS3Proxy: a TCP proxy in front of a real S3 server that answers the
// next N requests itself with an S3 error (503 SlowDown, 500 InternalError)
// and closes their connections, then forwards the rest — to prove that
// skade's requests and Arrow's retry throttling and 5xx answers. It can
// also hold requests until several are in flight at once, to prove that a
// client sends them at once without timing it, and lose answers: forward a
// request and answer the client 500 in place of the server's answer (the
// server acted on it, the client never learns so — a gateway's 5xx, or a
// connection dropped after the server's commit). Forwarded requests get
// `Connection: close`, so every request comes on a connection of its own
// and any can be failed. Thread-safe; one thread per connection.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skade::testing {

class FlakyS3Proxy {
 public:
  explicit FlakyS3Proxy(int target_port) : target_port_(target_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in address = Loopback(0);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    socklen_t length = sizeof(address);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    ::listen(listener_, 64);
    acceptor_ = std::thread([this] { Accept(); });
  }

  ~FlakyS3Proxy() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    std::vector<std::thread> workers;
    {
      // Join outside the lock: a worker that is closing its sockets takes it.
      std::lock_guard lock(mutex_);
      for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
      workers.swap(workers_);
      released_.notify_all();
    }
    for (auto& thread : workers) thread.join();
  }

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  /// The next `count` requests (that open a connection) get `status`.
  void FailNext(int count, int status) {
    status_ = status;
    to_fail_ = count;
  }

  /// The next `count` requests are forwarded, and answered 500.
  void LoseNextAnswers(int count) { to_lose_ = count; }

  /// Answer every request with an If-None-Match header with 501
  /// NotImplemented, as a server without conditional writes does.
  void RejectConditionalWrites() { reject_conditional_ = true; }

  /// Holds every request that arrives from now on until `count` of them are
  /// held at once (or 10 s pass), then forwards them all.
  void HoldUntilConcurrent(int count) {
    std::lock_guard lock(mutex_);
    hold_for_ = count;
  }

  /// The most requests held at once since HoldUntilConcurrent.
  int most_held() const {
    std::lock_guard lock(mutex_);
    return most_held_;
  }

  /// Requests answered with an injected error so far (lost answers too).
  int failures_served() const { return served_; }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    return address;
  }

  void Accept() {
    while (!stopping_) {
      int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      std::lock_guard lock(mutex_);
      open_.push_back(client);
      workers_.emplace_back([this, client] { Serve(client); });
    }
  }

  void Serve(int client) {
    // Read the request head to decide.
    std::string head;
    char buffer[65536];
    while (head.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) return Close(client);
      head.append(buffer, static_cast<size_t>(n));
    }
    bool conditional =
        reject_conditional_ && (head.find("\r\nif-none-match:") != std::string::npos ||
                                head.find("\r\nIf-None-Match:") != std::string::npos);
    if (conditional || to_fail_.fetch_sub(1) > 0) {
      ++served_;
      SendError(client, conditional ? 501 : status_.load());
      return Close(client);
    }
    to_fail_ = 0;
    Hold();
    int server = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in target = Loopback(target_port_);
    if (::connect(server, reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
      ::close(server);
      return Close(client);
    }
    {
      std::lock_guard lock(mutex_);
      open_.push_back(server);
    }
    // One request per connection, so that every request can be failed.
    head.insert(head.find("\r\n"), "\r\nConnection: close");
    ::send(server, head.data(), head.size(), MSG_NOSIGNAL);
    std::thread upstream([client, server] { Pipe(client, server); });
    if (to_lose_.fetch_sub(1) > 0) {
      ++served_;
      Pipe(server, -1);  // the server's answer goes nowhere
      SendError(client, 500);
      ::shutdown(client, SHUT_WR);
    } else {
      to_lose_ = 0;
      Pipe(server, client);
    }
    upstream.join();
    Close(server);
    Close(client);
  }

  void Hold() {
    std::unique_lock lock(mutex_);
    if (hold_for_ == 0) return;
    most_held_ = std::max(most_held_, ++held_);
    if (held_ >= hold_for_) {
      hold_for_ = 0;
      released_.notify_all();
    }
    released_.wait_for(lock, std::chrono::seconds(10),
                       [&] { return hold_for_ == 0 || stopping_.load(); });
    --held_;
  }

  // An S3 error answer with `status`.
  static void SendError(int client, int status) {
    std::string code = status == 501   ? "NotImplemented"
                       : status == 503 ? "SlowDown"
                                       : "InternalError";
    std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code +
                       "</Code><Message>injected</Message></Error>";
    std::string response = "HTTP/1.1 " + std::to_string(status) +
                           " Injected\r\nContent-Type: application/xml\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    ::send(client, response.data(), response.size(), MSG_NOSIGNAL);
  }

  // Copies `from` to `to` (-1: reads and drops) until `from` ends, then
  // ends `to`'s writing side.
  static void Pipe(int from, int to) {
    char buffer[65536];
    for (;;) {
      ssize_t n = ::recv(from, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      if (to >= 0 && ::send(to, buffer, static_cast<size_t>(n), MSG_NOSIGNAL) != n) break;
    }
    if (to >= 0) ::shutdown(to, SHUT_WR);
  }

  void Close(int fd) {
    std::lock_guard lock(mutex_);
    std::erase(open_, fd);
    ::close(fd);
  }

  int target_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> status_{503};
  std::atomic<int> to_fail_{0};
  std::atomic<int> to_lose_{0};
  std::atomic<int> served_{0};
  std::atomic<bool> reject_conditional_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  int hold_for_ = 0;   // guarded by mutex_
  int held_ = 0;       // guarded by mutex_
  int most_held_ = 0;  // guarded by mutex_
  std::vector<int> open_;
  std::vector<std::thread> workers_;
};

}  // namespace skade::testing
