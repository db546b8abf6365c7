#include <roaring/roaring.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_literal.h"
#include "skade/read/delete_cache_internal.h"
#include "skade/read/file_projection_internal.h"

namespace skade::read {

namespace {

// The reserved field ids of position delete files (spec: "Position Delete
// Files").
constexpr int32_t kDeleteFilePathId = 2147483546;
constexpr int32_t kDeletePosId = 2147483545;

constexpr uint8_t kDeletionVectorMagic[4] = {0xD1, 0xD3, 0x39, 0x64};

using Columns = std::vector<std::shared_ptr<arrow::Array>>;

// Every row of `location`, columns `ids` of `schema`, batch by batch.
Status ReadWholeFile(io::FileIO& io, const std::string& location, const spec::Schema& schema,
                     const std::vector<int32_t>& ids, const NameMapping* mapping,
                     const ParquetReadOptions& options,
                     const std::function<Status(const Columns&, int64_t rows)>& consume) {
  SKADE_ASSIGN_OR_RAISE(auto file, ParquetFile::Open(io, location, options, mapping));
  SKADE_ASSIGN_OR_RAISE(auto projection,
                        FileProjection::Make(*file->schema(), schema, ids, {}, location));
  for (int rg = 0; rg < file->num_row_groups(); ++rg) {
    SKADE_ASSIGN_OR_RAISE(auto batches, file->ReadRowGroup(rg, projection.file_fields()));
    for (;;) {
      std::shared_ptr<arrow::RecordBatch> batch;
      SKADE_RETURN_NOT_OK(data::CatchArrowExceptions(
          location, [&] { return data::FromArrowStatus(batches->ReadNext(&batch), location); }));
      if (batch == nullptr) break;
      SKADE_ASSIGN_OR_RAISE(Columns columns, projection.Convert(batch.get(), batch->num_rows()));
      SKADE_RETURN_NOT_OK(consume(columns, batch->num_rows()));
    }
  }
  return OkStatus();
}

uint32_t BigEndian32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

// The positions of a portable 64-bit roaring bitmap (a count, then per
// 32-bit bitmap its key, the high half of the positions, and the bitmap in
// the portable 32-bit format).
Status ReadRoaring64(const uint8_t* bytes, size_t size, const std::string& location,
                     std::vector<int64_t>* out) {
  auto corrupt = [&](std::string_view what) {
    return Corruption("Deletion vector in ", location, ": ", what);
  };
  if (size < 8) return corrupt("truncated bitmap count");
  uint64_t count;
  std::memcpy(&count, bytes, 8);
  size_t at = 8;
  if (count > (size - at) / 4) return corrupt("bitmap count larger than the blob");
  for (uint64_t b = 0; b < count; ++b) {
    if (size - at < 4) return corrupt("truncated bitmap key");
    uint32_t key;
    std::memcpy(&key, bytes + at, 4);
    at += 4;
    const char* start = reinterpret_cast<const char*>(bytes + at);
    size_t length = roaring_bitmap_portable_deserialize_size(start, size - at);
    if (length == 0) return corrupt("invalid 32-bit bitmap");
    roaring_bitmap_t* bitmap = roaring_bitmap_portable_deserialize_safe(start, length);
    if (bitmap == nullptr) return corrupt("invalid 32-bit bitmap");
    at += length;
    uint64_t cardinality = roaring_bitmap_get_cardinality(bitmap);
    std::vector<uint32_t> values(cardinality);
    roaring_bitmap_to_uint32_array(bitmap, values.data());
    roaring_bitmap_free(bitmap);
    if (key > INT32_MAX) return corrupt("position out of range");
    for (uint32_t value : values) {
      out->push_back(static_cast<int64_t>((uint64_t{key} << 32) | value));
    }
  }
  if (at != size) return corrupt("bytes after the bitmap");
  return OkStatus();
}

}  // namespace

Status AppendEqualityKey(const std::vector<std::shared_ptr<arrow::Array>>& columns,
                         const std::vector<spec::TypePtr>& types, int64_t row, std::string* key) {
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c]->IsNull(row)) {
      key->push_back('\0');
      continue;
    }
    SKADE_ASSIGN_OR_RAISE(spec::Literal value, data::LiteralFromArrow(*columns[c], row, types[c]));
    std::string bytes = value.ToBytes();
    uint32_t length = static_cast<uint32_t>(bytes.size());
    key->push_back('\1');
    key->append(reinterpret_cast<const char*>(&length), sizeof(length));
    key->append(bytes);
  }
  return OkStatus();
}

template <typename T, typename Load>
Result<std::shared_ptr<const T>> DeleteCache::Cached(
    std::map<std::string, std::shared_future<Result<std::shared_ptr<const T>>>>& cache,
    const std::string& key, Load load) {
  std::promise<Result<std::shared_ptr<const T>>> promise;
  std::shared_future<Result<std::shared_ptr<const T>>> future;
  bool loads = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = cache.emplace(key, promise.get_future().share());
    future = it->second;
    loads = inserted;
  }
  if (loads) {
    // Waiters must never be left without a value.
    try {
      promise.set_value(load());
    } catch (const std::exception& e) {
      promise.set_value(IoError("Cannot read delete file ", key, ": ", e.what()));
    }
  }
  return future.get();
}

Result<std::vector<int64_t>> DeleteCache::DeletedPositions(
    const std::string& data_file_path, const std::vector<scan::ScanDelete>& deletes) {
  std::vector<int64_t> positions;
  for (const auto& del : deletes) {
    if (del.file.content != spec::DataFileContent::kPositionDeletes) continue;
    if (del.file.file_format == spec::FileFormat::kPuffin) {
      SKADE_ASSIGN_OR_RAISE(auto vector, LoadDeletionVector(del.file));
      positions.insert(positions.end(), vector.begin(), vector.end());
      continue;
    }
    if (del.file.file_format != spec::FileFormat::kParquet) {
      return Unsupported("Position delete file ", del.file.file_path, " is not Parquet or Puffin");
    }
    SKADE_ASSIGN_OR_RAISE(auto by_file,
                          Cached<PositionsByFile>(position_files_, del.file.file_path,
                                                  [&] { return LoadPositionFile(del.file); }));
    auto it = by_file->find(data_file_path);
    if (it != by_file->end())
      positions.insert(positions.end(), it->second.begin(), it->second.end());
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

Result<std::shared_ptr<const DeleteCache::PositionsByFile>> DeleteCache::LoadPositionFile(
    const spec::DataFile& file) {
  static const spec::Schema kSchema(
      0, {spec::NestedField{kDeleteFilePathId, "file_path", spec::Type::String(), true},
          spec::NestedField{kDeletePosId, "pos", spec::Type::Long(), true}});
  auto positions = std::make_shared<PositionsByFile>();
  SKADE_RETURN_NOT_OK(ReadWholeFile(
      io_, file.file_path, kSchema, {kDeleteFilePathId, kDeletePosId}, nullptr, options_,
      [&](const Columns& columns, int64_t rows) -> Status {
        const auto& paths = static_cast<const arrow::StringArray&>(*columns[0]);
        const auto& pos = static_cast<const arrow::Int64Array&>(*columns[1]);
        std::vector<int64_t>* current = nullptr;
        std::string_view current_path;
        for (int64_t i = 0; i < rows; ++i) {
          if (paths.IsNull(i) || pos.IsNull(i)) {
            return Corruption("Position delete file ", file.file_path, " has a null in row ", i);
          }
          std::string_view path = paths.GetView(i);
          if (current == nullptr || path != current_path) {
            current = &(*positions)[std::string(path)];
            current_path = path;
          }
          current->push_back(pos.Value(i));
        }
        return OkStatus();
      }));
  for (auto& [path, list] : *positions) std::sort(list.begin(), list.end());
  return std::shared_ptr<const PositionsByFile>(std::move(positions));
}

Result<std::vector<int64_t>> DeleteCache::LoadDeletionVector(const spec::DataFile& file) {
  if (!file.content_offset || !file.content_size_in_bytes) {
    return Corruption("Deletion vector ", file.file_path,
                      " has no content_offset / content_size_in_bytes");
  }
  int64_t offset = *file.content_offset;
  int64_t size = *file.content_size_in_bytes;
  if (offset < 0 || size < 12 || size > (int64_t{1} << 31)) {
    return Corruption("Deletion vector in ", file.file_path, " has an invalid blob range ", offset,
                      "+", size);
  }
  SKADE_ASSIGN_OR_RAISE(auto input, io_.NewInputFile(file.file_path));
  // Checked before allocating: a manifest's size is anyone's number.
  if (offset > input->Size() || size > input->Size() - offset) {
    return Corruption("Deletion vector blob ", offset, "+", size, " lies past the end of ",
                      file.file_path, " (", input->Size(), " bytes)");
  }
  std::string blob(static_cast<size_t>(size), '\0');
  SKADE_ASSIGN_OR_RAISE(int64_t read, input->ReadAt(offset, size, blob.data()));
  if (read != size) {
    return Corruption("Deletion vector blob ", offset, "+", size, " lies past the end of ",
                      file.file_path);
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(blob.data());
  uint32_t length = BigEndian32(bytes);  // of the magic and the bitmap
  if (int64_t{length} + 8 != size) {
    return Corruption("Deletion vector in ", file.file_path, ": length ", length,
                      " does not match the blob size ", size);
  }
  if (std::memcmp(bytes + 4, kDeletionVectorMagic, 4) != 0) {
    return Corruption("Deletion vector in ", file.file_path, ": bad magic");
  }
  uint32_t crc = static_cast<uint32_t>(crc32(0L, bytes + 4, length));
  if (crc != BigEndian32(bytes + 4 + length)) {
    return Corruption("Deletion vector in ", file.file_path, ": CRC mismatch");
  }
  std::vector<int64_t> positions;
  SKADE_RETURN_NOT_OK(ReadRoaring64(bytes + 8, length - 4, file.file_path, &positions));
  return positions;
}

Result<std::vector<std::shared_ptr<const EqualityDeleteSet>>> DeleteCache::EqualityDeletes(
    const std::vector<scan::ScanDelete>& deletes) {
  std::vector<std::shared_ptr<const EqualityDeleteSet>> sets;
  for (const auto& del : deletes) {
    if (del.file.content != spec::DataFileContent::kEqualityDeletes) continue;
    SKADE_ASSIGN_OR_RAISE(auto set,
                          Cached<EqualityDeleteSet>(equality_files_, del.file.file_path,
                                                    [&] { return LoadEqualityFile(del.file); }));
    sets.push_back(std::move(set));
  }
  return sets;
}

Result<std::shared_ptr<const EqualityDeleteSet>> DeleteCache::LoadEqualityFile(
    const spec::DataFile& file) {
  if (file.file_format != spec::FileFormat::kParquet) {
    return Unsupported("Equality delete file ", file.file_path, " is not Parquet");
  }
  if (file.equality_ids.empty()) {
    return Corruption("Equality delete file ", file.file_path, " has no equality_ids");
  }
  auto set = std::make_shared<EqualityDeleteSet>();
  set->field_ids = file.equality_ids;
  std::vector<spec::TypePtr> types;
  std::vector<int32_t> top_level;
  for (int32_t id : file.equality_ids) {
    const spec::NestedField* field = schema_->FindFieldById(id);
    if (field == nullptr || !field->type->is_primitive()) {
      return InvalidArgument("Equality delete file ", file.file_path, " deletes by field id ", id,
                             ", which is not a primitive column of the read schema");
    }
    types.push_back(field->type);
    int32_t top = TopLevelId(*schema_, id);
    if (std::find(top_level.begin(), top_level.end(), top) == top_level.end()) {
      top_level.push_back(top);
    }
  }
  SKADE_RETURN_NOT_OK(
      ReadWholeFile(io_, file.file_path, *schema_, top_level, mapping_, options_,
                    [&](const Columns& columns, int64_t rows) -> Status {
                      std::map<int32_t, std::shared_ptr<arrow::Array>> by_id;
                      for (size_t c = 0; c < top_level.size(); ++c)
                        by_id[top_level[c]] = columns[c];
                      Columns keys;
                      for (int32_t id : file.equality_ids) {
                        SKADE_ASSIGN_OR_RAISE(auto column, FieldColumn(*schema_, id, by_id));
                        keys.push_back(std::move(column));
                      }
                      std::string key;
                      for (int64_t i = 0; i < rows; ++i) {
                        key.clear();
                        SKADE_RETURN_NOT_OK(AppendEqualityKey(keys, types, i, &key));
                        set->keys.insert(key);
                      }
                      return OkStatus();
                    }));
  return std::shared_ptr<const EqualityDeleteSet>(std::move(set));
}

}  // namespace skade::read
