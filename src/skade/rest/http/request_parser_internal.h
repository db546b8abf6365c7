// Parses one HTTP/1.x request into an HttpRequest.
//
// Beast's parser does the syntax (request line, field grammar, chunked
// coding, the header and body limits). This adds what keeps a request
// unambiguous to every intermediary, so that no request can be smuggled
// inside another:
//   - Content-Length at most once and plain decimal (Beast accepts repeats and
//     lists of equal values);
//   - Transfer-Encoding at most once, exactly "chunked", and not in HTTP/1.0
//     (Beast ignores other codings and would then read no body);
//   - both together is rejected (Beast does that, whatever the order);
//   - no obs-fold line folding (Beast joins folded lines silently);
//   - HTTP/1.1 requests carry exactly one Host;
// plus a method allow-list and an origin-form target.
#pragma once

#include <boost/beast/http/basic_parser.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "skade/rest/http/http_message.h"

namespace skade::rest::http_internal {

/// Why a request was refused: the error response to send before closing.
struct RequestRejection {
  int status = 0;
  std::string_view type;  // ErrorModel type, a static string
  std::string message;
};

/// One parser per request; not reusable, not thread-safe.
class RequestParser final : private boost::beast::http::basic_parser<true> {
 public:
  enum class Status {
    kNeedMore,    // give it more input
    kHeaderDone,  // header complete and valid, body still to come: call again
    kDone,        // request complete
    kRejected,    // see rejection(); the connection must be closed
  };

  /// Clears `*request` (keeping modest capacity) and fills it as input
  /// arrives. `request` must outlive the parser.
  RequestParser(HttpRequest* request, size_t max_header_bytes, size_t max_body_bytes);

  /// Parses from the start of `input`, which holds everything received and not
  /// yet consumed. Sets `*consumed` to the bytes used, which the caller drops
  /// before the next call. Not to be called again after kDone or kRejected.
  /// One empty line before the request line is skipped (RFC 9112, 2.2: some
  /// clients end a body with a CRLF it does not count), no more.
  Status Parse(std::string_view input, size_t* consumed);

  const RequestRejection& rejection() const { return rejection_; }

  /// At least one byte of this request has been received.
  using basic_parser::got_some;
  using basic_parser::is_done;
  using basic_parser::is_header_done;
  /// Valid once the header is done.
  using basic_parser::content_length_remaining;
  using basic_parser::keep_alive;
  /// 10 or 11; valid once the request line is parsed.
  int version() const { return version_; }

 private:
  Status Reject(int status, std::string_view type, std::string message);
  Status Reject(boost::beast::error_code ec);
  void Fail(boost::beast::error_code& ec, std::string message);
  bool SetTarget(std::string_view target, bool is_options);

  void on_request_impl(boost::beast::http::verb method, boost::beast::string_view method_str,
                       boost::beast::string_view target, int version,
                       boost::beast::error_code& ec) override;
  void on_response_impl(int code, boost::beast::string_view reason, int version,
                        boost::beast::error_code& ec) override;
  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, boost::beast::error_code& ec) override;
  void on_header_impl(boost::beast::error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                         boost::beast::error_code& ec) override;
  size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions,
                            boost::beast::error_code& ec) override;
  size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                            boost::beast::error_code& ec) override;
  void on_finish_impl(boost::beast::error_code& ec) override;

  HttpRequest* const request_;
  const size_t max_header_bytes_;
  size_t header_bytes_ = 0;  // consumed so far by the request line and fields
  int version_ = 11;
  int content_length_fields_ = 0;
  int transfer_encoding_fields_ = 0;
  int host_fields_ = 0;
  bool skipped_empty_line_ = false;
  RequestRejection rejection_;
};

}  // namespace skade::rest::http_internal
