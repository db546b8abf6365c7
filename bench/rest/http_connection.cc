#include "rest/http_connection.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace skade::bench {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

struct HttpConnection::Impl {
  boost::asio::io_context io;
  tcp::socket socket{io};
  tcp::endpoint endpoint;
  std::string host_header;
  beast::flat_buffer buffer;
  bool connected = false;

  // Beast reads at most the buffer's free capacity (and at least 512 bytes)
  // per call: without room, a 3 MB response takes 6,000 recv calls and the
  // client, not the server, is what gets measured.
  Impl() { buffer.reserve(kReadBytes); }
  static constexpr size_t kReadBytes = 64 << 10;

  beast::error_code Open() {
    beast::error_code ec;
    socket.close(ec);
    buffer.clear();
    ec = {};
    socket.connect(endpoint, ec);
    if (ec) return ec;
    socket.set_option(tcp::no_delay(true), ec);
    connected = !ec;
    return ec;
  }
};

HttpConnection::HttpConnection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpConnection::~HttpConnection() = default;

Result<std::unique_ptr<HttpConnection>> HttpConnection::Connect(const std::string& host,
                                                                uint16_t port) {
  auto impl = std::make_unique<Impl>();
  beast::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  if (ec) return MakeError(ErrorKind::kInvalidArgument, "Bad address ", host, ": ", ec.message());
  impl->endpoint = tcp::endpoint(address, port);
  impl->host_header = StrCat(host, ":", port);
  if (ec = impl->Open(); ec) {
    return MakeError(ErrorKind::kIo, "Cannot connect to ", impl->host_header, ": ", ec.message());
  }
  return std::unique_ptr<HttpConnection>(new HttpConnection(std::move(impl)));
}

Result<HttpResult> HttpConnection::Send(std::string_view method, const std::string& target,
                                        const std::string& body) {
  const http::verb verb = http::string_to_verb({method.data(), method.size()});
  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, impl_->host_header);
  request.keep_alive(true);
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = body;
  }
  request.prepare_payload();
  const bool idempotent = verb == http::verb::get || verb == http::verb::head;
  beast::error_code ec;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!impl_->connected && (ec = impl_->Open())) break;
    http::write(impl_->socket, request, ec);
    if (!ec) {
      http::response_parser<http::string_body> parser;
      parser.body_limit(1ull << 30);
      // A HEAD response announces a length but carries no body.
      parser.skip(verb == http::verb::head);
      http::read(impl_->socket, impl_->buffer, parser, ec);
      if (!ec) {
        auto response = parser.release();
        impl_->connected = response.keep_alive();
        return HttpResult{static_cast<int>(response.result_int()), std::move(response.body())};
      }
    }
    impl_->connected = false;
    if (!idempotent) break;
  }
  return MakeError(ErrorKind::kIo, method, " ", target, " failed: ", ec.message());
}

}  // namespace skade::bench
