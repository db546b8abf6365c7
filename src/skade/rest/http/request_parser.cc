#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <limits>
#include <utility>

#include "skade/rest/http/request_parser_internal.h"
#include "skade/util/strings.h"

namespace skade::rest::http_internal {

namespace {

namespace http = boost::beast::http;

constexpr std::string_view kBadRequest = "BadRequestException";

// A body buffer larger than this is released between requests, and a
// Content-Length reserves at most this much up front (a client may announce
// more than it sends).
constexpr size_t kRetainedBodyBytes = 64 * 1024;

std::string_view View(boost::beast::string_view s) { return {s.data(), s.size()}; }

bool IsDecimal(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// obs-fold is CRLF followed by SP or HTAB inside the header section.
bool HasObsFold(std::string_view header_bytes) {
  for (size_t i = header_bytes.find('\n');
       i != std::string_view::npos && i + 1 < header_bytes.size();
       i = header_bytes.find('\n', i + 1)) {
    if (header_bytes[i + 1] == ' ' || header_bytes[i + 1] == '\t') return true;
  }
  return false;
}

}  // namespace

RequestParser::RequestParser(HttpRequest* request, size_t max_header_bytes, size_t max_body_bytes)
    : request_(request), max_header_bytes_(max_header_bytes) {
  header_limit(static_cast<std::uint32_t>(
      std::min<size_t>(max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  body_limit(std::uint64_t{max_body_bytes});
  request_->method.clear();
  request_->target.clear();
  request_->headers.clear();
  request_->request_id.clear();
  if (request_->body.capacity() > kRetainedBodyBytes) {
    std::string().swap(request_->body);
  } else {
    request_->body.clear();
  }
}

RequestParser::Status RequestParser::Parse(std::string_view input, size_t* consumed) {
  size_t skipped = 0;
  if (!got_some() && !skipped_empty_line_) {
    if (input == "\r") {
      *consumed = 0;
      return Status::kNeedMore;  // a CRLF cut in two, or a malformed request line
    }
    skipped = input.starts_with("\r\n") ? 2 : input.starts_with("\n") ? 1 : 0;
    skipped_empty_line_ = skipped > 0;
    input.remove_prefix(skipped);
  }
  boost::beast::error_code ec;
  const bool in_header = !is_header_done();
  const size_t used = put(boost::asio::const_buffer(input.data(), input.size()), ec);
  *consumed = skipped + used;
  if (!in_header) {
    if (ec == http::error::need_more) {
      // Beast consumes body data as it comes, but a chunk's size line and the
      // trailer only once whole: bound what waits for them, or an endless
      // chunk extension or trailer would grow the buffer without limit.
      if (input.size() - used >= max_header_bytes_) {
        return Reject(
            400, kBadRequest,
            StrCat("A chunk size line or the trailer exceeds ", max_header_bytes_, " bytes"));
      }
      return Status::kNeedMore;
    }
    if (ec) return Reject(ec);
    return is_done() ? Status::kDone : Status::kNeedMore;
  }
  // Beast consumes whole fields only, so a fold lies inside one consumed range;
  // checking here rejects it before anything acts on the header.
  if (HasObsFold(input.substr(0, used))) {
    return Reject(400, kBadRequest, "Obsolete line folding in a header field");
  }
  // Beast applies its header limit to the unconsumed input; we count the whole
  // header across calls.
  header_bytes_ += used;
  if (ec == http::error::need_more) {
    if (header_bytes_ + (input.size() - used) >= max_header_bytes_) {
      return Reject(http::error::header_limit);
    }
    return Status::kNeedMore;
  }
  if (ec) return Reject(ec);
  if (header_bytes_ > max_header_bytes_) return Reject(http::error::header_limit);
  if (is_done()) return Status::kDone;
  eager(true);  // the body may now be parsed in one go
  return Status::kHeaderDone;
}

RequestParser::Status RequestParser::Reject(int status, std::string_view type,
                                            std::string message) {
  rejection_ = RequestRejection{status, type, std::move(message)};
  return Status::kRejected;
}

RequestParser::Status RequestParser::Reject(boost::beast::error_code ec) {
  if (rejection_.status != 0) return Status::kRejected;  // set by one of our callbacks
  if (ec == http::error::header_limit) {
    return Reject(431, "RequestHeaderFieldsTooLargeException",
                  StrCat("Request header fields exceed ", max_header_bytes_, " bytes"));
  }
  if (ec == http::error::body_limit) {
    return Reject(413, "RequestTooLargeException", "Request body too large");
  }
  return Reject(400, kBadRequest, StrCat("Malformed HTTP request: ", ec.message()));
}

void RequestParser::Fail(boost::beast::error_code& ec, std::string message) {
  Reject(400, kBadRequest, std::move(message));
  ec = http::error::bad_value;
}

bool RequestParser::SetTarget(std::string_view target, bool is_options) {
  if (!target.empty() && target.front() == '/') {
    request_->target.assign(target);
    return true;
  }
  if (target == "*") {
    request_->target.assign(target);
    return is_options;
  }
  // absolute-form, which servers must accept: keep path and query only.
  if (!ConsumePrefixIgnoringCase(&target, "http://") &&
      !ConsumePrefixIgnoringCase(&target, "https://")) {
    return false;
  }
  const size_t path = target.find_first_of("/?");
  target = path == std::string_view::npos ? std::string_view() : target.substr(path);
  request_->target.assign(target.empty() || target.front() == '?' ? "/" : "");
  request_->target.append(target);
  return true;
}

void RequestParser::on_request_impl(http::verb method, boost::beast::string_view method_str,
                                    boost::beast::string_view target, int version,
                                    boost::beast::error_code& ec) {
  version_ = version;
  switch (method) {
    case http::verb::get:
    case http::verb::head:
    case http::verb::post:
    case http::verb::put:
    case http::verb::delete_:
    case http::verb::patch:
    case http::verb::options:
      break;
    default:
      Reject(405, "MethodNotAllowedException",
             StrCat("Method not supported; this server answers ", kServedMethods));
      ec = http::error::bad_method;
      return;
  }
  request_->method.assign(View(method_str));
  if (!SetTarget(View(target), method == http::verb::options)) {
    Fail(ec, "Malformed request target");
  }
}

void RequestParser::on_response_impl(int, boost::beast::string_view, int,
                                     boost::beast::error_code& ec) {
  ec = http::error::bad_version;  // a request parser never sees a status line
}

void RequestParser::on_field_impl(http::field name, boost::beast::string_view name_string,
                                  boost::beast::string_view value, boost::beast::error_code& ec) {
  // After the header, fields are the trailer of a chunked body: not passed on.
  if (is_header_done()) return;
  switch (name) {
    case http::field::content_length:
      if (++content_length_fields_ > 1 || !IsDecimal(View(value))) {
        return Fail(ec, "Content-Length must appear once, as a decimal number");
      }
      break;
    case http::field::transfer_encoding:
      if (++transfer_encoding_fields_ > 1 || !EqualsIgnoreCase(View(value), "chunked")) {
        return Fail(ec, "Transfer-Encoding must appear once, as exactly \"chunked\"");
      }
      break;
    case http::field::host:
      if (++host_fields_ > 1) return Fail(ec, "More than one Host header");
      break;
    case http::field::content_encoding:
      // A compressed body would otherwise be parsed as it is, and fail as
      // malformed JSON without saying why.
      if (!EqualsIgnoreCase(StripWhitespace(View(value)), "identity")) {
        Reject(415, "UnsupportedMediaTypeException",
               "Content-Encoding other than identity is not supported: send the body "
               "uncompressed");
        ec = http::error::bad_value;
        return;
      }
      break;
    default:
      break;
  }
  request_->headers.emplace_back(AsciiLower(View(name_string)), std::string(View(value)));
}

void RequestParser::on_header_impl(boost::beast::error_code& ec) {
  if (version_ >= 11 && host_fields_ == 0) return Fail(ec, "Missing Host header");
  if (version_ < 11 && transfer_encoding_fields_ > 0) {
    return Fail(ec, "Transfer-Encoding is not allowed in HTTP/1.0");
  }
}

void RequestParser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                                      boost::beast::error_code&) {
  if (content_length) {
    request_->body.reserve(
        static_cast<size_t>(std::min<std::uint64_t>(*content_length, kRetainedBodyBytes)));
  }
}

size_t RequestParser::on_body_impl(boost::beast::string_view body, boost::beast::error_code&) {
  request_->body.append(body.data(), body.size());
  return body.size();
}

void RequestParser::on_chunk_header_impl(std::uint64_t, boost::beast::string_view,
                                         boost::beast::error_code&) {}

size_t RequestParser::on_chunk_body_impl(std::uint64_t, boost::beast::string_view body,
                                         boost::beast::error_code&) {
  request_->body.append(body.data(), body.size());
  return body.size();
}

void RequestParser::on_finish_impl(boost::beast::error_code&) {}

}  // namespace skade::rest::http_internal
