// Parsing whole JSON documents without letting a large one keep its memory.
//
// A simdjson parser keeps buffers of about 15 times the largest document it
// has parsed, until it is destroyed. So documents up to kThreadParserBytes
// use the calling thread's parser, kept for the next one (what makes small
// documents cheap); a larger one gets a parser of its own, freed with the
// JsonParser. Large parses share one budget: at most kLargeParseBytes of
// document text in them at once, a document over the budget counting as the
// whole of it (it runs alone). Otherwise a burst of large request bodies, or
// of metadata files a client names (up to 512 MiB inflated), would take the
// thread pools' size times ~15 times their size, and keep it.
//
// A JsonParser is made, used and destroyed on one thread (it may lend that
// thread's parser); any number exist at once, on any threads. The budget is process-wide. A thread
// must not wait for the budget (WhenBusy::kWait) while it holds a large
// parse of its own, or it may wait for itself.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "skade/util/json_reader.h"
#include "skade/util/result.h"

namespace skade {

class JsonParser {
 public:
  /// Documents larger than this get a parser of their own.
  static constexpr size_t kThreadParserBytes = 64 * 1024;
  /// The text of the large documents being parsed at once, at most: ~1 GiB
  /// of parsers. Four request bodies of the transport's 16 MiB limit fit.
  static constexpr uint64_t kLargeParseBytes = 64ull << 20;

  /// What a large document does when the budget is taken.
  enum class WhenBusy {
    /// Fails at once, kCancelled (REST 503 with Retry-After): for request
    /// bodies, some of which are parsed on I/O threads, and whose sender can
    /// send again.
    kRefuse,
    /// Waits for its turn, first come first served: for files that must be
    /// read, such as a table's metadata.
    kWait,
  };

  explicit JsonParser(WhenBusy when_busy) : when_busy_(when_busy) {}
  ~JsonParser() { Release(); }
  JsonParser(const JsonParser&) = delete;
  JsonParser& operator=(const JsonParser&) = delete;

  /// Parses `text`. The element lives as long as this JsonParser, until its
  /// next Parse (other parses on the thread do not touch it). Errors:
  /// kInvalidArgument ("malformed JSON: …"); kCancelled, retryable, for a
  /// large document refused under WhenBusy::kRefuse.
  Result<json::Element> Parse(std::string_view text);

  /// The capacity of the calling thread's parser, which it keeps between
  /// documents: at most kThreadParserBytes, whatever the thread parsed.
  static size_t ThreadParserCapacity();

 private:
  void Release();

  const WhenBusy when_busy_;
  bool holds_thread_parser_ = false;
  uint64_t budget_held_ = 0;
  std::unique_ptr<simdjson::dom::parser> own_;  // a large document's, or a nested one's
};

}  // namespace skade
