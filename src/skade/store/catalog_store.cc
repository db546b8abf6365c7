#include "skade/store/catalog_store.h"

#include <cctype>
#include <mutex>

#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "skade/util/strings.h"

namespace skade::store {

namespace {

// The kinds of store by location scheme: the product's own, then those
// added by RegisterScheme(). A new kind of store adds its opener here.
struct Registry {
  std::mutex mutex;
  std::map<std::string, CatalogStore::Opener, std::less<>> openers = {
      {"lmdb", &lmdb::OpenLmdbCatalogStore},
  };
};

Registry& GetRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

// The scheme of "<scheme>:<rest>" (RFC 3986 letters), or empty for a path.
std::string_view SchemeOf(std::string_view location) {
  size_t colon = location.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  std::string_view scheme = location.substr(0, colon);
  if (!std::isalpha(static_cast<unsigned char>(scheme.front()))) return {};
  for (char c : scheme) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return {};
  }
  return scheme;
}

}  // namespace

Result<std::unique_ptr<CatalogStore>> CatalogStore::Open(const std::string& location,
                                                         const CatalogStoreOptions& options) {
  std::string_view scheme = SchemeOf(location);
  if (scheme.empty()) return lmdb::OpenLmdbCatalogStore(location, options);
  Opener opener;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto it = registry.openers.find(scheme);
    if (it == registry.openers.end()) {
      return InvalidArgument("Unknown catalog store scheme '", scheme, "' in ", location);
    }
    opener = it->second;
  }
  return opener(location, options);
}

std::vector<double> GroupCommitBatchBounds() {
  return metrics::Histogram::ExponentialBounds(1, 2, 9);
}

Result<StoreStats> CatalogStore::Stats() {
  return MakeError(ErrorKind::kUnsupported, "This kind of catalog store has no statistics");
}

Result<std::string> CatalogStore::Backup(const std::string& /*directory*/) {
  return MakeError(ErrorKind::kUnsupported, "This kind of catalog store has no backup");
}

Result<bool> CatalogStore::InUse(const std::string& location) {
  std::string_view scheme = SchemeOf(location);
  std::string_view path = location;
  if (!scheme.empty() && !ConsumePrefix(&path, "lmdb:")) {
    return MakeError(ErrorKind::kUnsupported, "Cannot tell whether the catalog store ", location,
                     " is in use");
  }
  return lmdb::LmdbEnv::InUse(std::string(path));
}

Status CatalogStore::RegisterScheme(const std::string& scheme, Opener opener) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (!registry.openers.emplace(scheme, std::move(opener)).second) {
    return MakeError(ErrorKind::kAlreadyExists, "Catalog store scheme '", scheme,
                     "' is already registered");
  }
  return OkStatus();
}

}  // namespace skade::store
