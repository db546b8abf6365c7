#include "skade/cli/stream_ingest.h"

#include <arrow/api.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "skade/data/arrow_schema.h"
#include "skade/data/conform_batch.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"

namespace skade::cli {

namespace {

sigset_t StopSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// The signal pending on a signalfd (0 if none could be read).
struct LineRange {
  int64_t first;
  int64_t last;
};

// "1-500, 1001" with adjacent and overlapping ranges joined.
std::string RangesToString(std::vector<LineRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const LineRange& a, const LineRange& b) { return a.first < b.first; });
  std::vector<LineRange> joined;
  for (const LineRange& range : ranges) {
    if (!joined.empty() && range.first <= joined.back().last + 1) {
      joined.back().last = std::max(joined.back().last, range.last);
    } else {
      joined.push_back(range);
    }
  }
  std::vector<std::string> parts;
  for (const LineRange& range : joined) {
    parts.push_back(range.first == range.last ? StrCat(range.first)
                                              : StrCat(range.first, "-", range.last));
  }
  return Join(parts, ", ");
}

// The longest line read, as in a file: a longer one is a bad line, not kept
// in memory.
constexpr size_t kMaxLineBytes = ingest::kMaxRecordBytes;
// A batch is sent once its lines take this much, whatever --batch-rows says.
constexpr size_t kMaxBatchBytes = 64 << 20;

// Lines read and not yet sent, each kept with its newline and number.
class LineBatch {
 public:
  bool empty() const { return numbers_.empty(); }
  size_t size() const { return numbers_.size(); }
  int64_t opened_at() const { return opened_at_; }
  int64_t number(size_t i) const { return numbers_[i]; }
  size_t bytes() const { return text_.size(); }

  void Add(std::string_view line, int64_t number) {
    if (numbers_.empty()) opened_at_ = MonotonicMicros();
    starts_.push_back(text_.size());
    numbers_.push_back(number);
    text_.append(line);
    text_.push_back('\n');
  }

  /// Lines [begin, end) as one text.
  std::string_view Text(size_t begin, size_t end) const {
    size_t from = starts_[begin];
    size_t to = end < starts_.size() ? starts_[end] : text_.size();
    return std::string_view(text_).substr(from, to - from);
  }

  void Clear() {
    text_.clear();
    starts_.clear();
    numbers_.clear();
  }

 private:
  std::string text_;
  std::vector<size_t> starts_;
  std::vector<int64_t> numbers_;
  int64_t opened_at_ = 0;
};

// What became of the lines read: read by the main thread and the
// second-signal watcher while submitter threads write it.
class Ledger {
 public:
  /// `on_ack_lost` is called once, with the ledger's lock held, when an
  /// acknowledgement cannot be written (the consumer of stdout went away).
  Ledger(bool ack, std::function<void()> on_ack_lost)
      : ack_(ack), on_ack_lost_(std::move(on_ack_lost)) {}

  /// A batch opens at `first_line`: its lines are read, not yet sent.
  void Reading(int64_t first_line) {
    std::lock_guard lock(mutex_);
    unsent_first_ = first_line;
  }

  void Sent(const Submission& submission) {
    std::lock_guard lock(mutex_);
    in_flight_[submission.first_line] = {submission.first_line, submission.last_line};
    unsent_first_ = 0;
    ++batches_;
  }

  void Done(const Submission& submission, const Result<commit::CommitReceipt>& result) {
    std::lock_guard lock(mutex_);
    in_flight_.erase(submission.first_line);
    LineRange range{submission.first_line, submission.last_line};
    if (result) {
      rows_ += submission.rows->num_rows();
      if (ack_) Acknowledge(range, submission.rows->num_rows(), *result);
      return;
    }
    not_committed_.push_back(range);
    if (result.error().kind != ErrorKind::kCancelled && !error_) {
      error_ = Error{result.error().kind,
                     StrCat("commit of lines ", range.first, "-", range.last,
                            " failed: ", result.error().message),
                     result.error().retryable};
    }
  }

  int64_t rows() const {
    std::lock_guard lock(mutex_);
    return rows_;
  }
  int64_t batches() const {
    std::lock_guard lock(mutex_);
    return batches_;
  }
  std::optional<Error> error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }
  std::vector<LineRange> not_committed() const {
    std::lock_guard lock(mutex_);
    return not_committed_;
  }
  /// Committed lines whose acknowledgement could not be written.
  std::vector<LineRange> ack_lost() const {
    std::lock_guard lock(mutex_);
    return ack_lost_;
  }
  /// Why acknowledgements were lost (an errno); 0 while none is.
  int ack_error() const {
    std::lock_guard lock(mutex_);
    return ack_error_;
  }
  /// Lines read and not acknowledged, but not known to have failed: those
  /// being read into a batch or parsed (up to `lines_read`), those being
  /// committed, those committed whose acknowledgement was lost.
  std::vector<LineRange> NotAcknowledged(int64_t lines_read) const {
    std::lock_guard lock(mutex_);
    std::vector<LineRange> ranges = ack_lost_;
    for (const auto& [first, range] : in_flight_) ranges.push_back(range);
    if (unsent_first_ > 0 && unsent_first_ <= lines_read) {
      ranges.push_back({unsent_first_, lines_read});
    }
    return ranges;
  }

 private:
  // Prints the acknowledgement of committed lines `range`; mutex_ held.
  void Acknowledge(LineRange range, int64_t rows, const commit::CommitReceipt& receipt) {
    if (ack_error_ == 0 &&
        (std::printf("{\"first_line\":%lld,\"last_line\":%lld,\"rows\":%lld,\"snapshot_id\":"
                     "%lld,\"sequence_number\":%lld}\n",
                     static_cast<long long>(range.first), static_cast<long long>(range.last),
                     static_cast<long long>(rows), static_cast<long long>(receipt.snapshot_id),
                     static_cast<long long>(receipt.sequence_number)) >= 0 &&
         std::fflush(stdout) == 0)) {
      return;
    }
    ack_lost_.push_back(range);
    if (ack_error_ != 0) return;
    ack_error_ = errno != 0 ? errno : EIO;
    std::fprintf(stderr,
                 "skade: cannot write acknowledgements (standard output: %s): reading no more, "
                 "committing what was read\n",
                 std::strerror(ack_error_));
    on_ack_lost_();
  }

  const bool ack_;
  const std::function<void()> on_ack_lost_;
  mutable std::mutex mutex_;
  std::map<int64_t, LineRange> in_flight_;  // by first line
  int64_t unsent_first_ = 0;                // the open batch's first line; 0: none
  std::vector<LineRange> ack_lost_;
  int ack_error_ = 0;
  std::vector<LineRange> not_committed_;
  std::optional<Error> error_;
  int64_t rows_ = 0;
  int64_t batches_ = 0;
};

class StreamReader {
 public:
  StreamReader(int input_fd, const StopSignals& signals, commit::CoalescingCommitter& committer,
               StreamTarget target, const StreamIngestOptions& options)
      : input_fd_(input_fd),
        signals_(signals),
        committer_(committer),
        target_(std::move(target)),
        options_(options),
        ledger_(options.ack, [this] { Wake(); }) {}
  ~StreamReader() {
    StopWatcher();
    for (int fd : wake_) {
      if (fd >= 0) ::close(fd);
    }
  }

  Status Run() {
    const int64_t start = MonotonicMicros();
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      return IoError("cannot make a pipe: ", std::strerror(errno));
    }
    if (target_.schema) {
      SKADE_ASSIGN_OR_RAISE(arrow_schema_, data::ToArrowSchema(*target_.schema));
    }
    CommitSubmitter submitter(
        committer_, target_.table, options_.submit,
        [this](const Submission& submission, const Result<commit::CommitReceipt>& result) {
          ledger_.Done(submission, result);
        });
    submitter_ = &submitter;
    SKADE_RETURN_NOT_OK(StartWatcher());
    Status read = ReadAll();
    reading_ = false;
    if (read && !stopped_) read = Send();
    submitter_->Finish();
    StopWatcher();
    submitter_ = nullptr;
    return Summarize(read, static_cast<double>(MonotonicMicros() - start) / 1e6);
  }

 private:
  // Reads lines until the end of the input, a signal, a bad line or a
  // failed commit, sending batches as they fill or age.
  Status ReadAll() {
    std::string partial;    // the start of a line whose newline has not come
    bool overlong = false;  // the line read now passed kMaxLineBytes: dropped to its end
    std::vector<char> buffer(1 << 16);
    for (;;) {
      int timeout = -1;
      if (!batch_.empty()) {
        int64_t due = batch_.opened_at() + options_.batch_ms * 1000 - MonotonicMicros();
        timeout = static_cast<int>(std::max<int64_t>(0, (due + 999) / 1000));
      }
      pollfd fds[2] = {{input_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int ready = ::poll(fds, 2, timeout);
      if (ready < 0) {
        if (errno == EINTR) continue;
        return IoError("cannot wait for input: ", std::strerror(errno));
      }
      if ((fds[1].revents & POLLIN) != 0) return OkStatus();  // a signal, or stdout closed
      if (ready == 0) {
        SKADE_RETURN_NOT_OK(Send());
        if (stopped_) return OkStatus();
        continue;
      }
      ssize_t n = ::read(input_fd_, buffer.data(), buffer.size());
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        return IoError("cannot read input after line ", line_, ": ", std::strerror(errno));
      }
      if (n == 0) {
        if (overlong) return LongLine();
        if (!partial.empty()) SKADE_RETURN_NOT_OK(AddLine(partial));
        return OkStatus();
      }
      std::string_view chunk(buffer.data(), static_cast<size_t>(n));
      for (size_t newline; (newline = chunk.find('\n')) != std::string_view::npos;) {
        if (overlong || partial.size() + newline > kMaxLineBytes) {
          overlong = false;
          std::string().swap(partial);
          SKADE_RETURN_NOT_OK(LongLine());
        } else if (partial.empty()) {
          SKADE_RETURN_NOT_OK(AddLine(chunk.substr(0, newline)));
        } else {
          partial.append(chunk.substr(0, newline));
          SKADE_RETURN_NOT_OK(AddLine(partial));
          partial.clear();
        }
        if (stopped_) return OkStatus();
        chunk.remove_prefix(newline + 1);
      }
      if (!overlong) partial.append(chunk);
      if (partial.size() > kMaxLineBytes) {
        overlong = true;
        std::string().swap(partial);
      }
    }
  }

  // Leaves bad line `number` out (--skip-bad), saying why.
  void SkipLine(int64_t number, const std::string& why) {
    ++skipped_;
    std::fprintf(stderr, "skade: skipping line %lld: %s\n", static_cast<long long>(number),
                 why.c_str());
  }

  // A line longer than kMaxLineBytes, read to its end and not kept: a bad
  // line.
  Status LongLine() {
    lines_read_ = ++line_;
    const std::string why = StrCat("longer than ", kMaxLineBytes, " bytes");
    if (options_.skip_bad) {
      SkipLine(line_, why);
      return OkStatus();
    }
    // The lines before it are committed; none from it on.
    SKADE_RETURN_NOT_OK(Send());
    if (stopped_) return OkStatus();
    stopped_ = true;
    bad_line_ = line_;
    return InvalidArgument("line ", bad_line_, ": ", why);
  }

  Status AddLine(std::string_view line) {
    lines_read_ = ++line_;
    if (line_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // a UTF-8 BOM
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return OkStatus();
    if (options_.format == ingest::InputFormat::kCsv && csv_columns_.empty()) {
      auto header = ingest::ParseCsvHeader(line);
      if (header) header = CheckCsvColumns(std::move(*header));
      if (!header)
        return InvalidArgument("line ", line_, ": bad CSV header: ", header.error().message);
      csv_columns_ = std::move(*header);
      return OkStatus();
    }
    if (batch_.empty()) ledger_.Reading(line_);
    batch_.Add(line, line_);
    if (static_cast<int64_t>(batch_.size()) >= options_.batch_rows ||
        batch_.bytes() >= kMaxBatchBytes) {
      return Send();
    }
    return OkStatus();
  }

  // A CSV header's `columns` if each is named once and is a column of the
  // table (when it exists): told at the header, not at the first row.
  // By hash, not by scanning: a header may name 100,000 columns.
  Result<std::vector<std::string>> CheckCsvColumns(std::vector<std::string> columns) const {
    std::unordered_set<std::string_view> table_columns;
    if (target_.schema) {
      for (const spec::NestedField& field : target_.schema->fields()) {
        table_columns.insert(field.name);
      }
    }
    std::unordered_set<std::string_view> seen;
    for (const std::string& name : columns) {
      if (!seen.insert(name).second) {
        return InvalidArgument("column '", name, "' appears more than once");
      }
      if (target_.schema && !table_columns.contains(name)) {
        return InvalidArgument("column '", name, "' is not in the table");
      }
    }
    return columns;
  }

  // `lines` lines as rows of the table: parsed, one record per line, then
  // conformed to its schema.
  Result<std::shared_ptr<arrow::RecordBatch>> Parse(std::string_view text, size_t lines) {
    SKADE_RETURN_NOT_OK(CheckQuotesClose(text));
    SKADE_RETURN_NOT_OK(CheckOneJsonValuePerLine(text));
    SKADE_ASSIGN_OR_RAISE(
        auto table, ingest::ParseTextRows(arrow::Buffer::FromString(std::string(text)),
                                          options_.format, csv_columns_, arrow_schema_.get()));
    // The readers take a record across lines (a CSV quoted field, a JSON
    // object) and several on one (JSON): counted, so neither merges lines
    // into one row or splits one into two.
    if (table->num_rows() != static_cast<int64_t>(lines)) {
      return InvalidArgument(lines == 1 ? "the line holds " : StrCat(lines, " lines hold "),
                             table->num_rows(), " records: each line must hold one");
    }
    auto combined = table->CombineChunksToBatch();
    if (!combined.ok()) return InvalidArgument(combined.status().message());
    return data::ConformBatch(*combined, *target_.schema);
  }

  // JSON: a line that is not one whole JSON value — it ends inside one, or
  // holds more after it (Arrow's reader would read an object across lines,
  // and two on one line, as rows). Only the structure is checked here:
  // brackets outside strings; ParseTextRows refuses JSON nested too deep
  // for Arrow, and the reader checks the rest.
  Status CheckOneJsonValuePerLine(std::string_view text) const {
    if (options_.format != ingest::InputFormat::kJson) return OkStatus();
    int depth = 0;
    bool in_string = false;
    bool escaped = false;
    bool closed = false;  // the line's value ended: only blanks may follow
    for (char c : text) {
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        } else if (c == '\n') {
          return InvalidArgument("the line ends inside a JSON string");
        }
        continue;
      }
      if (c == '\n') {
        if (depth != 0) return InvalidArgument("the line ends inside a JSON value");
        closed = false;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') continue;
      if (closed) return InvalidArgument("the line holds more than one JSON value");
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth < 0) return InvalidArgument("the line closes a bracket it did not open");
        closed = depth == 0;
      }
    }
    return OkStatus();
  }

  // CSV: a line whose quoted field does not end on it. A field is quoted
  // when it starts with a quote (elsewhere a quote is just a character), and
  // a quote inside it is doubled.
  Status CheckQuotesClose(std::string_view text) const {
    if (options_.format != ingest::InputFormat::kCsv) return OkStatus();
    bool field_start = true;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (quoted) {
        if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else if (c == '\n') {
          return InvalidArgument("a quoted field does not end on its line");
        }
        continue;
      }
      quoted = field_start && c == '"';
      field_start = c == ',' || c == '\n';
    }
    return OkStatus();
  }

  // The rows of `text` with the types the readers infer (no table yet).
  Result<std::shared_ptr<arrow::Table>> Infer(std::string_view text) const {
    SKADE_RETURN_NOT_OK(CheckQuotesClose(text));
    SKADE_RETURN_NOT_OK(CheckOneJsonValuePerLine(text));
    return ingest::ParseTextRows(arrow::Buffer::FromString(std::string(text)), options_.format,
                                 csv_columns_, nullptr);
  }

  // With --create, the first batch makes the table, from its inferred types.
  // If some of its lines do not parse alone, from the lines before the first
  // of them (Send then stops there), or with --skip-bad from those that do
  // parse; a batch of bad lines only is skipped (--skip-bad) or stops the
  // stream before any table is made.
  Status CreateTable() {
    auto table = Infer(batch_.Text(0, batch_.size()));
    if (!table) {
      std::string good;
      for (size_t i = 0; i < batch_.size(); ++i) {
        auto one = Infer(batch_.Text(i, i + 1));
        if (one) {
          good.append(batch_.Text(i, i + 1));
          continue;
        }
        if (options_.skip_bad) continue;
        if (good.empty()) {
          stopped_ = true;
          bad_line_ = batch_.number(i);
          return InvalidArgument("line ", bad_line_, ": ", one.error().message);
        }
        break;
      }
      if (good.empty()) {  // --skip-bad: every line is bad
        for (size_t i = 0; i < batch_.size(); ++i) {
          SkipLine(batch_.number(i), Infer(batch_.Text(i, i + 1)).error().message);
        }
        batch_.Clear();
        return OkStatus();
      }
      table = Infer(good);
    }
    if (!table) {
      return InvalidArgument("lines ", batch_.number(0), "-", batch_.number(batch_.size() - 1),
                             ": cannot create the table from them: ", table.error().message);
    }
    SKADE_ASSIGN_OR_RAISE(target_.schema, target_.create(*(*table)->schema()));
    SKADE_ASSIGN_OR_RAISE(arrow_schema_, data::ToArrowSchema(*target_.schema));
    return OkStatus();
  }

  // Sends the batch read so far; finds its bad lines if it does not parse.
  Status Send() {
    if (batch_.empty()) return OkStatus();
    if (!target_.schema) {
      SKADE_RETURN_NOT_OK(CreateTable());
      if (!target_.schema) return OkStatus();  // its lines were all bad, and skipped
    }
    const size_t lines = batch_.size();
    auto rows = Parse(batch_.Text(0, lines), lines);
    if (rows) {
      Submit(std::move(*rows), batch_.number(0), batch_.number(lines - 1));
      batch_.Clear();
      return OkStatus();
    }
    // Which lines? Each is parsed alone; the good ones go on as one batch.
    std::string good;
    std::vector<int64_t> good_numbers;
    for (size_t i = 0; i < lines; ++i) {
      auto one = Parse(batch_.Text(i, i + 1), 1);
      if (one) {
        good.append(batch_.Text(i, i + 1));
        good_numbers.push_back(batch_.number(i));
        continue;
      }
      if (!options_.skip_bad) {
        // The lines before it are committed; none from it on.
        if (i > 0) {
          auto prefix = Parse(batch_.Text(0, i), i);
          if (!prefix) return LinesError(0, i - 1, prefix.error());
          Submit(std::move(*prefix), batch_.number(0), batch_.number(i - 1));
        }
        stopped_ = true;
        bad_line_ = batch_.number(i);
        return InvalidArgument("line ", bad_line_, ": ", one.error().message);
      }
      SkipLine(batch_.number(i), one.error().message);
    }
    if (good_numbers.size() == lines) {
      // Every line parses alone: the lines disagree with each other.
      stopped_ = true;
      return LinesError(0, lines - 1, rows.error());
    }
    if (!good_numbers.empty()) {
      auto kept = Parse(good, good_numbers.size());
      if (!kept) {
        stopped_ = true;
        return LinesError(0, lines - 1, kept.error());
      }
      Submit(std::move(*kept), good_numbers.front(), good_numbers.back());
    }
    batch_.Clear();
    return OkStatus();
  }

  Status LinesError(size_t first, size_t last, const Error& error) {
    stopped_ = true;
    return MakeError(error.kind, "lines ", batch_.number(first), "-", batch_.number(last), ": ",
                     error.message);
  }

  void Submit(std::shared_ptr<arrow::RecordBatch> rows, int64_t first_line, int64_t last_line) {
    Submission submission{std::move(rows), first_line, last_line, ""};
    ledger_.Sent(submission);
    if (!submitter_->Submit(std::move(submission))) stopped_ = true;
  }

  // Watches the stop signals for the whole run, on a thread of its own: the
  // first stops reading (ReadAll polls wake_) or, once the input is read,
  // just says so; the second exits at once — also while the reader waits
  // for room in the submitter's queue, which nothing else interrupts.
  Status StartWatcher() {
    if (signals_.fd() < 0) return OkStatus();
    if (::pipe2(done_, O_CLOEXEC) != 0) {
      return IoError("cannot watch for signals: ", std::strerror(errno));
    }
    watcher_ = std::thread([this] {
      signals_.Watch(done_[0], [this](int signal) {
        if (++signals_seen_ == 1) {
          signal_ = signal;
          // Said at once: the reader may be waiting on a commit.
          std::fprintf(stderr,
                       "skade: %s: reading no more, committing what was read (again to exit at "
                       "once)\n",
                       StopSignals::Name(signal));
          Wake();
          return;
        }
        std::string pending = RangesToString(ledger_.NotAcknowledged(lines_read_));
        std::fprintf(stderr, "skade: %s again: exiting without waiting; %s%s\n",
                     StopSignals::Name(signal),
                     pending.empty() ? "every line read was acknowledged"
                                     : "not acknowledged (may or may not be committed): lines ",
                     pending.c_str());
        std::fflush(stdout);
        ::_exit(130);
      });
    });
    return OkStatus();
  }

  void StopWatcher() {
    if (!watcher_.joinable()) return;
    const char byte = 0;
    (void)!::write(done_[1], &byte, 1);
    watcher_.join();
    for (int fd : done_) ::close(fd);
  }

  // Ends ReadAll from another thread: a stop signal came, or stdout closed.
  void Wake() {
    if (!reading_) return;
    const char byte = 0;
    (void)!::write(wake_[1], &byte, 1);
  }

  Status Summarize(Status read, double seconds) {
    commit::CoalescingCommitterStats stats = committer_.stats();
    FILE* out = options_.ack ? stderr : stdout;
    std::fprintf(out,
                 "ingested %lld rows of %lld lines into %s: %lld batches, %lld logical writes, "
                 "%lld physical commits, %lld data files in %.2f s",
                 static_cast<long long>(ledger_.rows()), static_cast<long long>(line_),
                 spec::QuotedIdentifier(target_.table).c_str(),
                 static_cast<long long>(ledger_.batches()),
                 static_cast<long long>(stats.logical_writes),
                 static_cast<long long>(stats.physical_commits),
                 static_cast<long long>(stats.data_files), seconds);
    if (skipped_ > 0)
      std::fprintf(out, "; %lld bad lines skipped", static_cast<long long>(skipped_));
    std::fprintf(out, "\n");
    std::fflush(out);

    std::string not_committed = RangesToString(ledger_.not_committed());
    std::string ack_lost = RangesToString(ledger_.ack_lost());
    auto failure = ledger_.error();
    if (!failure && ledger_.ack_error() != 0) {
      failure = Error{ErrorKind::kIo,
                      StrCat("cannot write acknowledgements: standard output: ",
                             std::strerror(ledger_.ack_error())),
                      false};
    }
    if (!read || failure) {
      Error error = failure ? *failure : read.error();
      if (!read && failure) error.message = StrCat(read.error().message, "; ", error.message);
      StrAppend(&error.message, "; committed ", ledger_.rows(), " rows");
      if (bad_line_ > 0) StrAppend(&error.message, " from the lines before it, none from it on");
      if (!ack_lost.empty())
        StrAppend(&error.message, "; committed, not acknowledged: lines ", ack_lost);
      if (!not_committed.empty())
        StrAppend(&error.message, "; not committed: lines ", not_committed);
      if (bad_line_ == 0) StrAppend(&error.message, "; nothing after line ", line_, " was read");
      return tl::unexpected(std::move(error));
    }
    if (signal_ != 0) {
      std::fprintf(stderr, "skade: stopped by %s after line %lld; every line read was committed\n",
                   StopSignals::Name(signal_), static_cast<long long>(line_));
    }
    return OkStatus();
  }

  const int input_fd_;
  const StopSignals& signals_;
  commit::CoalescingCommitter& committer_;
  StreamTarget target_;
  const StreamIngestOptions& options_;
  std::shared_ptr<arrow::Schema> arrow_schema_;  // target_.schema's, once known
  std::vector<std::string> csv_columns_;         // from the CSV header line
  Ledger ledger_;
  CommitSubmitter* submitter_ = nullptr;  // while Run() runs
  LineBatch batch_;
  int64_t line_ = 0;                    // lines read
  std::atomic<int64_t> lines_read_{0};  // line_, for the watcher
  int64_t skipped_ = 0;                 // bad lines left out (--skip-bad)
  bool stopped_ = false;                // no more reading: a bad line or a failed commit
  std::atomic<int> signal_{0};          // the first stop signal
  std::atomic<bool> reading_{true};
  int wake_[2] = {-1, -1};  // Wake() ends the reader's wait
  int done_[2] = {-1, -1};  // the run tells the watcher to end
  std::thread watcher_;
  int64_t bad_line_ = 0;  // the line that stopped reading
  std::atomic<int> signals_seen_{0};
};

}  // namespace

int StopSignals::Read() const {
  signalfd_siginfo info{};
  ssize_t n = ::read(fd_, &info, sizeof(info));
  return n == static_cast<ssize_t>(sizeof(info)) ? static_cast<int>(info.ssi_signo) : 0;
}

const char* StopSignals::Name(int signal) { return signal == SIGINT ? "SIGINT" : "SIGTERM"; }

void StopSignals::Watch(int done_fd, const std::function<void(int signal)>& on_signal) const {
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {done_fd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if ((fds[1].revents & POLLIN) != 0) return;
    if ((fds[0].revents & POLLIN) != 0) on_signal(Read());
  }
}

StopSignals::StopSignals() {
  sigset_t set = StopSignalSet();
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  blocked_ = true;
  fd_ = ::signalfd(-1, &set, SFD_CLOEXEC);
  if (fd_ < 0) {
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    blocked_ = false;
  }
}

StopSignals::~StopSignals() {
  if (fd_ >= 0) ::close(fd_);
  if (blocked_) {
    sigset_t set = StopSignalSet();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
}

Status StreamIngest(int input_fd, const StopSignals& signals,
                    commit::CoalescingCommitter& committer, StreamTarget target,
                    const StreamIngestOptions& options) {
  if (options.batch_rows < 1) return InvalidArgument("--batch-rows must be at least 1");
  if (options.batch_ms < 1) return InvalidArgument("--batch-ms must be at least 1");
  if (options.format == ingest::InputFormat::kParquet) {
    return InvalidArgument("--stream reads JSON lines or CSV (--format jsonl|csv), not Parquet");
  }
  if (!target.schema && !target.create) {
    return InternalError("a stream needs a table schema or a way to create the table");
  }
  // A consumer of the acknowledgements that goes away is a write error
  // (EPIPE) that stops the stream, not a silent death.
  if (options.ack) ::signal(SIGPIPE, SIG_IGN);
  StreamReader reader(input_fd, signals, committer, std::move(target), options);
  return reader.Run();
}

}  // namespace skade::cli
