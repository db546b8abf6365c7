// Table: a handle on one version of an Iceberg table in a catalog — the
// starting point of every write (FastAppend, OverwriteFiles, DeleteFiles,
// Transaction).
//
// A Table is a value: the identifier, the metadata (shared, immutable), its
// location, and shared pointers to the catalog and to the FileIO that table
// files (manifests, data) are written through. Making or copying one is O(1)
// — no cache of handles is needed. A Table never changes: a commit returns a
// new Table for the new version, and Refresh() loads the current one.
// Thread-safe (immutable); the catalog and FileIO must be thread-safe.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "skade/catalog/catalog.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_identifier.h"
#include "skade/spec/table_metadata.h"
#include "skade/table/written_manifest_list.h"
#include "skade/util/result.h"

namespace skade::table {

class Table {
 public:
  /// `durable_files`: manifests and manifest lists written for this table
  /// are fsynced before a commit references them (set it when the catalog
  /// commits durably).
  Table(spec::TableIdentifier identifier, catalog::LoadTableResult loaded,
        std::shared_ptr<catalog::Catalog> catalog, std::shared_ptr<io::FileIO> io,
        bool durable_files = true)
      : identifier_(std::move(identifier)),
        metadata_location_(std::move(loaded.metadata_location)),
        metadata_(std::move(loaded.metadata)),
        catalog_(std::move(catalog)),
        io_(std::move(io)),
        durable_files_(durable_files) {}

  /// Loads the current version of `identifier`. Errors as Catalog::LoadTable.
  static Result<Table> Load(std::shared_ptr<catalog::Catalog> catalog,
                            std::shared_ptr<io::FileIO> io, spec::TableIdentifier identifier,
                            bool durable_files = true);

  /// The current version of this table, from the catalog.
  Result<Table> Refresh() const;

  /// This handle with `loaded` as its version (same catalog and FileIO).
  Table WithVersion(catalog::LoadTableResult loaded) const {
    Table table(identifier_, std::move(loaded), catalog_, io_, durable_files_);
    table.written_list_ = written_list_;
    return table;
  }

  /// This handle remembering `list`, a manifest list this process wrote for
  /// the table (see written_manifest_list.h); used while it is the list of
  /// main's snapshot.
  Table WithWrittenList(std::shared_ptr<const WrittenManifestList> list) const {
    Table table = *this;
    table.written_list_ = std::move(list);
    return table;
  }
  /// The last manifest list remembered, or null.
  const WrittenManifestList* written_list() const { return written_list_.get(); }
  const std::shared_ptr<const WrittenManifestList>& written_list_ptr() const {
    return written_list_;
  }

  const spec::TableIdentifier& identifier() const { return identifier_; }
  const std::string& metadata_location() const { return metadata_location_; }
  const spec::TableMetadata& metadata() const { return *metadata_; }
  const spec::TableMetadataPtr& metadata_ptr() const { return metadata_; }
  catalog::Catalog& catalog() const { return *catalog_; }
  io::FileIO& io() const { return *io_; }
  const std::shared_ptr<io::FileIO>& io_ptr() const { return io_; }
  bool durable_files() const { return durable_files_; }

 private:
  spec::TableIdentifier identifier_;
  std::string metadata_location_;
  spec::TableMetadataPtr metadata_;
  std::shared_ptr<catalog::Catalog> catalog_;
  std::shared_ptr<io::FileIO> io_;
  bool durable_files_;
  std::shared_ptr<const WrittenManifestList> written_list_;
};

}  // namespace skade::table
