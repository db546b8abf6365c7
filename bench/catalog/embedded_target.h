// The skade-embedded target: EmbeddedCatalog through its C++ API, in-process.
// Sessions share the one catalog (it is thread-safe).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/catalog_target.h"
#include "skade/catalog/embedded_catalog.h"

namespace skade::bench {

class EmbeddedTarget : public CatalogTarget {
 public:
  /// Opens the catalog of `warehouse`. `group_commit` empty keeps the
  /// catalog's default.
  static Result<std::unique_ptr<EmbeddedTarget>> Open(const std::string& warehouse,
                                                      store::Durability durability,
                                                      std::optional<bool> group_commit);

  Result<std::unique_ptr<CatalogSession>> NewSession() override;
  std::string name() const override { return "skade-embedded"; }
  std::string durability() const override;
  std::string group_commit() const override { return group_commit_; }
  std::optional<uint64_t> store_transactions() const override;
  std::string append_notes() const override {
    return "fast-append-shaped commit, no data files (tests/testing/fast_append.h: the catalog "
           "never reads manifest lists); load + commit per op, retried at once on conflict";
  }

 private:
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  std::string group_commit_;
};

}  // namespace skade::bench
