#include "skade/util/json_parser.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <utility>

namespace skade {

namespace {

// The text of the large parses under way. First come, first served: a
// document waiting for the whole budget is not overtaken by smaller ones,
// nor by refusable ones that arrive after it.
class LargeParseBudget {
 public:
  bool TryTake(uint64_t bytes) {
    std::lock_guard lock(mutex_);
    if (next_ticket_ != serving_ || taken_ + bytes > JsonParser::kLargeParseBytes) return false;
    taken_ += bytes;
    return true;
  }

  void Take(uint64_t bytes) {
    std::unique_lock lock(mutex_);
    const uint64_t ticket = next_ticket_++;
    changed_.wait(
        lock, [&] { return ticket == serving_ && taken_ + bytes <= JsonParser::kLargeParseBytes; });
    taken_ += bytes;
    ++serving_;
    changed_.notify_all();
  }

  void Give(uint64_t bytes) {
    {
      std::lock_guard lock(mutex_);
      taken_ -= bytes;
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t taken_ = 0;
  uint64_t next_ticket_ = 0;
  uint64_t serving_ = 0;
};

LargeParseBudget& Budget() {
  static LargeParseBudget budget;
  return budget;
}

simdjson::dom::parser& ThreadParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// Whether a live JsonParser on this thread holds elements of ThreadParser().
thread_local bool thread_parser_taken = false;

}  // namespace

Result<json::Element> JsonParser::Parse(std::string_view text) {
  Release();
  if (text.size() <= kThreadParserBytes && !thread_parser_taken) {
    thread_parser_taken = true;
    holds_thread_parser_ = true;
    return json::Parse(ThreadParser(), text);
  }
  if (text.size() > kThreadParserBytes) {
    const uint64_t bytes = std::min<uint64_t>(text.size(), kLargeParseBytes);
    if (when_busy_ == WhenBusy::kWait) {
      Budget().Take(bytes);
    } else if (!Budget().TryTake(bytes)) {
      return MakeRetryableError(ErrorKind::kCancelled, "The server is parsing ",
                                kLargeParseBytes >> 20, " MiB of JSON documents over ",
                                kThreadParserBytes >> 10, " KiB already; retry shortly");
    }
    budget_held_ = bytes;
  }
  own_ = std::make_unique<simdjson::dom::parser>();
  return json::Parse(*own_, text);
}

size_t JsonParser::ThreadParserCapacity() { return ThreadParser().capacity(); }

void JsonParser::Release() {
  own_.reset();
  if (budget_held_ != 0) Budget().Give(std::exchange(budget_held_, 0));
  if (holds_thread_parser_) {
    holds_thread_parser_ = false;
    thread_parser_taken = false;
  }
}

}  // namespace skade
