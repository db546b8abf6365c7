// The table updates that stop partitioning a table by a column and then drop
// the column (both legal; its older spec's manifests still hold its values):
// what PyIceberg's update_spec().remove_field() and update_schema()
// .delete_column() commit.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "skade/spec/table_metadata.h"
#include "skade/spec/table_update.h"

namespace skade::testing {

/// An unpartitioned spec (id 1) made the default, and a schema without the
/// field `field_id` made current.
inline std::vector<spec::TableUpdate> DropPartitionColumn(const spec::TableMetadata& metadata,
                                                          int32_t field_id) {
  auto unpartitioned = std::make_shared<spec::PartitionSpec>();
  unpartitioned->spec_id = 1;
  std::vector<spec::NestedField> fields;
  for (const auto& field : metadata.Schema()->fields()) {
    if (field.id != field_id) fields.push_back(field);
  }
  std::vector<spec::TableUpdate> updates;
  updates.push_back(spec::AddPartitionSpec{unpartitioned});
  updates.push_back(spec::SetDefaultSpec{-1});
  updates.push_back(
      spec::AddSchema{std::make_shared<const spec::Schema>(1, fields), metadata.last_column_id});
  updates.push_back(spec::SetCurrentSchema{-1});
  return updates;
}

}  // namespace skade::testing
