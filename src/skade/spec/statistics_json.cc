// JSON forms of statistics files, partition statistics files and v3
// encryption keys (spec: "Table Statistics", "Partition Statistics",
// "Encryption Keys").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"

namespace skade::spec {

namespace {

void WriteBlobMetadata(JsonWriter& writer, const BlobMetadata& blob) {
  writer.StartObject();
  writer.Field("type", blob.type);
  writer.Field("snapshot-id", blob.source_snapshot_id);
  writer.Field("sequence-number", blob.source_snapshot_sequence_number);
  writer.Key("fields");
  writer.StartArray();
  for (int32_t field : blob.fields) writer.Int(field);
  writer.EndArray();
  if (!blob.properties.empty()) internal::WriteStringMap(writer, "properties", blob.properties);
  writer.EndObject();
}

Result<BlobMetadata> BlobMetadataFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "blob metadata"));
  BlobMetadata blob;
  SKADE_ASSIGN_OR_RAISE(blob.type, json::GetString(object, "type"));
  SKADE_ASSIGN_OR_RAISE(blob.source_snapshot_id, json::GetInt64(object, "snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(blob.source_snapshot_sequence_number,
                        json::GetInt64(object, "sequence-number"));
  SKADE_ASSIGN_OR_RAISE(blob.fields, json::GetInt32List(object, "fields"));
  SKADE_ASSIGN_OR_RAISE(blob.properties, json::GetStringMap(object, "properties"));
  return blob;
}

}  // namespace

void WriteStatisticsFile(JsonWriter& writer, const StatisticsFile& file) {
  writer.StartObject();
  writer.Field("snapshot-id", file.snapshot_id);
  writer.Field("statistics-path", file.statistics_path);
  writer.Field("file-size-in-bytes", file.file_size_in_bytes);
  writer.Field("file-footer-size-in-bytes", file.file_footer_size_in_bytes);
  if (file.key_metadata) writer.Field("key-metadata", *file.key_metadata);
  writer.Key("blob-metadata");
  writer.StartArray();
  for (const auto& blob : file.blob_metadata) WriteBlobMetadata(writer, blob);
  writer.EndArray();
  writer.EndObject();
}

Result<StatisticsFile> StatisticsFileFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "statistics file"));
  StatisticsFile file;
  SKADE_ASSIGN_OR_RAISE(file.snapshot_id, json::GetInt64(object, "snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(file.statistics_path, json::GetString(object, "statistics-path"));
  SKADE_ASSIGN_OR_RAISE(file.file_size_in_bytes, json::GetInt64(object, "file-size-in-bytes"));
  SKADE_ASSIGN_OR_RAISE(file.file_footer_size_in_bytes,
                        json::GetInt64(object, "file-footer-size-in-bytes"));
  SKADE_ASSIGN_OR_RAISE(file.key_metadata, json::GetOptionalString(object, "key-metadata"));
  SKADE_ASSIGN_OR_RAISE(auto blobs, json::GetArray(object, "blob-metadata"));
  for (auto item : blobs) {
    SKADE_ASSIGN_OR_RAISE(auto blob, BlobMetadataFromJson(item));
    file.blob_metadata.push_back(std::move(blob));
  }
  return file;
}

void WritePartitionStatisticsFile(JsonWriter& writer, const PartitionStatisticsFile& file) {
  writer.StartObject();
  writer.Field("snapshot-id", file.snapshot_id);
  writer.Field("statistics-path", file.statistics_path);
  writer.Field("file-size-in-bytes", file.file_size_in_bytes);
  writer.EndObject();
}

Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "partition statistics file"));
  PartitionStatisticsFile file;
  SKADE_ASSIGN_OR_RAISE(file.snapshot_id, json::GetInt64(object, "snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(file.statistics_path, json::GetString(object, "statistics-path"));
  SKADE_ASSIGN_OR_RAISE(file.file_size_in_bytes, json::GetInt64(object, "file-size-in-bytes"));
  return file;
}

void WriteEncryptionKey(JsonWriter& writer, const EncryptionKey& key) {
  writer.StartObject();
  writer.Field("key-id", key.key_id);
  writer.Field("encrypted-key-metadata", key.encrypted_key_metadata);
  if (key.encrypted_by_id) writer.Field("encrypted-by-id", *key.encrypted_by_id);
  if (!key.properties.empty()) internal::WriteStringMap(writer, "properties", key.properties);
  writer.EndObject();
}

Result<EncryptionKey> EncryptionKeyFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "encryption key"));
  EncryptionKey key;
  SKADE_ASSIGN_OR_RAISE(key.key_id, json::GetString(object, "key-id"));
  SKADE_ASSIGN_OR_RAISE(key.encrypted_key_metadata,
                        json::GetString(object, "encrypted-key-metadata"));
  SKADE_ASSIGN_OR_RAISE(key.encrypted_by_id, json::GetOptionalString(object, "encrypted-by-id"));
  SKADE_ASSIGN_OR_RAISE(key.properties, json::GetStringMap(object, "properties"));
  return key;
}

}  // namespace skade::spec
