// A UNIX socket planted where a file is expected: opening one for reading
// fails with ENXIO, which a hostile client can cause in a directory it may
// write in.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

namespace skade::testing {

/// Makes a socket at `path`: bound at `scratch` (a short path, as a socket
/// address holds 107 bytes), then moved there. Fails the test on error.
inline void PlaceUnixSocket(const std::string& path, const std::string& scratch) {
  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(scratch.size(), sizeof(address.sun_path));
  std::memcpy(address.sun_path, scratch.c_str(), scratch.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ::close(sock);
  std::filesystem::rename(scratch, path);
}

}  // namespace skade::testing
