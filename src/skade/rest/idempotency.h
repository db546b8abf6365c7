// The Iceberg REST Idempotency-Key: a client that retries a mutation with the
// key of its first attempt gets that attempt's answer, and the mutation runs
// once (docs/REST-CHECKLIST.md §2 "Idempotency-Key", the README's "Idempotency").
//
// A call of a mutating route with the header goes through
// IdempotentRequests::Run:
// - The key must be a UUID in its 36-character text form, any version and
//   case (the spec asks for UUIDv7, which Iceberg Java 1.11+ sends; the
//   version is not checked, since nothing here reads a key's timestamp and a
//   version-4 key is as unique) and not the nil UUID; else 400.
// - The request's fingerprint is a 128-bit XXH3 hash of its method, target
//   (path and query), principal and body. A key met again with another
//   fingerprint is 422 UnprocessableEntityException, and the request does not
//   run (the spec forbids reusing a key for another operation).
// - A live record of the key (kept by the catalog: shared by every process on
//   the warehouse, kept across restarts) is replayed: its status and body,
//   or for a table answer the table as the recorded metadata file describes
//   it (its current state if that file is gone).
// - In this process a request whose key's first request is still running
//   waits for it to finish, then replays its answer (or, if that was not
//   recorded, runs itself).
// - Otherwise the handler runs with RouteCall::idempotency set. Commits
//   (commitTable, createTable, commitTransaction) carry the record into the
//   catalog, which writes it in the same store transaction as the pointer
//   swap; every other final answer is recorded once the handler returned.
//   Final are 2xx and the deterministic 4xx: not 5xx, not 401, 403, 408,
//   419 or 429, and no error marked retryable.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "skade/catalog/catalog.h"
#include "skade/rest/http/http_message.h"
#include "skade/rest/routes.h"
#include "skade/util/result.h"

namespace skade::rest {

struct IdempotencyOptions {
  /// How long an answer is kept and replayed after it was given, advertised
  /// by GET /v1/config as `idempotency-key-lifetime`. Zero turns the feature
  /// off: the header is ignored and nothing is advertised.
  std::chrono::seconds lifetime = std::chrono::minutes(30);
  /// Wall-clock Unix milliseconds; NowMillis() when empty. Tests inject one.
  std::function<int64_t()> clock;
};

/// An ISO-8601 duration of whole seconds in hours, minutes and seconds, as
/// the config advertises it: "PT30M", "PT1M30S", "PT24H", "PT0S".
std::string FormatIsoDuration(std::chrono::seconds duration);
/// Parses an ISO-8601 duration of whole days, hours, minutes and seconds
/// ("PT30M", "P1DT12H", "pt90s"), or a plain number of seconds ("1800").
/// At most 3650 days. kInvalidArgument otherwise.
Result<std::chrono::seconds> ParseIsoDuration(std::string_view text);

/// Whether `request` carries an Idempotency-Key header (even an empty one).
bool HasIdempotencyKey(const HttpRequest& request);

/// For a handler whose commit carries the call's record: the record with
/// the status the handler answers if the commit succeeds; nullopt for a call
/// without a key.
std::optional<catalog::IdempotencyRecord> CommitIdempotency(const RouteCall& call, int status);
/// For a handler that answers with `table` as the metadata file at
/// `metadata_location` describes it: the record names the file instead of
/// keeping the body, and the replay renders it for the retrying request. A
/// staged table has no file (its location is empty): its answer is not kept
/// at all — it may hold credentials vended to the request, which the store
/// must not keep, and it commits nothing, so a retry runs it again.
void NoteTableAnswer(RouteCall& call, const spec::TableIdentifier& table,
                     const catalog::LoadTableResult& answer);

class IdempotentRequests {
 public:
  using Handler = std::function<Result<HttpResponse>(RouteCall&)>;
  /// How the route answers with a table (a LoadTableResult, or a commit's
  /// CommitTableResponse), for replays of table answers.
  using TableAnswer = std::function<Result<HttpResponse>(const catalog::LoadTableResult&)>;

  IdempotentRequests(std::shared_ptr<catalog::Catalog> catalog, IdempotencyOptions options);

  bool enabled() const { return options_.lifetime.count() > 0; }
  const IdempotencyOptions& options() const { return options_; }

  /// Answers `call` (of a mutating route, with the header) as the file
  /// comment says: by replaying the key's recorded answer, or by running
  /// `handler` once and recording its answer. Errors: kInvalidArgument (a
  /// malformed key), kUnprocessableEntity (a key used for another request),
  /// the catalog's (a record that cannot be read), and the handler's that are
  /// not final.
  Result<HttpResponse> Run(RouteCall& call, const Handler& handler, const TableAnswer& answer);

  /// Requests now waiting for an earlier request with their key (for tests:
  /// they wait without a timeout).
  size_t waiting();

 private:
  int64_t Now() const;
  /// `record`'s answer to `call`, a request with `fingerprint`: 422 if it is
  /// another request's.
  Result<HttpResponse> Replay(const catalog::IdempotencyRecord& record,
                              const std::string& fingerprint, const TableAnswer& answer,
                              const RouteCall& call);
  /// Keeps `record` unless the catalog has one for its key (written with a
  /// commit, or by another process); returns the one it has afterwards.
  Result<catalog::IdempotencyRecord> Keep(const catalog::IdempotencyRecord& record);

  const std::shared_ptr<catalog::Catalog> catalog_;
  const IdempotencyOptions options_;

  std::mutex mutex_;
  std::condition_variable finished_;              // a key left in_flight_
  std::map<std::string, std::string> in_flight_;  // key -> fingerprint; under mutex_
  size_t waiting_ = 0;                            // under mutex_
};

}  // namespace skade::rest
