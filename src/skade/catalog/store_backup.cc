#include "skade/catalog/store_backup.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "skade/catalog/metadata_files.h"
#include "skade/store/table_key.h"
#include "skade/util/clock.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"
#include "skade/util/uuid.h"
#include "skade/util/version.h"

namespace skade::catalog {

namespace {

namespace fs = std::filesystem;

constexpr char kManifestFormat[] = "skade-backup";
constexpr char kStoreDirectory[] = "store";
constexpr char kMetadataDirectory[] = "metadata";
// Commit-log entries read per store transaction.
constexpr size_t kCommitLogPage = 4096;
// Bytes of a store file hashed at a time.
constexpr int64_t kHashBlockBytes = 1 << 20;

// A store opened only to be read here: nothing to sync.
// For the copies Backup() made: the backup's store, and a restore's.
store::CatalogStoreOptions ReadingOptions() {
  store::CatalogStoreOptions options;
  options.durability = store::Durability::kNone;
  options.whole_copy = true;
  return options;
}

void Report(const BackupProgress& progress, std::string_view stage, uint64_t done, uint64_t total) {
  if (progress) progress(stage, done, total);
}

Result<std::string> Absolute(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return IoError("Cannot resolve ", path, ": ", ec.message());
  std::string text = absolute.lexically_normal().string();
  while (text.size() > 1 && text.ends_with('/')) text.pop_back();
  return text;
}

// Whether `path` is missing (false) or an empty directory (false); true if it
// has entries. kAlreadyExists for something that is not a directory.
Result<bool> HasEntries(const std::string& path) {
  std::error_code ec;
  auto status = fs::symlink_status(path, ec);
  if (ec || status.type() == fs::file_type::not_found) return false;
  if (status.type() != fs::file_type::directory) {
    return MakeError(ErrorKind::kAlreadyExists, path, " exists and is not a directory");
  }
  bool empty = fs::is_empty(path, ec);
  if (ec) return IoError("Cannot list ", path, ": ", ec.message());
  return !empty;
}

// Whether the directory `path` holds files only.
bool HoldsOnlyFiles(const fs::path& path) {
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || ec) return false;
  }
  return !ec;
}

// Whether the directory `path` looks like a catalog store: a data.mdb and
// files only (a warehouse, say, holds directories).
bool IsCatalogStoreDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(path) / "data.mdb", ec) && HoldsOnlyFiles(path);
}

// Whether the directory `inner` is `outer` or lies inside it, compared by
// identity (device and inode) of `outer` and of each directory above
// `inner`, so that neither a symbolic link nor a second mount of a directory
// hides the one in the other.
bool IsWithin(const std::string& inner, const std::string& outer) {
  std::error_code ec;
  if (!fs::is_directory(outer, ec)) return false;
  fs::path at = fs::weakly_canonical(inner, ec);
  if (ec) at = fs::absolute(inner, ec).lexically_normal();
  while (true) {
    if (fs::equivalent(at, outer, ec)) return true;  // false, with ec, for a missing `at`
    fs::path parent = at.parent_path();
    if (parent.empty() || parent == at) return false;
    at = std::move(parent);
  }
}

// kInvalidArgument if the directory `path` (the `role`) is, holds or lies
// inside `kept` (`what`, a directory a backup or restore must not write
// into or replace, for the reason `why`); nothing to check for an empty
// `kept`.
Status CheckApart(std::string_view role, const std::string& path, std::string_view what,
                  const std::string& kept, std::string_view why) {
  if (kept.empty()) return OkStatus();
  std::string_view relation;
  if (IsWithin(path, kept)) {
    relation = IsWithin(kept, path) ? " is " : " lies inside ";
  } else if (IsWithin(kept, path)) {
    relation = " holds ";
  } else {
    return OkStatus();
  }
  return InvalidArgument(role, " ", path, relation, what, " ", kept, ": ", why);
}

std::string Hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016" PRIx64, value);
  return text;
}

Result<uint64_t> ParseHex64(std::string_view text, std::string_view what) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (text.size() != 16 || ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument(what, " is not 16 hexadecimal digits: ", text);
  }
  return value;
}

// The size and hash of the file `name` in the local directory `directory`.
Result<BackupManifest::StoreFile> HashStoreFile(io::FileIO& local, const std::string& directory,
                                                const std::string& name) {
  std::string path = StrCat(directory, "/", name);
  SKADE_ASSIGN_OR_RAISE(auto file, local.NewInputFile(path));
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  if (state == nullptr || XXH3_64bits_reset(state.get()) != XXH_OK) {
    return IoError("Cannot hash ", path, ": out of memory");
  }
  std::vector<char> block(kHashBlockBytes);
  int64_t size = 0;
  while (true) {
    SKADE_ASSIGN_OR_RAISE(int64_t read, file->ReadAt(size, kHashBlockBytes, block.data()));
    if (read == 0) break;
    XXH3_64bits_update(state.get(), block.data(), static_cast<size_t>(read));
    size += read;
  }
  return BackupManifest::StoreFile{name, static_cast<uint64_t>(size),
                                   XXH3_64bits_digest(state.get())};
}

// The names of the files in the local directory `directory` (a store copy
// Backup() just wrote), sorted.
Result<std::vector<std::string>> StoreFileNames(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || ec) {
      return IoError("The store copy in ", directory, " holds ", it->path().filename().string(),
                     ", which is not a file");
    }
    names.push_back(it->path().filename().string());
  }
  if (ec) return IoError("Cannot list ", directory, ": ", ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

// Checks the files of the backup's store copy in `directory` against the
// manifest before anything opens them: LMDB does not checksum its pages, and
// a process that reads a damaged one may crash (SIGBUS, a corrupted heap)
// rather than fail.
Status CheckStoreFiles(io::FileIO& local, const std::string& directory,
                       const BackupManifest& manifest) {
  // A backup an earlier skade made lists no files: it is restored unchecked,
  // as it was then.
  for (const auto& expected : manifest.store_files) {
    std::string path = StrCat(directory, "/", expected.name);
    auto size = local.FileSize(path);
    if (!size && size.error().kind == ErrorKind::kNotFound) {
      return Corruption("The backup is damaged: its store file ", path, " is missing");
    }
    SKADE_RETURN_NOT_OK(size);
    if (static_cast<uint64_t>(*size) != expected.size) {
      return Corruption("The backup is damaged: store size mismatch: ", path, " has ", *size,
                        " bytes, its manifest records ", expected.size);
    }
    SKADE_ASSIGN_OR_RAISE(auto actual, HashStoreFile(local, directory, expected.name));
    if (actual.size != expected.size || actual.xxh3 != expected.xxh3) {
      return Corruption("The backup is damaged: store checksum mismatch: ", path, " has ",
                        actual.size, " bytes hashing to ", Hex64(actual.xxh3),
                        " (XXH3-64), its manifest records ", expected.size, " bytes hashing to ",
                        Hex64(expected.xxh3));
    }
  }
  return OkStatus();
}

// OkStatus if the non-empty directory `path` is a skade backup that `force`
// may replace: its manifest says it is one, and it holds only what a backup
// holds. kAlreadyExists naming what it is not.
Status CheckReplaceableBackup(const std::string& path) {
  auto manifest = ReadBackupManifest(path);
  if (!manifest) {
    if (manifest.error().kind == ErrorKind::kNotFound) {
      return MakeError(ErrorKind::kAlreadyExists, "The backup destination ", path,
                       " is not empty and holds no skade backup (it has no ", kBackupManifestName,
                       "): --force replaces only an earlier backup, and it is not replaced");
    }
    return MakeError(ErrorKind::kAlreadyExists, "The backup destination ", path,
                     " is not empty and its ", kBackupManifestName, " is not a skade backup's (",
                     manifest.error().message,
                     "): --force replaces only an earlier backup, and it is not replaced");
  }
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    auto type = it->symlink_status(ec).type();
    bool expected =
        !ec && (name == kBackupManifestName
                    ? type == fs::file_type::regular
                    : (name == kStoreDirectory || name == kMetadataDirectory) &&
                          type == fs::file_type::directory && HoldsOnlyFiles(it->path()));
    if (!expected) {
      return MakeError(ErrorKind::kAlreadyExists, "The backup destination ", path, " holds ", name,
                       ", which is not part of a skade backup: --force replaces only an earlier "
                       "backup, and it is not replaced");
    }
  }
  if (ec) return IoError("Cannot list ", path, ": ", ec.message());
  return OkStatus();
}

// A name beside `path`, in its directory (so a rename into place stays on
// one file system): `.<name>.<tag>-<uuid>`.
std::string Beside(const std::string& path, std::string_view tag) {
  fs::path p(path);
  return (p.parent_path() / StrCat(".", p.filename().string(), ".", tag, "-", NewUuid())).string();
}

Status Rename(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) return IoError("Cannot rename ", from, " to ", to, ": ", ec.message());
  return OkStatus();
}

// Removes a directory this code created, on every path out that did not
// keep it.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(std::string path) : path_(std::move(path)) {}
  ~ScratchDirectory() {
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  Status Create() {
    std::error_code ec;
    fs::create_directories(path_, ec);
    if (ec) return IoError("Cannot create ", path_, ": ", ec.message());
    return OkStatus();
  }
  const std::string& path() const { return path_; }
  void Keep() { path_.clear(); }

 private:
  std::string path_;
};

// Puts the complete directory `scratch` at `path`, whose directory it is in,
// and makes the rename durable. An empty directory at `path` is replaced;
// one with entries is first moved to `aside` (which the caller handles).
Status PutInPlace(io::FileIO& local, ScratchDirectory& scratch, const std::string& path,
                  const std::string& aside) {
  SKADE_ASSIGN_OR_RAISE(bool has_entries, HasEntries(path));
  std::error_code ec;
  if (has_entries) {
    SKADE_RETURN_NOT_OK(Rename(path, aside));
  } else if (fs::exists(path, ec)) {
    fs::remove(path, ec);
    if (ec) return IoError("Cannot replace ", path, ": ", ec.message());
  }
  SKADE_RETURN_NOT_OK(Rename(scratch.path(), path));
  scratch.Keep();
  return local.SyncDirectory(fs::path(path).parent_path().string());
}

std::string BaseName(std::string_view location) {
  size_t slash = location.rfind('/');
  return std::string(slash == std::string_view::npos ? location : location.substr(slash + 1));
}

Result<std::vector<spec::Namespace>> AllNamespaces(store::CatalogStore& store) {
  std::vector<spec::Namespace> out;
  std::vector<spec::Namespace> parents = {{}};
  while (!parents.empty()) {
    spec::Namespace parent = std::move(parents.back());
    parents.pop_back();
    SKADE_ASSIGN_OR_RAISE(auto page, store.ListNamespaces(parent, "", 0));
    for (auto& child : page.items) {
      parents.push_back(child);
      out.push_back(std::move(child));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every entry of `store`'s commit log, oldest first.
Result<std::vector<BackupManifest::Commit>> ReadWholeCommitLog(store::CatalogStore& store,
                                                               const BackupProgress& progress) {
  SKADE_ASSIGN_OR_RAISE(uint64_t last, store.CommitSeq());
  std::vector<BackupManifest::Commit> commits;
  uint64_t after = 0;
  while (after < last) {
    Report(progress, "commit log", after, last);
    SKADE_ASSIGN_OR_RAISE(auto page, store.ReadCommitLog(after, kCommitLogPage));
    if (page.empty()) break;
    for (auto& [seq, record] : page) {
      commits.push_back({seq, record.table_id, std::move(record.metadata_location)});
      after = seq;
    }
  }
  Report(progress, "commit log", after, last);
  return commits;
}

// The manifest of the store copy at `location` (nothing writes it).
Result<BackupManifest> DescribeCopy(store::CatalogStore& copy, const BackupProgress& progress) {
  BackupManifest manifest;
  manifest.skade_version = kSkadeVersion;
  manifest.created_at_ms = NowMillis();
  SKADE_ASSIGN_OR_RAISE(manifest.commit_seq, copy.CommitSeq());
  SKADE_ASSIGN_OR_RAISE(manifest.namespaces, AllNamespaces(copy));
  SKADE_ASSIGN_OR_RAISE(auto pointers, copy.ReadTablePointers());
  for (const auto& table : pointers.tables) {
    if (!table.record) continue;
    manifest.tables.push_back({store::TableIdentifierFromKey(table.table_key),
                               table.record->table_id, table.record->metadata_location, ""});
  }
  SKADE_ASSIGN_OR_RAISE(manifest.commits, ReadWholeCommitLog(copy, progress));
  // Retention keeps every commit after pruned_through, and of those up to
  // it each table's last (catalog_store.h).
  SKADE_ASSIGN_OR_RAISE(auto bounds, copy.ReadCommitLogPage(0, 0));
  const uint64_t pruned_through = bounds.bounds.pruned_through;
  const auto kept = static_cast<uint64_t>(std::count_if(
      manifest.commits.begin(), manifest.commits.end(),
      [&](const BackupManifest::Commit& commit) { return commit.commit_seq > pruned_through; }));
  if (kept != manifest.commit_seq - std::min(pruned_through, manifest.commit_seq)) {
    return Corruption("The store copy has ", kept, " commit-log entries after commit ",
                      pruned_through, " for commit_seq ", manifest.commit_seq);
  }
  return manifest;
}

// Copies each table's current metadata file into `directory`/metadata.
Status CopyMetadataFiles(io::FileIO& io, io::FileIO& local, const LocationPolicy& policy,
                         const std::string& directory, const BackupProgress& progress,
                         BackupManifest* manifest) {
  uint64_t done = 0;
  for (auto& table : manifest->tables) {
    Report(progress, "metadata files", done++, manifest->tables.size());
    // A client chose the location: outside the allowed roots it is not read.
    if (!policy.Check(table.metadata_location)) continue;
    auto bytes = io.ReadFileUpTo(table.metadata_location, kMaxMetadataReadBytes);
    if (!bytes) {
      if (bytes.error().kind == ErrorKind::kNotFound) continue;  // doctor's to report
      return tl::unexpected(bytes.error());
    }
    std::string name =
        StrCat(kMetadataDirectory, "/", table.table_id, "-", BaseName(table.metadata_location));
    SKADE_RETURN_NOT_OK(local.WriteFile(StrCat(directory, "/", name), *bytes, /*durable=*/true));
    table.metadata_copy = std::move(name);
  }
  Report(progress, "metadata files", done, manifest->tables.size());
  return OkStatus();
}

Status CheckCopy(store::CatalogStore& copy, const BackupManifest& manifest) {
  SKADE_ASSIGN_OR_RAISE(uint64_t seq, copy.CommitSeq());
  if (seq != manifest.commit_seq) {
    return Corruption("The restored store is at commit ", seq, ", its backup manifest at ",
                      manifest.commit_seq);
  }
  SKADE_ASSIGN_OR_RAISE(auto pointers, copy.ReadTablePointers());
  std::map<std::string, std::string> expected;
  for (const auto& table : manifest.tables) {
    expected[store::TableKey(table.identifier)] = table.metadata_location;
  }
  size_t matched = 0;
  for (const auto& table : pointers.tables) {
    auto it = expected.find(table.table_key);
    if (!table.record || it == expected.end() || it->second != table.record->metadata_location) {
      return Corruption("The restored store's table ",
                        store::TableIdentifierFromKey(table.table_key).ToString(),
                        " does not match its backup manifest");
    }
    ++matched;
  }
  if (matched != expected.size()) {
    return Corruption("The restored store has ", matched, " tables, its backup manifest ",
                      expected.size());
  }
  // The history too: time travel and the change feed read it.
  SKADE_ASSIGN_OR_RAISE(auto commits, ReadWholeCommitLog(copy, {}));
  auto same = [](const BackupManifest::Commit& a, const BackupManifest::Commit& b) {
    return a.commit_seq == b.commit_seq && a.table_id == b.table_id &&
           a.metadata_location == b.metadata_location;
  };
  if (!std::equal(commits.begin(), commits.end(), manifest.commits.begin(), manifest.commits.end(),
                  same)) {
    return Corruption("The restored store's commit log does not match its backup manifest");
  }
  return OkStatus();
}

void WriteNamespace(JsonWriter& writer, const spec::Namespace& ns) {
  writer.StartArray();
  for (const auto& level : ns) writer.String(level);
  writer.EndArray();
}

Result<spec::Namespace> ReadNamespace(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto levels, json::AsArray(element, "namespace"));
  spec::Namespace ns;
  for (auto level : levels) {
    SKADE_ASSIGN_OR_RAISE(auto name, json::ToString(level, "namespace level"));
    ns.push_back(std::move(name));
  }
  return ns;
}

Result<uint64_t> GetUnsigned(json::Object object, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(int64_t value, json::GetInt64(object, key));
  if (value < 0) return InvalidArgument("Negative ", key);
  return static_cast<uint64_t>(value);
}

Result<BackupManifest> ParseManifest(std::string_view text) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto root, json::Parse(parser, text));
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(root, "backup manifest"));
  SKADE_ASSIGN_OR_RAISE(auto format, json::GetString(object, "format"));
  if (format != kManifestFormat) return InvalidArgument("not a ", kManifestFormat, " manifest");
  BackupManifest manifest;
  SKADE_ASSIGN_OR_RAISE(manifest.format_version, json::GetInt32(object, "format-version"));
  if (manifest.format_version != 1) {
    return InvalidArgument("format version ", manifest.format_version, " is not supported");
  }
  SKADE_ASSIGN_OR_RAISE(manifest.skade_version, json::GetString(object, "skade-version"));
  SKADE_ASSIGN_OR_RAISE(manifest.created_at_ms, json::GetInt64(object, "created-at-ms"));
  SKADE_ASSIGN_OR_RAISE(manifest.warehouse, json::GetString(object, "warehouse"));
  SKADE_ASSIGN_OR_RAISE(manifest.commit_seq, GetUnsigned(object, "commit-seq"));
  SKADE_ASSIGN_OR_RAISE(auto namespaces, json::GetArray(object, "namespaces"));
  for (auto ns : namespaces) {
    SKADE_ASSIGN_OR_RAISE(auto parsed, ReadNamespace(ns));
    manifest.namespaces.push_back(std::move(parsed));
  }
  SKADE_ASSIGN_OR_RAISE(auto tables, json::GetArray(object, "tables"));
  for (auto element : tables) {
    SKADE_ASSIGN_OR_RAISE(auto table, json::AsObject(element, "table"));
    BackupManifest::Table out;
    SKADE_ASSIGN_OR_RAISE(auto ns, json::GetRequired(table, "namespace"));
    SKADE_ASSIGN_OR_RAISE(out.identifier.ns, ReadNamespace(ns));
    SKADE_ASSIGN_OR_RAISE(out.identifier.name, json::GetString(table, "name"));
    SKADE_ASSIGN_OR_RAISE(out.table_id, GetUnsigned(table, "table-id"));
    SKADE_ASSIGN_OR_RAISE(out.metadata_location, json::GetString(table, "metadata-location"));
    SKADE_ASSIGN_OR_RAISE(auto copy, json::GetOptionalString(table, "metadata-copy"));
    out.metadata_copy = copy.value_or("");
    manifest.tables.push_back(std::move(out));
  }
  SKADE_ASSIGN_OR_RAISE(auto commits, json::GetArray(object, "commits"));
  for (auto element : commits) {
    SKADE_ASSIGN_OR_RAISE(auto commit, json::AsObject(element, "commit"));
    BackupManifest::Commit out;
    SKADE_ASSIGN_OR_RAISE(out.commit_seq, GetUnsigned(commit, "commit-seq"));
    SKADE_ASSIGN_OR_RAISE(out.table_id, GetUnsigned(commit, "table-id"));
    SKADE_ASSIGN_OR_RAISE(out.metadata_location, json::GetString(commit, "metadata-location"));
    manifest.commits.push_back(std::move(out));
  }
  // Absent from the manifest of an earlier skade's backup.
  if (json::Has(object, "store-files")) {
    SKADE_ASSIGN_OR_RAISE(auto files, json::GetArray(object, "store-files"));
    for (auto element : files) {
      SKADE_ASSIGN_OR_RAISE(auto file, json::AsObject(element, "store file"));
      BackupManifest::StoreFile out;
      SKADE_ASSIGN_OR_RAISE(out.name, json::GetString(file, "name"));
      // Input like the rest: a name that leaves the store directory is refused.
      if (out.name.empty() || out.name.find('/') != std::string::npos || out.name == "." ||
          out.name == "..") {
        return InvalidArgument("store file name ", out.name, " is not a file name");
      }
      SKADE_ASSIGN_OR_RAISE(out.size, GetUnsigned(file, "size"));
      SKADE_ASSIGN_OR_RAISE(auto hash, json::GetStringView(file, "xxh3-64"));
      SKADE_ASSIGN_OR_RAISE(out.xxh3, ParseHex64(hash, "xxh3-64"));
      manifest.store_files.push_back(std::move(out));
    }
  }
  return manifest;
}

// The metadata copy of a manifest, as a path under `backup`; empty unless it
// is a plain "metadata/<name>" (the manifest is input like any other).
std::string MetadataCopyPath(const std::string& backup, const std::string& copy) {
  std::string_view name = copy;
  if (!ConsumePrefix(&name, StrCat(kMetadataDirectory, "/")) || name.empty() ||
      name.find('/') != std::string_view::npos || name == "." || name == "..") {
    return {};
  }
  return StrCat(backup, "/", copy);
}

}  // namespace

std::string BackupManifest::ToJson() const {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("format", kManifestFormat);
  writer.Field("format-version", static_cast<int64_t>(format_version));
  writer.Field("skade-version", skade_version);
  writer.Field("created-at-ms", created_at_ms);
  writer.Field("created-at", FormatTimestampMillis(created_at_ms));
  writer.Field("warehouse", warehouse);
  writer.Field("commit-seq", static_cast<int64_t>(commit_seq));
  writer.Key("namespaces");
  writer.StartArray();
  for (const auto& ns : namespaces) WriteNamespace(writer, ns);
  writer.EndArray();
  writer.Key("tables");
  writer.StartArray();
  for (const auto& table : tables) {
    writer.StartObject();
    writer.Key("namespace");
    WriteNamespace(writer, table.identifier.ns);
    writer.Field("name", table.identifier.name);
    writer.Field("table-id", static_cast<int64_t>(table.table_id));
    writer.Field("metadata-location", table.metadata_location);
    if (!table.metadata_copy.empty()) writer.Field("metadata-copy", table.metadata_copy);
    writer.EndObject();
  }
  writer.EndArray();
  writer.Key("commits");
  writer.StartArray();
  for (const auto& commit : commits) {
    writer.StartObject();
    writer.Field("commit-seq", static_cast<int64_t>(commit.commit_seq));
    writer.Field("table-id", static_cast<int64_t>(commit.table_id));
    writer.Field("metadata-location", commit.metadata_location);
    writer.EndObject();
  }
  writer.EndArray();
  if (!store_files.empty()) {
    writer.Key("store-files");
    writer.StartArray();
    for (const auto& file : store_files) {
      writer.StartObject();
      writer.Field("name", file.name);
      writer.Field("size", static_cast<int64_t>(file.size));
      writer.Field("xxh3-64", Hex64(file.xxh3));
      writer.EndObject();
    }
    writer.EndArray();
  }
  writer.EndObject();
  return writer.Take();
}

Result<BackupManifest> BackupManifest::FromJson(std::string_view json) {
  auto manifest = ParseManifest(json);
  if (!manifest) return Corruption("Invalid backup manifest: ", manifest.error().message);
  return manifest;
}

Result<BackupManifest> ReadBackupManifest(const std::string& backup) {
  SKADE_ASSIGN_OR_RAISE(std::string directory, Absolute(backup));
  std::string path = StrCat(directory, "/", kBackupManifestName);
  auto text = io::NewLocalFileIO()->ReadFileUpTo(path, kMaxMetadataReadBytes);
  if (!text) {
    if (text.error().kind == ErrorKind::kNotFound) {
      return MakeError(ErrorKind::kNotFound, backup, " is not a skade backup: it has no ",
                       kBackupManifestName);
    }
    return tl::unexpected(text.error());
  }
  return BackupManifest::FromJson(*text);
}

Result<BackupManifest> BackupStore(store::CatalogStore& store, io::FileIO& io,
                                   const LocationPolicy& policy, const std::string& destination,
                                   const BackupOptions& options) {
  SKADE_ASSIGN_OR_RAISE(std::string path, Absolute(destination));
  // Before anything else: a backup inside what it backs up is lost with it,
  // and replacing a directory that holds them would delete them.
  constexpr std::string_view kApart =
      "a backup is kept apart from what it backs up, and never written into or over it";
  if (auto warehouse = io::LocalPath(options.warehouse)) {
    SKADE_RETURN_NOT_OK(
        CheckApart("The backup destination", path, "the warehouse", *warehouse, kApart));
  }
  for (const std::string& kept : {options.store_directory, store.DerivedFileDirectory()}) {
    SKADE_RETURN_NOT_OK(
        CheckApart("The backup destination", path, "the catalog store", kept, kApart));
  }
  SKADE_ASSIGN_OR_RAISE(bool has_entries, HasEntries(path));
  if (has_entries) {
    if (!options.force) {
      return MakeError(ErrorKind::kAlreadyExists, "The backup destination ", path,
                       " is not empty (--force replaces an earlier backup)");
    }
    SKADE_RETURN_NOT_OK(CheckReplaceableBackup(path));
  }
  std::shared_ptr<io::FileIO> local = io::NewLocalFileIO();
  ScratchDirectory scratch(Beside(path, "partial"));
  SKADE_RETURN_NOT_OK(scratch.Create());
  std::string store_directory = StrCat(scratch.path(), "/", kStoreDirectory);
  std::error_code ec;
  fs::create_directory(store_directory, ec);
  if (ec) return IoError("Cannot create ", store_directory, ": ", ec.message());

  Report(options.progress, "store", 0, 1);
  SKADE_ASSIGN_OR_RAISE(std::string copy_location, store.Backup(store_directory));
  // The copy's own files, before opening it adds lock files.
  SKADE_ASSIGN_OR_RAISE(auto store_files, StoreFileNames(store_directory));
  Report(options.progress, "store", 1, 1);
  BackupManifest manifest;
  {
    SKADE_ASSIGN_OR_RAISE(auto copy, store::CatalogStore::Open(copy_location, ReadingOptions()));
    SKADE_ASSIGN_OR_RAISE(manifest, DescribeCopy(*copy, options.progress));
  }
  // Hashed once the copy is closed, as a restore finds them.
  for (const auto& name : store_files) {
    SKADE_ASSIGN_OR_RAISE(auto file, HashStoreFile(*local, store_directory, name));
    manifest.store_files.push_back(std::move(file));
  }
  manifest.warehouse = options.warehouse;
  if (options.with_metadata) {
    SKADE_RETURN_NOT_OK(
        CopyMetadataFiles(io, *local, policy, scratch.path(), options.progress, &manifest));
  }
  SKADE_RETURN_NOT_OK(local->WriteFile(StrCat(scratch.path(), "/", kBackupManifestName),
                                       manifest.ToJson(), /*durable=*/true));
  SKADE_RETURN_NOT_OK(local->SyncDirectory(scratch.path()));

  std::string aside = Beside(path, "replaced");
  SKADE_RETURN_NOT_OK(PutInPlace(*local, scratch, path, aside));
  // The earlier backup the caller asked to replace.
  fs::remove_all(aside, ec);
  return manifest;
}

Result<RestoreResult> RestoreStore(const std::string& backup, const std::string& target,
                                   const RestoreOptions& options) {
  SKADE_ASSIGN_OR_RAISE(std::string backup_path, Absolute(backup));
  SKADE_ASSIGN_OR_RAISE(std::string path, Absolute(target));
  std::shared_ptr<io::FileIO> local = io::NewLocalFileIO();
  RestoreResult result;
  SKADE_ASSIGN_OR_RAISE(result.manifest, ReadBackupManifest(backup_path));
  SKADE_RETURN_NOT_OK(CheckApart("The restore target", path, "the backup", backup_path,
                                 "a restore never writes into the backup it reads"));

  SKADE_ASSIGN_OR_RAISE(bool in_use, store::CatalogStore::InUse(path));
  if (in_use) {
    return InvalidArgument("The catalog store ", path,
                           " is open in a running process (a server?): a restore never replaces "
                           "a store in use; stop that process first");
  }
  SKADE_ASSIGN_OR_RAISE(bool has_entries, HasEntries(path));
  if (has_entries && !options.force) {
    return MakeError(ErrorKind::kAlreadyExists, "The restore target ", path,
                     " is not empty (--force moves what is there aside)");
  }
  if (has_entries && !IsCatalogStoreDirectory(path)) {
    return MakeError(ErrorKind::kAlreadyExists, "The restore target ", path,
                     " is not a catalog store (a store holds data.mdb and no directories: is it "
                     "a warehouse?); --force moves only a catalog store aside");
  }

  // Removed on every way out that does not rename it into place; created
  // only once the backup's store is known to be whole.
  ScratchDirectory scratch(Beside(path, "partial"));
  Report(options.progress, "store", 0, 1);
  {
    std::string backup_store = StrCat(backup_path, "/", kStoreDirectory);
    std::error_code ec;
    if (!fs::is_directory(backup_store, ec)) {
      return Corruption("The backup ", backup_path, " has no ", kStoreDirectory, " directory");
    }
    SKADE_RETURN_NOT_OK(CheckStoreFiles(*local, backup_store, result.manifest));
    SKADE_ASSIGN_OR_RAISE(auto copy, store::CatalogStore::Open(backup_store, ReadingOptions()));
    SKADE_RETURN_NOT_OK(CheckCopy(*copy, result.manifest));
    SKADE_RETURN_NOT_OK(scratch.Create());
    SKADE_ASSIGN_OR_RAISE(std::string restored_location, copy->Backup(scratch.path()));
    copy.reset();
    SKADE_ASSIGN_OR_RAISE(auto restored,
                          store::CatalogStore::Open(restored_location, ReadingOptions()));
    SKADE_RETURN_NOT_OK(CheckCopy(*restored, result.manifest));
  }
  Report(options.progress, "store", 1, 1);
  // Again: a process may have opened the target meanwhile.
  SKADE_ASSIGN_OR_RAISE(in_use, store::CatalogStore::InUse(path));
  if (in_use) return InvalidArgument("The catalog store ", path, " was opened during the restore");
  if (has_entries) result.replaced = StrCat(path, ".replaced-", NowMillis());
  SKADE_RETURN_NOT_OK(PutInPlace(*local, scratch, path, result.replaced));
  return result;
}

Result<MetadataCheck> CheckBackupMetadata(const std::string& backup, const BackupManifest& manifest,
                                          store::CatalogStore& store, io::FileIO& io,
                                          const LocationPolicy& policy,
                                          const BackupProgress& progress) {
  SKADE_ASSIGN_OR_RAISE(std::string backup_path, Absolute(backup));
  std::shared_ptr<io::FileIO> local = io::NewLocalFileIO();
  SKADE_ASSIGN_OR_RAISE(auto journal, store.ReadJournaledFiles());
  std::set<std::string> journaled;
  for (const auto& file : journal) journaled.insert(file.location);
  MetadataCheck check;
  std::set<std::string> current;
  uint64_t total = manifest.tables.size() + manifest.commits.size();
  uint64_t done = 0;
  for (const auto& table : manifest.tables) {
    Report(progress, "metadata files", done++, total);
    current.insert(table.metadata_location);
    if (!policy.Check(table.metadata_location)) {
      check.not_allowed.push_back(table.metadata_location);
      continue;
    }
    ++check.checked;
    SKADE_ASSIGN_OR_RAISE(bool exists, io.Exists(table.metadata_location));
    if (exists) continue;
    check.missing_current.push_back(table);
    // The copy goes back even when the file is journaled: the entry may be a
    // difference from a file the warehouse lost too. (A location's bytes
    // never change, so the copy is what the entry holds.)
    std::string copy = MetadataCopyPath(backup_path, table.metadata_copy);
    // Only what parses goes back: the copy is part of the backup's input.
    if (!copy.empty() && ReadMetadataFile(*local, copy)) {
      SKADE_ASSIGN_OR_RAISE(auto bytes, local->ReadFileUpTo(copy, kMaxMetadataReadBytes));
      SKADE_RETURN_NOT_OK(io.WriteFile(table.metadata_location, bytes, /*durable=*/true));
      check.rewritten_current.push_back(table);
    } else if (journaled.contains(table.metadata_location)) {
      check.journaled_current.push_back(table);
    }
  }
  std::set<std::string> seen;
  for (const auto& commit : manifest.commits) {
    Report(progress, "metadata files", done++, total);
    const std::string& location = commit.metadata_location;
    if (current.contains(location) || !seen.insert(location).second) continue;
    if (!policy.Check(location)) {
      check.not_allowed.push_back(location);
      continue;
    }
    ++check.checked;
    SKADE_ASSIGN_OR_RAISE(bool exists, io.Exists(location));
    if (!exists && !journaled.contains(location)) check.missing_history.push_back(location);
  }
  Report(progress, "metadata files", done, total);
  check.unrebuildable = FindUnrebuildableFiles(
      io, std::move(journal),
      [&policy](const std::string& location) { return static_cast<bool>(policy.Check(location)); });
  // A current file whose entry cannot rebuild it is lost, not journaled.
  std::erase_if(check.journaled_current, [&](const BackupManifest::Table& table) {
    return std::any_of(
        check.unrebuildable.begin(), check.unrebuildable.end(),
        [&](const UnrebuildableFile& file) { return file.location == table.metadata_location; });
  });
  return check;
}

}  // namespace skade::catalog
