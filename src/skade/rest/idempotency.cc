#include "skade/rest/idempotency.h"

#include <xxhash.h>

#include <cctype>
#include <cstdio>

#include "skade/rest/error_response.h"
#include "skade/util/clock.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::rest {

namespace {

constexpr std::string_view kHeader = "idempotency-key";
constexpr std::string_view kNilUuid = "00000000-0000-0000-0000-000000000000";
constexpr int64_t kMaxLifetimeSeconds = int64_t{3650} * 24 * 3600;

// The key in canonical (lower-case) form; kInvalidArgument unless every
// Idempotency-Key header of `request` holds the same UUID.
Result<std::string> KeyOf(const HttpRequest& request) {
  std::string key;
  for (const auto& [name, value] : request.headers) {
    if (name != kHeader) continue;
    if (!IsUuid(value) || EqualsIgnoreCase(value, kNilUuid)) {
      return InvalidArgument("Invalid Idempotency-Key header '", value.substr(0, 64),
                             "': expected a UUID in its 36-character form (RFC 9562, "
                             "e.g. 017f22e2-79b0-7cc3-98c4-dc0c0c07398f), not the nil UUID");
    }
    std::string canonical = AsciiLower(value);
    if (!key.empty() && key != canonical) {
      return InvalidArgument("Conflicting Idempotency-Key headers: ", key, " and ", canonical);
    }
    key = std::move(canonical);
  }
  return key;
}

// What makes two requests the same request: method, target (path and query,
// as sent: a retry sends the same bytes), principal and body, each
// length-prefixed so no two requests hash the same input.
std::string Fingerprint(const HttpRequest& request, const Principal& principal) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  for (std::string_view field :
       {std::string_view(request.method), std::string_view(request.target),
        std::string_view(principal.client_id), std::string_view(request.body)}) {
    uint64_t size = field.size();
    XXH3_128bits_update(state.get(), &size, sizeof(size));
    XXH3_128bits_update(state.get(), field.data(), field.size());
  }
  XXH128_hash_t hash = XXH3_128bits_digest(state.get());
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(hash.high64),
                static_cast<unsigned long long>(hash.low64));
  return hex;
}

tl::unexpected<Error> KeyReused(const std::string& key) {
  return MakeError(ErrorKind::kUnprocessableEntity, "Idempotency-Key ", key,
                   " was already used for a different request (another method, path, principal "
                   "or body); a new operation needs a new key");
}

// Answers the spec lets a server record and replay: 2xx and the 4xx that say
// something final about the request. Not 5xx, nothing marked retryable, and
// not the 4xx that depend on the moment or the server's configuration rather
// than on the request (authentication, authorization, timeouts, rate limits).
bool IsFinal(const HttpResponse& response, const Error* error) {
  if (error != nullptr && error->retryable) return false;
  const int status = response.status;
  if (status >= 200 && status < 300) return true;
  if (status < 400 || status >= 500) return false;
  return status != 401 && status != 403 && status != 408 && status != 419 && status != 429;
}

// Releases a claimed key on every path out of Run and wakes its waiters.
class InFlightClaim {
 public:
  InFlightClaim(std::mutex* mutex, std::condition_variable* finished,
                std::map<std::string, std::string>* in_flight, std::string key)
      : mutex_(mutex), finished_(finished), in_flight_(in_flight), key_(std::move(key)) {}
  InFlightClaim(const InFlightClaim&) = delete;
  InFlightClaim& operator=(const InFlightClaim&) = delete;
  ~InFlightClaim() {
    {
      std::lock_guard<std::mutex> lock(*mutex_);
      in_flight_->erase(key_);
    }
    finished_->notify_all();
  }

 private:
  std::mutex* mutex_;
  std::condition_variable* finished_;
  std::map<std::string, std::string>* in_flight_;
  std::string key_;
};

}  // namespace

std::string FormatIsoDuration(std::chrono::seconds duration) {
  int64_t seconds = duration.count();
  if (seconds <= 0) return "PT0S";
  std::string out = "PT";
  if (seconds >= 3600) StrAppend(&out, seconds / 3600, "H");
  if (seconds % 3600 >= 60) StrAppend(&out, seconds % 3600 / 60, "M");
  if (seconds % 60 != 0) StrAppend(&out, seconds % 60, "S");
  return out;
}

Result<std::chrono::seconds> ParseIsoDuration(std::string_view text) {
  auto invalid = [&] {
    return InvalidArgument("Invalid duration '", text,
                           "': expected ISO-8601 such as PT30M, PT24H or P1DT12H (whole "
                           "units, at most 3650 days), or a number of seconds");
  };
  if (auto plain = ParseInt64(text)) {
    if (*plain < 0 || *plain > kMaxLifetimeSeconds) return invalid();
    return std::chrono::seconds(*plain);
  }
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string_view rest = upper;
  if (!ConsumePrefix(&rest, "P") || rest.empty()) return invalid();
  int64_t total = 0;
  bool in_time = false;
  bool any = false;
  // Units in the order ISO-8601 writes them: D, then after T: H, M, S.
  std::string_view units = "D";
  while (!rest.empty()) {
    if (rest.front() == 'T') {
      if (in_time) return invalid();
      in_time = true;
      units = "HMS";
      rest.remove_prefix(1);
      if (rest.empty()) return invalid();
      continue;
    }
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0 || digits > 12 || digits == rest.size()) return invalid();
    int64_t value = *ParseInt64(rest.substr(0, digits));
    size_t unit = units.find(rest[digits]);
    if (unit == std::string_view::npos) return invalid();
    const char letter = units[unit];
    const int64_t scale = letter == 'D' ? 24 * 3600 : letter == 'H' ? 3600 : letter == 'M' ? 60 : 1;
    total += value * scale;
    if (total > kMaxLifetimeSeconds) return invalid();
    units.remove_prefix(unit + 1);  // each unit at most once, in order
    rest.remove_prefix(digits + 1);
    any = true;
  }
  if (!any) return invalid();
  return std::chrono::seconds(total);
}

bool HasIdempotencyKey(const HttpRequest& request) {
  for (const auto& [name, value] : request.headers) {
    if (name == kHeader) return true;
  }
  return false;
}

std::optional<catalog::IdempotencyRecord> CommitIdempotency(const RouteCall& call, int status) {
  if (call.idempotency == nullptr) return std::nullopt;
  catalog::IdempotencyRecord record = *call.idempotency;
  record.status = status;
  return record;
}

void NoteTableAnswer(RouteCall& call, const spec::TableIdentifier& table,
                     const catalog::LoadTableResult& answer) {
  if (call.idempotency == nullptr) return;
  if (answer.metadata_location.empty()) {
    call.keep_answer = false;
    return;
  }
  call.idempotency->table = table;
  call.idempotency->metadata_location = answer.metadata_location;
  call.idempotency->table_uuid = answer.metadata->table_uuid;
}

IdempotentRequests::IdempotentRequests(std::shared_ptr<catalog::Catalog> catalog,
                                       IdempotencyOptions options)
    : catalog_(std::move(catalog)), options_(std::move(options)) {}

int64_t IdempotentRequests::Now() const { return options_.clock ? options_.clock() : NowMillis(); }

size_t IdempotentRequests::waiting() {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_;
}

Result<HttpResponse> IdempotentRequests::Run(RouteCall& call, const Handler& handler,
                                             const TableAnswer& answer) {
  SKADE_ASSIGN_OR_RAISE(std::string key, KeyOf(call.request));
  const std::string fingerprint = Fingerprint(call.request, call.principal);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      auto running = in_flight_.find(key);
      if (running == in_flight_.end()) break;
      if (running->second != fingerprint) return KeyReused(key);
      ++waiting_;
      finished_.wait(lock);
      --waiting_;
    }
    in_flight_.emplace(key, fingerprint);
  }
  InFlightClaim claim(&mutex_, &finished_, &in_flight_, key);

  const int64_t now = Now();
  SKADE_ASSIGN_OR_RAISE(auto recorded, catalog_->FindIdempotencyRecord(key, now));
  if (recorded) return Replay(*recorded, fingerprint, answer, call);

  catalog::IdempotencyRecord record;
  record.key = key;
  record.fingerprint = fingerprint;
  record.created_at_ms = now;
  record.expires_at_ms = now + options_.lifetime.count() * 1000;
  call.idempotency = &record;
  Result<HttpResponse> handled = handler(call);
  call.idempotency = nullptr;
  if (!handled && handled.error().kind == ErrorKind::kIdempotencyKeyUsed) {
    // Another process answered the key meanwhile, with a commit that carried
    // it; this request's commit changed nothing.
    SKADE_ASSIGN_OR_RAISE(auto earlier, catalog_->FindIdempotencyRecord(key, Now()));
    if (!earlier) return tl::unexpected(handled.error());
    return Replay(*earlier, fingerprint, answer, call);
  }
  HttpResponse response = handled ? std::move(*handled) : ErrorResponse(handled.error());
  if (!IsFinal(response, handled ? nullptr : &handled.error()) || !call.keep_answer) {
    return response;
  }

  record.status = response.status;
  if (record.metadata_location.empty()) record.body = response.body;
  auto kept = Keep(record);
  if (!kept) {
    // The request ran and its answer stands; only a retry would run it again.
    LogWarning(StrCat("Idempotency-Key ", key, ": answer not recorded: ", kept.error().message));
    return response;
  }
  if (kept->SameAnswer(record)) return response;
  if (kept->fingerprint != fingerprint) {
    // Another process took the key for another request meanwhile: a client
    // reusing keys across operations, which the spec forbids. This request
    // ran; its answer is the true one.
    LogWarning(StrCat("Idempotency-Key ", key, " was used by two different requests at once"));
    return response;
  }
  // Another process finished the same request first (one with no commit to
  // carry the record): its answer is the key's.
  return Replay(*kept, fingerprint, answer, call);
}

Result<catalog::IdempotencyRecord> IdempotentRequests::Keep(
    const catalog::IdempotencyRecord& record) {
  // A read first: a commit usually wrote the record already, and a write
  // transaction would queue behind the store's group commit for nothing.
  SKADE_ASSIGN_OR_RAISE(auto existing, catalog_->FindIdempotencyRecord(record.key, Now()));
  if (existing) return std::move(*existing);
  return catalog_->RecordIdempotency(record);
}

Result<HttpResponse> IdempotentRequests::Replay(const catalog::IdempotencyRecord& record,
                                                const std::string& fingerprint,
                                                const TableAnswer& answer, const RouteCall& call) {
  if (record.fingerprint != fingerprint) return KeyReused(record.key);
  HttpResponse response;
  if (!record.metadata_location.empty()) {
    SKADE_ASSIGN_OR_RAISE(auto table,
                          catalog_->LoadTableFromMetadata(record.table, record.metadata_location));
    if (!record.table_uuid.empty() && table.metadata->table_uuid != record.table_uuid) {
      // The file is gone and the name is another table's now: answering with
      // it would have the client take that table for its own. A commit's
      // table is gone (404 NoSuchTable); a create's or register's name is
      // taken (409: a 404 there would say the namespace is missing).
      return MakeError(
          call.identifier.name.empty() ? ErrorKind::kAlreadyExists : ErrorKind::kNotFound, "Table ",
          record.table.ToString(), " that this Idempotency-Key's request answered with (",
          record.table_uuid, ") was dropped since; the table of that name now is another one");
    }
    SKADE_ASSIGN_OR_RAISE(response, answer(table));
  } else {
    response.body = record.body;
    if (!response.body.empty()) {
      response.headers.emplace_back("Content-Type", "application/json");
    }
  }
  response.status = record.status;
  return response;
}

}  // namespace skade::rest
