#include <iostream>

#include "skade/cli/commands.h"
#include "skade/util/strings.h"

namespace skade::cli {

namespace {

struct NamespaceArgs {
  std::string ns;
  std::vector<std::string> pairs;
  std::vector<std::string> keys;
};

}  // namespace

void AddNamespaceCommands(CLI::App& app, const CliContext& context) {
  auto* group = app.add_subcommand("ns", "Manage namespaces");
  group->require_subcommand(1);
  auto args = std::make_shared<NamespaceArgs>();

  auto* create = group->add_subcommand("create", "Create a namespace (levels separated by '.')");
  create->add_option("namespace", args->ns, "Namespace, e.g. sales.eu")->required();
  create->add_option("--property,-p", args->pairs, "Property key=value (repeatable)");
  create->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto ns, spec::ParseNamespace(args->ns));
      SKADE_ASSIGN_OR_RAISE(auto properties, ParseKeyValues(args->pairs));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_RETURN_NOT_OK(catalog->CreateNamespace(ns, properties));
      std::cout << "created namespace " << args->ns << "\n";
      return OkStatus();
    }));
  });

  auto* list = group->add_subcommand("list", "List namespaces (children of PARENT if given)");
  list->add_option("parent", args->ns, "Parent namespace");
  list->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      spec::Namespace parent;
      if (!args->ns.empty()) {
        SKADE_ASSIGN_OR_RAISE(parent, spec::ParseNamespace(args->ns));
      }
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto page, catalog->ListNamespaces(parent));
      for (const auto& ns : page.items) std::cout << spec::QuotedNamespace(ns) << "\n";
      return OkStatus();
    }));
  });

  auto* describe = group->add_subcommand("describe", "Show a namespace's properties");
  describe->add_option("namespace", args->ns)->required();
  describe->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto ns, spec::ParseNamespace(args->ns));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto properties, catalog->LoadNamespaceProperties(ns));
      std::cout << "namespace " << args->ns << "\n";
      for (const auto& [key, value] : properties)
        std::cout << "  " << key << " = " << value << "\n";
      return OkStatus();
    }));
  });

  auto* drop = group->add_subcommand("drop", "Drop an empty namespace");
  drop->add_option("namespace", args->ns)->required();
  drop->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto ns, spec::ParseNamespace(args->ns));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_RETURN_NOT_OK(catalog->DropNamespace(ns));
      std::cout << "dropped namespace " << args->ns << "\n";
      return OkStatus();
    }));
  });

  auto* set = group->add_subcommand("set", "Set namespace properties");
  set->add_option("namespace", args->ns)->required();
  set->add_option("properties", args->pairs, "key=value ...")->required();
  set->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto ns, spec::ParseNamespace(args->ns));
      SKADE_ASSIGN_OR_RAISE(auto updates, ParseKeyValues(args->pairs));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto result, catalog->UpdateNamespaceProperties(ns, {}, updates));
      std::cout << "updated " << Join(result.updated, ", ") << "\n";
      return OkStatus();
    }));
  });

  auto* unset = group->add_subcommand("unset", "Remove namespace properties");
  unset->add_option("namespace", args->ns)->required();
  unset->add_option("keys", args->keys, "key ...")->required();
  unset->callback([&context, args] {
    throw CLI::RuntimeError(Run([&]() -> Status {
      SKADE_ASSIGN_OR_RAISE(auto ns, spec::ParseNamespace(args->ns));
      SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
      SKADE_ASSIGN_OR_RAISE(auto result, catalog->UpdateNamespaceProperties(ns, args->keys, {}));
      std::cout << "removed " << Join(result.removed, ", ");
      if (!result.missing.empty()) std::cout << " (missing: " << Join(result.missing, ", ") << ")";
      std::cout << "\n";
      return OkStatus();
    }));
  });
}

}  // namespace skade::cli
