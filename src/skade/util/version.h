// skade's version, as backups and reports name the program that wrote them.
#pragma once

namespace skade {

inline constexpr char kSkadeVersion[] = "0.1.0";

}  // namespace skade
