#include "catalog/embedded_target.h"

#include "common/bench_schema.h"
#include "testing/fast_append.h"

namespace skade::bench {

namespace {

class EmbeddedSession : public CatalogSession {
 public:
  explicit EmbeddedSession(std::shared_ptr<catalog::EmbeddedCatalog> catalog)
      : catalog_(std::move(catalog)) {}

  Status CreateNamespace(const spec::Namespace& ns) override {
    return catalog_->CreateNamespace(ns, {});
  }
  Status CreateTable(const spec::TableIdentifier& identifier) override {
    catalog::CreateTableRequest request;
    request.name = identifier.name;
    request.schema = BenchSchema();
    return catalog_->CreateTable(identifier.ns, request).map([](auto&&) {});
  }
  Status LoadTable(const spec::TableIdentifier& identifier) override {
    return catalog_->LoadTable(identifier).map([](auto&&) {});
  }
  Result<bool> TableExists(const spec::TableIdentifier& identifier) override {
    return catalog_->TableExists(identifier);
  }
  Status ListTables(const spec::Namespace& ns) override {
    return catalog_->ListTables(ns).map([](auto&&) {});
  }
  Status ListNamespaces() override {
    return catalog_->ListNamespaces({}).map([](auto&&) {});
  }
  Status ResolveMetadata(const spec::TableIdentifier& identifier) override {
    return catalog_->ResolveMetadata(identifier).map([](auto&&) {});
  }
  Status Append(const spec::TableIdentifier& identifier, AppendStats* stats) override {
    int retries = 0;
    auto appended = testing::FastAppend(*catalog_, identifier, &retries);
    stats->conflicts += retries;
    stats->retries += retries;
    return appended.map([](int64_t) {});
  }

 private:
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
};

}  // namespace

std::optional<uint64_t> EmbeddedTarget::store_transactions() const {
  auto stats = catalog_->store().Stats();
  if (!stats) return std::nullopt;
  return stats->group_commit_batch_size.count;
}

Result<std::unique_ptr<EmbeddedTarget>> EmbeddedTarget::Open(const std::string& warehouse,
                                                             store::Durability durability,
                                                             std::optional<bool> group_commit) {
  catalog::EmbeddedCatalogOptions options;
  options.warehouse = warehouse;
  options.durability = durability;
  std::unique_ptr<EmbeddedTarget> target(new EmbeddedTarget());
  if (group_commit) {
    target->group_commit_ = *group_commit ? "on" : "off";
    options.group_commit = *group_commit;
  }
  SKADE_ASSIGN_OR_RAISE(target->catalog_, catalog::EmbeddedCatalog::Open(options));
  return target;
}

Result<std::unique_ptr<CatalogSession>> EmbeddedTarget::NewSession() {
  return std::make_unique<EmbeddedSession>(catalog_);
}

std::string EmbeddedTarget::durability() const {
  return std::string(store::DurabilityName(catalog_->durability()));
}

}  // namespace skade::bench
