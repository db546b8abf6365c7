#include "skade/spec/partition_spec.h"

#include <absl/container/flat_hash_set.h>

#include "skade/util/strings.h"

namespace skade::spec {

bool PartitionSpec::IsUnpartitioned() const {
  for (const auto& field : fields) {
    if (field.transform.kind() != TransformKind::kVoid) return false;
  }
  return true;
}

int32_t PartitionSpec::LastAssignedFieldId() const {
  int32_t last = kPartitionDataIdStart - 1;
  for (const auto& field : fields) last = std::max(last, field.field_id);
  return last;
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  return PartitionType(schema, {});
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema,
                                             const std::vector<SchemaPtr>& earlier) const {
  std::vector<NestedField> out;
  for (const auto& field : fields) {
    const NestedField* source = schema.FindFieldById(field.source_id);
    for (auto it = earlier.rbegin(); source == nullptr && it != earlier.rend(); ++it) {
      if (*it) source = (*it)->FindFieldById(field.source_id);
    }
    TypePtr type = Type::Unknown();
    if (source != nullptr) {
      SKADE_ASSIGN_OR_RAISE(type, field.transform.ResultType(source->type));
    }
    out.push_back(NestedField{field.field_id, field.name, type, false, {}, {}, {}});
  }
  return Type::Struct(std::move(out));
}

bool PartitionSpec::CompatibleWith(const PartitionSpec& other) const {
  if (fields.size() != other.fields.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const PartitionField& x = fields[i];
    const PartitionField& y = other.fields[i];
    if (x.source_id != y.source_id || x.source_ids != y.source_ids || x.name != y.name ||
        x.transform != y.transform) {
      return false;
    }
  }
  return true;
}

bool PartitionSpec::HasSequentialIds() const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id != kPartitionDataIdStart + static_cast<int32_t>(i)) return false;
  }
  return true;
}

namespace {

// Partition sources may only be nested in structs, never in lists or maps:
// a row would have many values, or none, for one partition field.
Status CheckStructParents(const Schema& schema, int32_t source_id) {
  for (int32_t parent = schema.FindParentId(source_id); parent != -1;
       parent = schema.FindParentId(parent)) {
    const NestedField* field = schema.FindFieldById(parent);
    if (field->type->id() != TypeId::kStruct) {
      return InvalidArgument("Invalid partition field parent: ", field->type->ToString());
    }
  }
  return OkStatus();
}

}  // namespace

Status PartitionSpec::CheckCompatible(const Schema& schema) const {
  for (const auto& field : fields) {
    if (field.transform.kind() == TransformKind::kVoid) continue;
    // source-ids is for transforms of several columns, which only unknown
    // (future) transforms may be.
    if (field.transform.kind() != TransformKind::kUnknown && field.source_ids.size() > 1) {
      return InvalidArgument("Transform ", field.transform.ToString(), " of partition field ",
                             field.name, " takes one source column, not ", field.source_ids.size());
    }
    for (int32_t source_id : field.AllSourceIds()) {
      const NestedField* source = schema.FindFieldById(source_id);
      if (source == nullptr) {
        return InvalidArgument("Cannot find source column for partition field: ", field.name);
      }
      // A variant is no primitive (Iceberg Java's VariantType is not).
      if (!source->type->is_primitive() || source->type->id() == TypeId::kVariant) {
        return InvalidArgument("Cannot partition by non-primitive source field: ",
                               source->type->ToString());
      }
      if (!field.transform.CanTransform(*source->type)) {
        return InvalidArgument("Invalid source type ", source->type->ToString(),
                               " for transform: ", field.transform.ToString());
      }
      SKADE_RETURN_NOT_OK(CheckStructParents(schema, source_id));
    }
  }
  return OkStatus();
}

Status PartitionSpec::Validate(const Schema& schema) const {
  absl::flat_hash_set<std::string> names;
  absl::flat_hash_set<int32_t> field_ids;
  for (const auto& field : fields) {
    if (field.name.empty()) return InvalidArgument("Cannot use empty partition name");
    if (!names.insert(field.name).second) {
      return InvalidArgument("Cannot use partition name more than once: ", field.name);
    }
    if (!field_ids.insert(field.field_id).second) {
      return InvalidArgument("Cannot use partition field id more than once: ", field.field_id);
    }
    // A partition named after another column would shadow it in queries.
    const NestedField* same_name = schema.FindFieldByName(field.name);
    if (same_name == nullptr || field.transform.kind() == TransformKind::kVoid) continue;
    if (field.transform.kind() != TransformKind::kIdentity) {
      return InvalidArgument("Cannot create partition from name that exists in schema: ",
                             field.name);
    }
    if (same_name->id != field.source_id) {
      return InvalidArgument("Cannot create identity partition from name that exists in schema ",
                             "but is sourced from a different field: ", field.name);
    }
  }
  return CheckCompatible(schema);
}

std::shared_ptr<const PartitionSpec> PartitionSpec::Unpartitioned() {
  static const auto kSpec = std::make_shared<const PartitionSpec>();
  return kSpec;
}

std::string DefaultPartitionFieldName(const Transform& transform, const std::string& column) {
  switch (transform.kind()) {
    case TransformKind::kIdentity:
      return column;
    case TransformKind::kBucket:
      return column + "_bucket";
    case TransformKind::kTruncate:
      return column + "_trunc";
    case TransformKind::kYear:
      return column + "_year";
    case TransformKind::kMonth:
      return column + "_month";
    case TransformKind::kDay:
      return column + "_day";
    case TransformKind::kHour:
      return column + "_hour";
    case TransformKind::kVoid:
      return column + "_null";
    case TransformKind::kUnknown:
      break;
  }
  return column;
}

}  // namespace skade::spec
