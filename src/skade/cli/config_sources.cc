#include "skade/cli/config_sources.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>

#include "skade/cli/config_file.h"
#include "skade/util/strings.h"

namespace skade::cli {

namespace {

// One option that the file and the environment can set.
struct Configurable {
  CLI::Option* option = nullptr;
  std::string section;  // "" for a global option, else the subcommand's name
  std::string key;      // the long name: "port"
  std::string variable;
  bool is_flag = false;
  bool is_list = false;

  std::string FileKey() const { return section.empty() ? key : StrCat(section, ".", key); }
};

// Keys whose values are secrets: a file that holds one should be private.
bool HoldsSecret(const Configurable& target, const std::vector<std::string>& values) {
  if (target.key == "oauth-client") return true;
  if (target.key != "io") return false;
  for (const auto& value : values) {
    std::string property = AsciiLower(value.substr(0, value.find('=')));
    for (const char* word : {"secret", "token", "password"}) {
      if (property.find(word) != std::string::npos) return true;
    }
  }
  return false;
}

// The state the config reader, the failure message and ConfigSourceNote
// share. Lives as long as the longest of them (shared_ptr).
class ConfigLayers {
 public:
  ConfigLayers(CLI::App* app, std::vector<Configurable> options)
      : app_(app), options_(std::move(options)) {}

  // The file's entries overlaid with the environment, as CLI11 config items.
  // Runs after the command line is parsed (CLI11's config pass), so an
  // option's count() says whether the command line set it.
  std::vector<CLI::ConfigItem> Read(std::istream& input) {
    std::string path = ConfigPath();
    std::string text{std::istreambuf_iterator<char>(input), std::istreambuf_iterator<char>()};
    auto entries = ParseConfigFile(text);
    if (!entries) throw CLI::ConfigError(StrCat(path, ": ", entries.error().message));

    // option -> (values, source) from the file, then replaced by the environment.
    std::map<const CLI::Option*, std::pair<const Configurable*, CLI::ConfigItem>> items;
    std::vector<const CLI::Option*> order;
    bool secrets = false;
    for (const auto& entry : *entries) {
      const Configurable* target = Find(entry, path);
      if (entry.is_array && !target->is_list) {
        throw CLI::ConfigError(
            StrCat(path, ":", entry.line, ": '", entry.key(), "' takes one value, not an array"));
      }
      secrets = secrets || HoldsSecret(*target, entry.values);
      Record(target, entry.values, StrCat("'", entry.key(), "' in ", path, ":", entry.line), &items,
             &order);
    }
    if (secrets) WarnIfShared(path);
    for (const auto& target : options_) {
      const char* value = std::getenv(target.variable.c_str());
      if (value == nullptr || *value == '\0') continue;
      std::vector<std::string> values{value};
      if (target.is_list && value[0] == '[') {
        auto parsed = ParseConfigValue(value);
        if (!parsed) {
          std::string_view message = parsed.error().message;
          ConsumePrefix(&message, "line 1: ");
          throw CLI::ConfigError(StrCat(target.variable, ": ", message));
        }
        values = parsed->values;
      }
      Record(&target, std::move(values), StrCat("environment variable ", target.variable), &items,
             &order);
    }
    std::vector<CLI::ConfigItem> out;
    for (const CLI::Option* option : order) out.push_back(items.at(option).second);
    return out;
  }

  std::string Note(std::string_view message) const {
    std::string note;
    for (size_t at = message.find("--"); at != std::string_view::npos;
         at = message.find("--", at + 2)) {
      size_t end = at + 2;
      while (end < message.size() &&
             (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-')) {
        ++end;
      }
      std::string name(message.substr(at + 2, end - at - 2));
      for (const auto& target : options_) {
        auto source = sources_.find(target.option);
        if (target.key != name || source == sources_.end()) continue;
        std::string clause = StrCat("--", name, " is from ", source->second);
        if (note.find(clause) == std::string::npos) StrAppend(&note, "; ", clause);
      }
    }
    return note;
  }

 private:
  std::string ConfigPath() const {
    const CLI::Option* config = app_->get_config_ptr();
    return config->count() > 0 ? config->results().front() : config->get_default_str();
  }

  const Configurable* Find(const ConfigEntry& entry, const std::string& path) const {
    std::string section = entry.path.size() > 1 ? entry.path.front() : "";
    const std::string& key = entry.path.back();
    for (const auto& target : options_) {
      if (entry.path.size() <= 2 && target.section == section && target.key == key) return &target;
    }
    std::string hint;
    for (const auto& target : options_) {
      if (target.key != key || entry.path.size() > 2) continue;
      hint = target.section.empty()
                 ? StrCat(" (--", key, " is a global option: set it before any [section])")
                 : StrCat(" (--", key, " is an option of '", target.section, "': set it under [",
                          target.section, "])");
    }
    throw CLI::ConfigError(
        StrCat(path, ":", entry.line, ": unknown key '", entry.key(), "'", hint));
  }

  // The values apply unless the command line set the option (CLI11 skips
  // those); a later source replaces an earlier one.
  void Record(const Configurable* target, std::vector<std::string> values, std::string source,
              std::map<const CLI::Option*, std::pair<const Configurable*, CLI::ConfigItem>>* items,
              std::vector<const CLI::Option*>* order) {
    CLI::ConfigItem item;
    if (!target->section.empty()) item.parents = {target->section};
    item.name = target->key;
    item.inputs = std::move(values);
    auto [it, inserted] = items->try_emplace(target->option, target, item);
    if (inserted) {
      order->push_back(target->option);
    } else {
      it->second.second = std::move(item);
    }
    if (target->option->count() == 0) sources_[target->option] = std::move(source);
  }

  static void WarnIfShared(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO))) {
      std::cerr << "skade: warning: " << path
                << " holds secrets but others may read it (chmod 600)\n";
    }
  }

  CLI::App* app_;
  std::vector<Configurable> options_;
  std::map<const CLI::Option*, std::string> sources_;
};

// CLI11's config reader, over ConfigLayers.
class LayeredConfigReader : public CLI::Config {
 public:
  explicit LayeredConfigReader(std::shared_ptr<ConfigLayers> layers) : layers_(std::move(layers)) {}

  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    return layers_->Read(input);
  }
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override {
    return CLI::ConfigTOML().to_config(app, default_also, write_description, std::move(prefix));
  }

 private:
  std::shared_ptr<ConfigLayers> layers_;
};

std::weak_ptr<const ConfigLayers>& InstalledLayers() {
  static std::weak_ptr<const ConfigLayers> layers;
  return layers;
}

void Collect(CLI::App* scope, const std::string& section, std::vector<Configurable>* out) {
  for (CLI::Option* option : scope->get_options()) {
    if (!option->get_configurable() || option->get_lnames().empty()) continue;
    Configurable target;
    target.option = option;
    target.section = section;
    target.key = option->get_lnames().front();
    target.variable = EnvironmentVariableFor(target.key);
    target.is_flag = option->get_expected_min() == 0;
    target.is_list = !target.is_flag && option->get_items_expected_max() > 1;
    out->push_back(std::move(target));
  }
}

}  // namespace

std::string EnvironmentVariableFor(std::string_view long_name) {
  std::string variable = "SKADE_";
  for (char c : long_name) {
    variable.push_back(c == '-' ? '_'
                                : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return variable;
}

Status InstallConfigSources(CLI::App& app, const std::vector<std::string>& sections) {
  const char* named = std::getenv(kConfigVariable);
  bool from_variable = named != nullptr && *named != '\0';
  CLI::Option* config = app.set_config(
      "--config", from_variable ? named : kEmptyConfigFile,
      StrCat("TOML file of option values: global options at the top, serve's under [serve] "
             "(default $",
             kConfigVariable, "; docs/operations/configuration.md)"),
      /*config_required=*/from_variable);
  config->option_text("PATH");

  std::vector<Configurable> options;
  Collect(&app, "", &options);
  for (const auto& section : sections) {
    CLI::App* subcommand = nullptr;
    try {
      subcommand = app.get_subcommand(section);
    } catch (const CLI::OptionNotFound&) {
      return InvalidArgument("no subcommand '", section, "' to configure");
    }
    Collect(subcommand, section, &options);
  }
  std::map<std::string, std::string> variables;
  for (auto& target : options) {
    auto [it, inserted] = variables.emplace(target.variable, target.FileKey());
    if (!inserted) {
      return InvalidArgument("options '", it->second, "' and '", target.FileKey(),
                             "' would share the environment variable ", target.variable);
    }
    target.option->envname(target.variable);
  }

  auto layers = std::make_shared<ConfigLayers>(&app, std::move(options));
  InstalledLayers() = layers;
  app.config_formatter(std::make_shared<LayeredConfigReader>(layers));
  app.failure_message([layers](const CLI::App* failed, const CLI::Error& error) {
    // CLI11 throws a FileError only for a config file it cannot read.
    const char* what = dynamic_cast<const CLI::FileError*>(&error) ? "config file " : "";
    std::string message = StrCat("skade: ", what, error.what(), layers->Note(error.what()), "\n");
    if (failed->get_help_ptr() != nullptr) {
      StrAppend(&message, "Run with ", failed->get_help_ptr()->get_name(),
                " for more information.\n");
    }
    return message;
  });
  return OkStatus();
}

std::string ConfigSourceNote(std::string_view message) {
  auto layers = InstalledLayers().lock();
  return layers ? layers->Note(message) : std::string();
}

}  // namespace skade::cli
