// StorePage: one page of a CatalogStore listing.
#pragma once

#include <string>
#include <vector>

namespace skade::store {

template <typename T>
struct StorePage {
  std::vector<T> items;
  /// Opaque, and meaningful only to the store that issued it; empty on the
  /// last page.
  std::string next_page_token;
};

}  // namespace skade::store
