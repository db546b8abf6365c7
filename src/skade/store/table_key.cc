#include "skade/store/table_key.h"

#include "skade/util/strings.h"

namespace skade::store {

std::string NamespaceKey(const spec::Namespace& ns) {
  return Join(ns, std::string_view(&kNamespaceSeparator, 1));
}

spec::Namespace NamespaceFromKey(std::string_view key) { return Split(key, kNamespaceSeparator); }

std::string TablePrefix(const spec::Namespace& ns) {
  std::string prefix = NamespaceKey(ns);
  prefix.push_back(kTableSeparator);
  return prefix;
}

std::string TableKey(const spec::TableIdentifier& identifier) {
  std::string key;
  AppendTableKey(&key, identifier);
  return key;
}

void AppendTableKey(std::string* out, const spec::TableIdentifier& identifier) {
  for (size_t i = 0; i < identifier.ns.size(); ++i) {
    if (i != 0) out->push_back(kNamespaceSeparator);
    out->append(identifier.ns[i]);
  }
  out->push_back(kTableSeparator);
  out->append(identifier.name);
}

spec::TableIdentifier TableIdentifierFromKey(std::string_view key) {
  size_t split = key.find(kTableSeparator);
  return spec::TableIdentifier{NamespaceFromKey(key.substr(0, split)),
                               std::string(key.substr(split + 1))};
}

}  // namespace skade::store
