// The S3 suite's main: the shared MinIO server starts before the first test.
#include <gtest/gtest.h>

#include "s3/s3_environment.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new skade::testing::S3Environment());
  return RUN_ALL_TESTS();
}
