// The skade-embedded target: EmbeddedCatalog through its C++ API, in-process.
// Sessions share the one catalog (it is thread-safe).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/catalog_target.h"
#include "skade/catalog/embedded_catalog.h"

namespace skade::bench {

/// Sets EmbeddedCatalogOptions::group_commit when this build has the option
/// (the group-commit work adds it); false when it does not, so the harness
/// measures the same build both ways and says so.
template <typename Options>
bool SetGroupCommit(Options& options, bool enabled) {
  if constexpr (requires { options.group_commit = enabled; }) {
    options.group_commit = enabled;
    return true;
  } else {
    return false;
  }
}

/// EmbeddedCatalog::ResolveMetadata when this build has it (the read-path
/// work adds it); kUnsupported when it does not.
template <typename Catalog>
Status ResolveMetadataIfPresent(Catalog& catalog, const spec::TableIdentifier& identifier) {
  if constexpr (requires { catalog.ResolveMetadata(identifier); }) {
    return catalog.ResolveMetadata(identifier).map([](auto&&) {});
  } else {
    return MakeError(ErrorKind::kUnsupported, "this build has no ResolveMetadata");
  }
}

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
  std::string write_notes() const override { return write_notes_; }

 private:
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  std::string group_commit_;
  std::string write_notes_;
};

}  // namespace skade::bench
