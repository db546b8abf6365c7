#include "skade/io/file_io_registry.h"

#include <utility>

#include "skade/io/location.h"
#include "skade/util/strings.h"

namespace skade::io {

FileIORegistry& FileIORegistry::Default() {
  static FileIORegistry* registry = [] {
    auto* out = new FileIORegistry();
    out->Register("file", [](const FileIOProperties&) -> Result<std::shared_ptr<FileIO>> {
      return NewLocalFileIO();
    });
    return out;
  }();
  return *registry;
}

void FileIORegistry::Register(std::string_view scheme, FileIOFactory factory) {
  factories_[AsciiLower(scheme)] = std::move(factory);
}

Result<std::shared_ptr<FileIO>> FileIORegistry::Create(std::string_view location,
                                                       const FileIOProperties& properties) const {
  SKADE_ASSIGN_OR_RAISE(Location parsed, Location::ParseUserInput(location));
  auto it = factories_.find(parsed.scheme);
  if (it == factories_.end()) {
    return Unsupported("No FileIO for location scheme '", parsed.scheme, "' (of ", location,
                       "); skade has: ", Join(schemes(), ", "));
  }
  return it->second(properties);
}

std::vector<std::string> FileIORegistry::schemes() const {
  std::vector<std::string> out;
  for (const auto& [scheme, factory] : factories_) out.push_back(scheme);
  return out;
}

}  // namespace skade::io
