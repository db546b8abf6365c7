// The Idempotency-Key on the REST routes: a retry gets the first answer and
// runs nothing; a key reused for another request is 422 and runs nothing;
// malformed keys are 400; 5xx answers are not kept; keys expire; the lifetime
// is advertised; answers survive a restart.
#include "skade/rest/idempotency.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "rest/rest_service_fixture.h"

namespace skade::rest {
namespace {

using skade::testing::kSchema;

constexpr char kKey[] = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
constexpr char kOtherKey[] = "01932c07-209c-7b5e-8f7e-3b5b9f3c1a2d";
constexpr int64_t kStart = 1'700'000'000'000;

// The catalog with counts of the calls that change it, and the means to make
// one fail or wait.
class WatchedCatalog : public catalog::Catalog {
 public:
  explicit WatchedCatalog(std::shared_ptr<catalog::Catalog> inner) : inner_(std::move(inner)) {}

  std::atomic<int> create_namespace_calls{0};
  std::atomic<int> commit_calls{0};
  /// CreateNamespace fails with this many kIo errors before it runs.
  std::atomic<int> failures_to_inject{0};
  /// If set, CreateNamespace waits for it before it runs.
  std::shared_future<void> gate;
  /// CommitTable loses to concurrent writers (retryable) this many times.
  std::atomic<int> commit_losses_to_inject{0};

  Status CreateNamespace(const catalog::Namespace& ns,
                         const catalog::Properties& properties) override {
    ++create_namespace_calls;
    if (gate.valid()) gate.wait();
    if (failures_to_inject > 0) {
      --failures_to_inject;
      return IoError("injected failure");
    }
    return inner_->CreateNamespace(ns, properties);
  }
  Result<catalog::Page<catalog::Namespace>> ListNamespaces(
      const catalog::Namespace& parent, const catalog::PageRequest& page) override {
    return inner_->ListNamespaces(parent, page);
  }
  Result<catalog::Properties> LoadNamespaceProperties(const catalog::Namespace& ns) override {
    return inner_->LoadNamespaceProperties(ns);
  }
  Result<bool> NamespaceExists(const catalog::Namespace& ns) override {
    return inner_->NamespaceExists(ns);
  }
  Status DropNamespace(const catalog::Namespace& ns) override { return inner_->DropNamespace(ns); }
  Result<catalog::UpdateNamespacePropertiesResult> UpdateNamespaceProperties(
      const catalog::Namespace& ns, const std::vector<std::string>& removals,
      const catalog::Properties& updates) override {
    return inner_->UpdateNamespaceProperties(ns, removals, updates);
  }
  Result<catalog::Page<catalog::TableIdentifier>> ListTables(
      const catalog::Namespace& ns, const catalog::PageRequest& page) override {
    return inner_->ListTables(ns, page);
  }
  Result<catalog::LoadTableResult> CreateTable(
      const catalog::Namespace& ns, const catalog::CreateTableRequest& request) override {
    return inner_->CreateTable(ns, request);
  }
  Result<catalog::LoadTableResult> LoadTable(const catalog::TableIdentifier& identifier) override {
    return inner_->LoadTable(identifier);
  }
  Result<bool> TableExists(const catalog::TableIdentifier& identifier) override {
    return inner_->TableExists(identifier);
  }
  Status DropTable(const catalog::TableIdentifier& identifier, bool purge) override {
    return inner_->DropTable(identifier, purge);
  }
  Status RenameTable(const catalog::TableIdentifier& from,
                     const catalog::TableIdentifier& to) override {
    return inner_->RenameTable(from, to);
  }
  Result<catalog::LoadTableResult> RegisterTable(const catalog::TableIdentifier& identifier,
                                                 const std::string& metadata_location,
                                                 bool overwrite,
                                                 const catalog::CommitOrigin& origin) override {
    return inner_->RegisterTable(identifier, metadata_location, overwrite, origin);
  }
  Result<catalog::LoadTableResult> CommitTable(
      const catalog::CommitTableRequest& request) override {
    ++commit_calls;
    if (commit_losses_to_inject > 0) {
      --commit_losses_to_inject;
      return MakeRetryableError(ErrorKind::kCommitFailed, "injected: changing too fast");
    }
    return inner_->CommitTable(request);
  }
  Status CommitTransaction(const std::vector<catalog::CommitTableRequest>& requests) override {
    ++commit_calls;
    return inner_->CommitTransaction(requests);
  }
  Result<std::optional<catalog::IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                          int64_t now_ms) override {
    return inner_->FindIdempotencyRecord(key, now_ms);
  }
  Result<catalog::IdempotencyRecord> RecordIdempotency(
      const catalog::IdempotencyRecord& record) override {
    return inner_->RecordIdempotency(record);
  }
  Result<catalog::LoadTableResult> LoadTableFromMetadata(
      const catalog::TableIdentifier& identifier, const std::string& metadata_location) override {
    return inner_->LoadTableFromMetadata(identifier, metadata_location);
  }
  Result<catalog::LoadTableResult> LoadTableAt(const catalog::TableIdentifier& identifier,
                                               int64_t snapshot_id) override {
    return inner_->LoadTableAt(identifier, snapshot_id);
  }
  Result<catalog::LoadTableResult> LoadTableAsOf(const catalog::TableIdentifier& identifier,
                                                 int64_t timestamp_ms) override {
    return inner_->LoadTableAsOf(identifier, timestamp_ms);
  }
  Result<std::vector<std::optional<std::string>>> ResolveMany(
      std::span<const catalog::SnapshotKey> keys) override {
    return inner_->ResolveMany(keys);
  }
  Result<std::vector<catalog::TableCommit>> TableHistory(const catalog::TableIdentifier& identifier,
                                                         uint64_t after, size_t limit) override {
    return inner_->TableHistory(identifier, after, limit);
  }

 private:
  std::shared_ptr<catalog::Catalog> inner_;
};

class IdempotencyTest : public testing::RestServiceTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(Open()); }

  // (Re)opens the service over a WatchedCatalog, with the test's clock.
  void Open(std::chrono::seconds lifetime = std::chrono::minutes(30), AuthOptions auth = {}) {
    IdempotencyOptions options;
    options.lifetime = lifetime;
    options.clock = [this] { return now_.load(); };
    OpenService(std::move(auth), std::move(options), [this](std::shared_ptr<catalog::Catalog> c) {
      watched_ = std::make_shared<WatchedCatalog>(std::move(c));
      return watched_;
    });
  }

  HttpResponse Keyed(const std::string& key, const std::string& method, const std::string& target,
                     const std::string& body = "") {
    return Call(method, target, body, {{"idempotency-key", key}});
  }

  // A commit adding snapshot `snapshot_id` on top of an empty main branch,
  // the requirement a Java or PyIceberg append sends.
  static std::string FirstAppend(int64_t snapshot_id) {
    return StrCat(
        R"({"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}],)",
        R"("updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":)", snapshot_id,
        R"(,"sequence-number":1,"timestamp-ms":1700000000000,"manifest-list":"file:///m/)",
        snapshot_id, R"(.avro","summary":{"operation":"append"}}},)",
        R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":)",
        snapshot_id, "}]}");
  }

  void CreateNamespaceAndTable() {
    ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables",
                   R"({"name":"t","schema":)" + std::string(kSchema) + "}")
                  .status,
              200);
  }

  size_t Snapshots() { return catalog_->LoadTable({{"n"}, "t"})->metadata->snapshots.size(); }

  std::atomic<int64_t> now_{kStart};
  std::shared_ptr<WatchedCatalog> watched_;
};

TEST_F(IdempotencyTest, ConfigAdvertisesTheLifetime) {
  EXPECT_EQ(*json::GetString(Body(Call("GET", "/v1/config")), "idempotency-key-lifetime"), "PT30M");
  ASSERT_NO_FATAL_FAILURE(Open(std::chrono::seconds(90)));
  EXPECT_EQ(*json::GetString(Body(Call("GET", "/v1/config")), "idempotency-key-lifetime"),
            "PT1M30S");
  // Off: not advertised (clients then send no keys), and a key is ignored.
  ASSERT_NO_FATAL_FAILURE(Open(std::chrono::seconds(0)));
  EXPECT_FALSE(json::Has(Body(Call("GET", "/v1/config")), "idempotency-key-lifetime"));
  EXPECT_EQ(Keyed("not-a-uuid", "POST", "/v1/namespaces", R"({"namespace":["a"]})").status, 200);
}

TEST_F(IdempotencyTest, DurationsInIso8601) {
  EXPECT_EQ(FormatIsoDuration(std::chrono::hours(24)), "PT24H");
  EXPECT_EQ(FormatIsoDuration(std::chrono::seconds(3661)), "PT1H1M1S");
  EXPECT_EQ(FormatIsoDuration(std::chrono::seconds(0)), "PT0S");
  EXPECT_EQ(*ParseIsoDuration("PT30M"), std::chrono::minutes(30));
  EXPECT_EQ(*ParseIsoDuration("p1dt12h"), std::chrono::hours(36));
  EXPECT_EQ(*ParseIsoDuration("PT1H30M15S"), std::chrono::seconds(5415));
  EXPECT_EQ(*ParseIsoDuration("1800"), std::chrono::minutes(30));
  EXPECT_EQ(*ParseIsoDuration("PT0S"), std::chrono::seconds(0));
  for (const char* bad : {"", "P", "PT", "30M", "PT30", "PT1M1H", "PT1.5S", "P1W", "PT-1S",
                          "P3651D", "-5", "PT30MX"}) {
    EXPECT_FALSE(ParseIsoDuration(bad)) << bad;
  }
}

TEST_F(IdempotencyTest, MalformedKeysAreBadRequestsAndRunNothing) {
  for (const char* bad :
       {"", "abc", "017f22e2-79b0-7cc3-98c4-dc0c0c07398", "017f22e2x79b0-7cc3-98c4-dc0c0c07398f",
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398g", "00000000-0000-0000-0000-000000000000"}) {
    auto response = Keyed(bad, "POST", "/v1/namespaces", R"({"namespace":["a"]})");
    EXPECT_EQ(response.status, 400) << bad;
    EXPECT_EQ(ErrorType(response), "BadRequestException");
    EXPECT_NE(response.body.find("Idempotency-Key"), std::string::npos) << response.body;
  }
  auto conflicting = Call("POST", "/v1/namespaces", R"({"namespace":["a"]})",
                          {{"idempotency-key", kKey}, {"idempotency-key", kOtherKey}});
  EXPECT_EQ(conflicting.status, 400);
  EXPECT_EQ(watched_->create_namespace_calls.load(), 0);
  // Any UUID version, any case (the spec's example is upper case); read
  // routes ignore the header.
  EXPECT_EQ(Keyed("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", "POST", "/v1/namespaces",
                  R"({"namespace":["a"]})")
                .status,
            200);
  EXPECT_EQ(Keyed("9b2a4f9e-6c1d-4e4b-9f51-0f6b7c2d8e11", "POST", "/v1/namespaces",
                  R"({"namespace":["b"]})")
                .status,
            200);
  EXPECT_EQ(Keyed("bad", "GET", "/v1/namespaces/a").status, 200);
}

// The first answer again, even after the state it came from is gone: a
// replayed create does not create again.
TEST_F(IdempotencyTest, ARetryGetsTheFirstAnswerAndRunsNothing) {
  auto first =
      Keyed(kKey, "POST", "/v1/namespaces", R"({"namespace":["a"],"properties":{"k":"v"}})");
  ASSERT_EQ(first.status, 200);
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/a").status, 204);
  auto retry =
      Keyed(kKey, "POST", "/v1/namespaces", R"({"namespace":["a"],"properties":{"k":"v"}})");
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(retry.body, first.body);
  EXPECT_EQ(watched_->create_namespace_calls.load(), 1);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/a").status, 404);

  // A final error is an answer too: it is replayed, not rerun.
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["x"]})").status, 200);
  auto conflict = Keyed(kOtherKey, "POST", "/v1/namespaces", R"({"namespace":["x"]})");
  ASSERT_EQ(conflict.status, 409);
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/x").status, 204);
  auto replayed = Keyed(kOtherKey, "POST", "/v1/namespaces", R"({"namespace":["x"]})");
  EXPECT_EQ(replayed.status, 409);
  EXPECT_EQ(ErrorType(replayed), "AlreadyExistsException");
  EXPECT_EQ(replayed.body, conflict.body);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/x").status, 404);
}

// The case the key exists for: a commit that landed but whose answer was
// lost. Retried, it must neither commit twice nor answer 409 (on which a
// client deletes the files the commit made part of the table).
TEST_F(IdempotencyTest, ARetriedCommitAddsNoSecondSnapshot) {
  ASSERT_NO_FATAL_FAILURE(CreateNamespaceAndTable());
  auto first = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  ASSERT_EQ(first.status, 200) << first.body;
  auto retry = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  EXPECT_EQ(retry.status, 200) << retry.body;
  EXPECT_EQ(retry.body, first.body);
  EXPECT_EQ(Snapshots(), 1u);
  EXPECT_EQ(watched_->commit_calls.load(), 1);
  // Without the key the same request fails its requirement.
  auto unkeyed = Call("POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  EXPECT_EQ(unkeyed.status, 409);
  EXPECT_EQ(ErrorType(unkeyed), "CommitFailedException");
}

TEST_F(IdempotencyTest, CreateRegisterAndTransactionsReplay) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  const std::string create = R"({"name":"t","schema":)" + std::string(kSchema) + "}";
  auto created = Keyed(kKey, "POST", "/v1/namespaces/n/tables", create);
  ASSERT_EQ(created.status, 200);
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/n/tables/t").status, 204);
  auto recreated = Keyed(kKey, "POST", "/v1/namespaces/n/tables", create);
  EXPECT_EQ(recreated.status, 200);
  EXPECT_EQ(recreated.body, created.body);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/t").status, 404);

  std::string location = *json::GetString(Body(created), "metadata-location");
  const std::string reg = R"({"name":"r","metadata-location":")" + location + R"("})";
  const std::string register_key = "01932c07-209c-7b5e-8f7e-000000000001";
  auto registered = Keyed(register_key, "POST", "/v1/namespaces/n/register", reg);
  ASSERT_EQ(registered.status, 200) << registered.body;
  EXPECT_EQ(Keyed(register_key, "POST", "/v1/namespaces/n/register", reg).body, registered.body);

  const std::string transaction = R"({"table-changes":[{"identifier":{"namespace":["n"],"name":"r"},
      "requirements":[],"updates":[{"action":"set-properties","updates":{"tx":"1"}}]}]})";
  const std::string transaction_key = "01932c07-209c-7b5e-8f7e-000000000002";
  ASSERT_EQ(Keyed(transaction_key, "POST", "/v1/transactions/commit", transaction).status, 204);
  ASSERT_EQ(
      Call("POST", "/v1/namespaces/n/tables/r",
           R"({"requirements":[],"updates":[{"action":"remove-properties","removals":["tx"]}]})")
          .status,
      200);
  EXPECT_EQ(Keyed(transaction_key, "POST", "/v1/transactions/commit", transaction).status, 204);
  EXPECT_EQ(catalog_->LoadTable({{"n"}, "r"})->metadata->properties.count("tx"), 0u)
      << "the replayed transaction ran again";
}

// A staged create commits nothing, and its answer may hold credentials
// vended to the request: it is not kept (the store never holds them), and a
// retry with the key runs it again.
TEST_F(IdempotencyTest, AStagedCreateIsNotKeptAndRunsAgain) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  const std::string staged =
      R"({"name":"t","stage-create":true,"schema":)" + std::string(kSchema) + "}";
  auto first = Keyed(kKey, "POST", "/v1/namespaces/n/tables", staged);
  ASSERT_EQ(first.status, 200) << first.body;
  auto kept = catalog_->FindIdempotencyRecord(kKey, now_.load());
  ASSERT_TRUE(kept) << kept.error().ToString();
  EXPECT_FALSE(kept->has_value());
  auto again = Keyed(kKey, "POST", "/v1/namespaces/n/tables", staged);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_NE(*json::GetString(*json::GetObject(Body(again), "metadata"), "table-uuid"),
            *json::GetString(*json::GetObject(Body(first), "metadata"), "table-uuid"))
      << "a replay, not a second run";
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/t").status, 404);
}

TEST_F(IdempotencyTest, AKeyReusedForAnotherRequestIsUnprocessableAndRunsNothing) {
  ASSERT_EQ(Keyed(kKey, "POST", "/v1/namespaces", R"({"namespace":["a"]})").status, 200);
  const std::vector<std::pair<std::string, std::string>> others = {
      {"POST /v1/namespaces", R"({"namespace":["b"]})"},  // another body
      {"DELETE /v1/namespaces/a", ""},                    // another route
      {"POST /v1/namespaces/a/properties", R"({"updates":{"k":"v"}})"},
  };
  for (const auto& [route, body] : others) {
    auto space = route.find(' ');
    auto response = Keyed(kKey, route.substr(0, space), route.substr(space + 1), body);
    EXPECT_EQ(response.status, 422) << route;
    EXPECT_EQ(ErrorType(response), "UnprocessableEntityException");
    EXPECT_NE(response.body.find("already used for a different request"), std::string::npos);
  }
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/b").status, 404);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/a").status, 204);
  EXPECT_TRUE(catalog_->LoadNamespaceProperties({"a"})->empty());
}

TEST_F(IdempotencyTest, AnotherPrincipalWithTheKeyIsAnotherRequest) {
  AuthOptions auth;
  auth.mode = AuthOptions::Mode::kToken;
  auth.clients = {{"one", "s1", false}, {"two", "s2", false}};
  ASSERT_NO_FATAL_FAILURE(Open(std::chrono::minutes(30), std::move(auth)));
  auto token = [&](const std::string& id, const std::string& secret) {
    auto response =
        Call("POST", "/v1/oauth/tokens",
             "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret,
             {{"content-type", "application/x-www-form-urlencoded"}});
    return "Bearer " + std::string(*json::GetString(Body(response), "access_token"));
  };
  const std::string body = R"({"namespace":["a"]})";
  auto as = [&](const std::string& bearer) {
    return Call("POST", "/v1/namespaces", body,
                {{"authorization", bearer}, {"idempotency-key", kKey}});
  };
  std::string one = token("one", "s1");
  ASSERT_EQ(as(one).status, 200);
  EXPECT_EQ(as(one).status, 200);
  EXPECT_EQ(as(token("two", "s2")).status, 422);
  EXPECT_EQ(watched_->create_namespace_calls.load(), 1);
}

TEST_F(IdempotencyTest, ServerErrorsAreNotKeptSoTheRetryRuns) {
  watched_->failures_to_inject = 1;
  const std::string body = R"({"namespace":["a"]})";
  auto failed = Keyed(kKey, "POST", "/v1/namespaces", body);
  EXPECT_EQ(failed.status, 500);
  auto retried = Keyed(kKey, "POST", "/v1/namespaces", body);
  EXPECT_EQ(retried.status, 200);
  EXPECT_EQ(watched_->create_namespace_calls.load(), 2);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/a").status, 204);

  // Nor is a commit failure marked retryable (lost to writers too fast),
  // though it is a 409.
  ASSERT_EQ(Call("POST", "/v1/namespaces/a/tables",
                 R"({"name":"t","schema":)" + std::string(kSchema) + "}")
                .status,
            200);
  watched_->commit_losses_to_inject = 1;
  const std::string commit =
      R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"x":"1"}}]})";
  EXPECT_EQ(Keyed(kOtherKey, "POST", "/v1/namespaces/a/tables/t", commit).status, 409);
  EXPECT_EQ(Keyed(kOtherKey, "POST", "/v1/namespaces/a/tables/t", commit).status, 200);
  EXPECT_EQ(watched_->commit_calls.load(), 2);
  EXPECT_EQ(catalog_->LoadTable({{"a"}, "t"})->metadata->properties.at("x"), "1");
}

// Review finding: a file where the server's own namespace directory should
// be is 400 (the path is wrong), but a state of the file system, not of the
// request: the answer was kept, and the retry got it again once the file
// system was put right.
TEST_F(IdempotencyTest, AFileSystemInTheWayIsNotKept) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["fz"]})").status, 200);
  const std::filesystem::path directory = std::filesystem::path(dir_.path()) / "fz";
  std::filesystem::remove_all(directory);
  std::ofstream(directory) << "x";
  const std::string create = R"({"name":"t","schema":)" + std::string(kSchema) + "}";
  auto refused = Keyed(kKey, "POST", "/v1/namespaces/fz/tables", create);
  EXPECT_EQ(refused.status, 400) << refused.body;
  std::filesystem::remove(directory);
  auto retried = Keyed(kKey, "POST", "/v1/namespaces/fz/tables", create);
  EXPECT_EQ(retried.status, 200) << retried.body;
}

// Two requests with one key at once: the second waits for the first, then
// gets its answer; the request runs once. A different request with the key
// does not wait: it is refused at once.
TEST_F(IdempotencyTest, ConcurrentRequestsWithOneKeyRunOnce) {
  std::promise<void> open_gate;
  watched_->gate = open_gate.get_future().share();
  const std::string body = R"({"namespace":["a"]})";
  HttpResponse first;
  HttpResponse second;
  std::thread first_thread([&] { first = Keyed(kKey, "POST", "/v1/namespaces", body); });
  while (watched_->create_namespace_calls.load() == 0) std::this_thread::yield();
  std::thread second_thread([&] { second = Keyed(kKey, "POST", "/v1/namespaces", body); });
  while (service_->idempotency().waiting() == 0) std::this_thread::yield();
  auto other = Keyed(kKey, "POST", "/v1/namespaces", R"({"namespace":["b"]})");
  EXPECT_EQ(other.status, 422);
  open_gate.set_value();
  first_thread.join();
  second_thread.join();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, first.body);
  EXPECT_EQ(watched_->create_namespace_calls.load(), 1);
}

TEST_F(IdempotencyTest, ExpiredKeysRunAgain) {
  const std::string body = R"({"namespace":["a"]})";
  ASSERT_EQ(Keyed(kKey, "POST", "/v1/namespaces", body).status, 200);
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/a").status, 204);
  now_ += 30 * 60 * 1000 - 1;
  EXPECT_EQ(Keyed(kKey, "POST", "/v1/namespaces", body).status, 200);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/a").status, 404) << "replayed within the lifetime";
  now_ += 1;
  EXPECT_EQ(Keyed(kKey, "POST", "/v1/namespaces", body).status, 200);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/a").status, 204) << "ran again once expired";
  EXPECT_EQ(watched_->create_namespace_calls.load(), 2);
}

// The answers are in the catalog store: a restarted server replays them. A
// table answer whose metadata file was cleaned up meanwhile is the table's
// current state (the spec allows a newer state).
TEST_F(IdempotencyTest, AnswersSurviveARestartAndFollowTheTableOnceTheirFileIsGone) {
  ASSERT_NO_FATAL_FAILURE(CreateNamespaceAndTable());
  auto first = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  ASSERT_EQ(first.status, 200);
  ASSERT_NO_FATAL_FAILURE(Open());
  auto after_restart = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  EXPECT_EQ(after_restart.status, 200);
  EXPECT_EQ(after_restart.body, first.body);
  EXPECT_EQ(Snapshots(), 1u);
  EXPECT_EQ(watched_->commit_calls.load(), 0);

  ASSERT_EQ(
      Call("POST", "/v1/namespaces/n/tables/t",
           R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]})")
          .status,
      200);
  std::string committed = *json::GetString(Body(first), "metadata-location");
  ASSERT_TRUE(catalog_->file_io().DeleteFile(committed));
  ASSERT_NO_FATAL_FAILURE(Open());  // and out of the metadata cache
  auto current = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  EXPECT_EQ(current.status, 200);
  EXPECT_EQ(*json::GetString(Body(current), "metadata-location"),
            catalog_->LoadTable({{"n"}, "t"})->metadata_location);
  EXPECT_EQ(Snapshots(), 1u);
}

// Once the answer's file is gone the replay answers with the table as it is
// now — but never with another table created under the name since: the
// client would take it for its own and go on committing to it.
TEST_F(IdempotencyTest, AReplayNeverAnswersWithAnotherTableOfTheSameName) {
  ASSERT_NO_FATAL_FAILURE(CreateNamespaceAndTable());
  const std::string create_u = R"({"name":"u","schema":)" + std::string(kSchema) + "}";
  const std::string kCreateKey = "01890a5d-ac96-774b-bcce-b302099a8058";
  auto created = Keyed(kCreateKey, "POST", "/v1/namespaces/n/tables", create_u);
  ASSERT_EQ(created.status, 200);
  auto committed = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  ASSERT_EQ(committed.status, 200);
  for (const auto& [name, answer] : {std::pair{"t", &committed}, std::pair{"u", &created}}) {
    ASSERT_EQ(Call("DELETE", StrCat("/v1/namespaces/n/tables/", name)).status, 204);
    ASSERT_TRUE(
        catalog_->file_io().DeleteFile(*json::GetString(Body(*answer), "metadata-location")));
  }
  ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables",
                 R"({"name":"t","schema":)" + std::string(kSchema) + "}")
                .status,
            200);
  ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables", create_u).status, 200);
  ASSERT_NO_FATAL_FAILURE(Open());  // and out of the metadata cache

  auto replayed = Keyed(kKey, "POST", "/v1/namespaces/n/tables/t", FirstAppend(1));
  EXPECT_EQ(replayed.status, 404) << replayed.body;
  EXPECT_NE(replayed.body.find("dropped since"), std::string::npos) << replayed.body;
  // A create's name is taken (a 404 there would mean "no such namespace").
  auto recreated = Keyed(kCreateKey, "POST", "/v1/namespaces/n/tables", create_u);
  EXPECT_EQ(recreated.status, 409) << recreated.body;
  EXPECT_EQ(Snapshots(), 0u);
  EXPECT_EQ(watched_->commit_calls.load(), 0);
}

}  // namespace
}  // namespace skade::rest
