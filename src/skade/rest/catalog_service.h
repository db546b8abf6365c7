// The Iceberg REST catalog API over a Catalog: routes each request to the
// catalog and answers in the REST spec's shapes (rest-catalog-open-api.yaml,
// REST-CHECKLIST.md). Used as the HttpServer's handler. Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/catalog.h"
#include "skade/rest/authenticator.h"
#include "skade/rest/http/http_message.h"

namespace skade::rest {

class CatalogService {
 public:
  CatalogService(std::shared_ptr<catalog::Catalog> catalog, std::shared_ptr<Authenticator> auth);

  HttpResponse Handle(const HttpRequest& request);

  /// The `endpoints` advertised by GET /v1/config: exactly what is routed.
  static const std::vector<std::string>& Endpoints();

 private:
  struct Call;

  HttpResponse Route(Call& call);
  HttpResponse Config(Call& call);
  HttpResponse ListNamespaces(Call& call);
  HttpResponse CreateNamespace(Call& call);
  HttpResponse Namespace(Call& call, const spec::Namespace& ns);
  HttpResponse UpdateProperties(Call& call, const spec::Namespace& ns);
  HttpResponse ListTables(Call& call, const spec::Namespace& ns);
  HttpResponse CreateTable(Call& call, const spec::Namespace& ns);
  HttpResponse RegisterTable(Call& call, const spec::Namespace& ns);
  HttpResponse Table(Call& call, const spec::TableIdentifier& identifier);
  HttpResponse LoadTable(Call& call, const spec::TableIdentifier& identifier);
  HttpResponse ReportMetrics(Call& call, const spec::TableIdentifier& identifier);
  HttpResponse RenameTable(Call& call);
  HttpResponse CommitTransaction(Call& call);

  std::shared_ptr<catalog::Catalog> catalog_;
  std::shared_ptr<Authenticator> auth_;
};

}  // namespace skade::rest
