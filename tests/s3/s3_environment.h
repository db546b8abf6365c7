// One MinIO server for every test of the S3 suite (one process: the suite is
// one CTest entry), and Arrow's S3 layer shut down at the end.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "skade/s3/s3_file_io.h"
#include "testing/minio_server.h"

namespace skade::testing {

class S3Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string error;
    server_ = MinioServer::Start(&error);
    ASSERT_TRUE(server_) << error;
  }
  void TearDown() override {
    server_.reset();
    s3::FinalizeS3();
  }
  static const MinioServer& server() { return *server_; }

 private:
  static inline std::unique_ptr<MinioServer> server_;
};

/// A new bucket of the shared server, named uniquely for the calling test.
inline std::string NewBucket() {
  static int counter = 0;
  std::string name = "bucket-" + std::to_string(++counter);
  auto created = S3Environment::server().CreateBucket(name);
  EXPECT_TRUE(created) << created.error().ToString();
  return name;
}

}  // namespace skade::testing
