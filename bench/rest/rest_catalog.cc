#include "rest/rest_catalog.h"

#include "rest/rest_target.h"
#include "skade/spec/table_metadata_json.h"

namespace skade::bench {

namespace {

tl::unexpected<Error> NotUsed(std::string_view call) {
  return MakeError(ErrorKind::kUnsupported, "RestCatalog: ", call,
                   " is not used by the benchmark's writer");
}

}  // namespace

Result<catalog::LoadTableResult> RestCatalog::ParseTableResponse(const std::string& body) {
  std::lock_guard lock(mutex_);
  SKADE_ASSIGN_OR_RAISE(auto response, json::Parse(parser_, body));
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(response, "LoadTableResult"));
  catalog::LoadTableResult result;
  SKADE_ASSIGN_OR_RAISE(auto location, json::GetOptionalString(object, "metadata-location"));
  result.metadata_location = location.value_or("");
  SKADE_ASSIGN_OR_RAISE(auto metadata, json::GetRequired(object, "metadata"));
  SKADE_ASSIGN_OR_RAISE(result.metadata, spec::TableMetadataFromElement(metadata));
  return result;
}

uint64_t RestCatalog::conflicts() const {
  std::lock_guard lock(mutex_);
  return conflicts_;
}

Result<HttpResult> RestCatalog::Send(std::string_view method, const std::string& target,
                                     const std::string& body) {
  std::lock_guard lock(mutex_);
  return connection_->Send(method, target, body);
}

Result<catalog::LoadTableResult> RestCatalog::LoadTable(const spec::TableIdentifier& identifier) {
  SKADE_ASSIGN_OR_RAISE(auto loaded, Send("GET", TablePath(base_, identifier)));
  if (loaded.status != 200) return HttpError("load table", loaded);
  return ParseTableResponse(loaded.body);
}

Result<catalog::LoadTableResult> RestCatalog::CommitTable(
    const catalog::CommitTableRequest& request) {
  SKADE_ASSIGN_OR_RAISE(auto committed, Send("POST", TablePath(base_, request.identifier),
                                             CommitRequestBody(request)));
  if (committed.status == 409) {
    std::lock_guard lock(mutex_);
    ++conflicts_;
  }
  if (committed.status != 200) return HttpError("commit", committed);
  return ParseTableResponse(committed.body);
}

Status RestCatalog::CreateNamespace(const spec::Namespace&, const catalog::Properties&) {
  return NotUsed("CreateNamespace");
}
Result<catalog::Page<spec::Namespace>> RestCatalog::ListNamespaces(const spec::Namespace&,
                                                                   const catalog::PageRequest&) {
  return NotUsed("ListNamespaces");
}
Result<catalog::Properties> RestCatalog::LoadNamespaceProperties(const spec::Namespace&) {
  return NotUsed("LoadNamespaceProperties");
}
Result<bool> RestCatalog::NamespaceExists(const spec::Namespace&) {
  return NotUsed("NamespaceExists");
}
Status RestCatalog::DropNamespace(const spec::Namespace&) { return NotUsed("DropNamespace"); }
Result<catalog::UpdateNamespacePropertiesResult> RestCatalog::UpdateNamespaceProperties(
    const spec::Namespace&, const std::vector<std::string>&, const catalog::Properties&) {
  return NotUsed("UpdateNamespaceProperties");
}
Result<catalog::Page<spec::TableIdentifier>> RestCatalog::ListTables(const spec::Namespace&,
                                                                     const catalog::PageRequest&) {
  return NotUsed("ListTables");
}
Result<catalog::LoadTableResult> RestCatalog::CreateTable(const spec::Namespace&,
                                                          const catalog::CreateTableRequest&) {
  return NotUsed("CreateTable");
}
Result<bool> RestCatalog::TableExists(const spec::TableIdentifier&) {
  return NotUsed("TableExists");
}
Status RestCatalog::DropTable(const spec::TableIdentifier&, bool) { return NotUsed("DropTable"); }
Status RestCatalog::RenameTable(const spec::TableIdentifier&, const spec::TableIdentifier&) {
  return NotUsed("RenameTable");
}
Result<catalog::LoadTableResult> RestCatalog::RegisterTable(const spec::TableIdentifier&,
                                                            const std::string&, bool,
                                                            const catalog::CommitOrigin&) {
  return NotUsed("RegisterTable");
}
Status RestCatalog::CommitTransaction(const std::vector<catalog::CommitTableRequest>&) {
  return NotUsed("CommitTransaction");
}

Result<std::optional<catalog::IdempotencyRecord>> RestCatalog::FindIdempotencyRecord(
    const std::string&, int64_t) {
  return NotUsed("FindIdempotencyRecord");
}

Result<catalog::IdempotencyRecord> RestCatalog::RecordIdempotency(
    const catalog::IdempotencyRecord&) {
  return NotUsed("RecordIdempotency");
}

Result<catalog::LoadTableResult> RestCatalog::LoadTableFromMetadata(const spec::TableIdentifier&,
                                                                    const std::string&) {
  return NotUsed("LoadTableFromMetadata");
}

Result<catalog::LoadTableResult> RestCatalog::LoadTableAt(const spec::TableIdentifier&, int64_t) {
  return NotUsed("LoadTableAt");
}

Result<catalog::LoadTableResult> RestCatalog::LoadTableAsOf(const spec::TableIdentifier&, int64_t) {
  return NotUsed("LoadTableAsOf");
}

Result<std::vector<std::optional<std::string>>> RestCatalog::ResolveMany(
    std::span<const catalog::SnapshotKey>) {
  return NotUsed("ResolveMany");
}

Result<std::vector<catalog::TableCommit>> RestCatalog::TableHistory(const spec::TableIdentifier&,
                                                                    uint64_t, size_t) {
  return NotUsed("TableHistory");
}

}  // namespace skade::bench
