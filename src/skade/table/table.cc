#include "skade/table/table.h"

namespace skade::table {

Result<Table> Table::Load(std::shared_ptr<catalog::Catalog> catalog, std::shared_ptr<io::FileIO> io,
                          spec::TableIdentifier identifier, bool durable_files) {
  SKADE_ASSIGN_OR_RAISE(catalog::LoadTableResult loaded, catalog->LoadTable(identifier));
  return Table(std::move(identifier), std::move(loaded), std::move(catalog), std::move(io),
               durable_files);
}

Result<Table> Table::Refresh() const {
  SKADE_ASSIGN_OR_RAISE(catalog::LoadTableResult loaded, catalog_->LoadTable(identifier_));
  return WithVersion(std::move(loaded));
}

}  // namespace skade::table
