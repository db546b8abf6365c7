#include "skade/io/location.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "skade/util/strings.h"

namespace skade::io {

namespace {

constexpr char kLocalScheme[] = "file";

// The length of the scheme at the start of `location` (RFC 3986: a letter,
// then letters, digits, '+', '-', '.', up to ':'), or 0 when there is none.
size_t SchemeLength(std::string_view location) {
  if (location.empty() || !std::isalpha(static_cast<unsigned char>(location[0]))) return 0;
  for (size_t i = 1; i < location.size(); ++i) {
    char c = location[i];
    if (c == ':') return i;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return 0;
  }
  return 0;
}

tl::unexpected<Error> DotSegment(std::string_view location) {
  return InvalidArgument("Invalid location '", location, "': '.' and '..' are not allowed");
}

}  // namespace

Result<Location> Location::ParseVerbatim(std::string_view location) {
  // A NUL would cut the path short where the OS reads it, and no storage
  // needs control characters in a name.
  for (size_t i = 0; i < location.size(); ++i) {
    auto c = static_cast<unsigned char>(location[i]);
    if (c < 0x20 || c == 0x7f) {
      // The location itself is not echoed: the byte would reach logs and terminals.
      static constexpr char kHex[] = "0123456789ABCDEF";
      return InvalidArgument("Invalid location: control character 0x", kHex[c >> 4], kHex[c & 0xF],
                             " at byte ", i);
    }
  }
  Location out;
  std::string_view rest = location;
  if (size_t length = SchemeLength(location); length > 0) {
    out.scheme = AsciiLower(location.substr(0, length));
    rest.remove_prefix(length + 1);
    if (ConsumePrefix(&rest, "//")) {
      size_t slash = rest.find('/');
      out.authority = std::string(rest.substr(0, slash));
      rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
    }
  } else {
    out.scheme = kLocalScheme;
  }
  if (!rest.starts_with('/')) return InvalidArgument("Location is not absolute: ", location);
  out.path = std::string(rest);
  return out;
}

Result<Location> Location::Parse(std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(Location out, ParseVerbatim(location));
  std::vector<std::string> segments = Split(std::string_view(out.path).substr(1), '/');
  // Object-store keys keep their empty segments, except trailing ones.
  size_t end = segments.size();
  while (end > 0 && segments[end - 1].empty()) --end;
  bool local = out.scheme == kLocalScheme;
  std::string path;
  for (size_t i = 0; i < end; ++i) {
    const std::string& segment = segments[i];
    if (segment == "." || segment == "..") return DotSegment(location);
    if (segment.empty() && local) continue;
    StrAppend(&path, "/", segment);
  }
  out.path = path.empty() ? std::string("/") : std::move(path);
  return out;
}

Result<Location> Location::ParseUserInput(std::string_view location) {
  if (location.starts_with('/') || SchemeLength(location) > 0) return Parse(location);
  std::vector<char> cwd(4096);
  while (::getcwd(cwd.data(), cwd.size()) == nullptr) {
    if (errno != ERANGE) {
      return IoError("Cannot resolve ", location,
                     " from the working directory: ", std::strerror(errno));
    }
    cwd.resize(cwd.size() * 2);
  }
  std::vector<std::string> kept;
  for (const std::string& part : {std::string(cwd.data()), std::string(location)}) {
    for (auto& segment : Split(part, '/')) {
      if (segment.empty() || segment == ".") continue;
      if (segment == "..") {
        if (!kept.empty()) kept.pop_back();
        continue;
      }
      kept.push_back(std::move(segment));
    }
  }
  return Parse(StrCat("/", Join(kept, "/")));
}

bool Location::IsUnder(const Location& root) const {
  if (scheme != root.scheme || authority != root.authority) return false;
  return path == root.path || root.path == "/" ||
         (path.size() > root.path.size() && path.starts_with(root.path) &&
          path[root.path.size()] == '/');
}

Location Location::Parent() const {
  Location parent = *this;
  size_t slash = path.rfind('/');
  parent.path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  return parent;
}

std::string_view Location::Name() const {
  std::string_view view = path;
  size_t slash = view.rfind('/');
  return slash == std::string_view::npos ? view : view.substr(slash + 1);
}

Location Location::Child(std::string_view name) const {
  Location child = *this;
  child.path = StrCat(path == "/" ? "" : path, "/", name);
  return child;
}

std::string Location::ToString() const { return StrCat(scheme, "://", authority, path); }

}  // namespace skade::io
