#include "skade/s3/sigv4.h"

#include <gtest/gtest.h>

namespace skade::s3 {
namespace {

// The "GET Object" example of the AWS documentation, "Signature Calculations
// for the Authorization Header: Transferring Payload in a Single Chunk".
TEST(SigV4Test, MatchesTheAwsDocumentationExample) {
  SignableRequest request;
  request.method = "GET";
  request.canonical_uri = "/test.txt";
  request.headers = {{"host", "examplebucket.s3.amazonaws.com"}, {"range", "bytes=0-9"}};
  request.payload_sha256_hex = Sha256Hex("");
  AwsCredentials credentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                             ""};
  SignRequest(request, credentials, "us-east-1", "s3", 1369353600);  // 2013-05-24T00:00:00Z
  EXPECT_EQ(request.headers["x-amz-date"], "20130524T000000Z");
  EXPECT_EQ(request.headers["authorization"],
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, SendsTheSessionTokenOfTemporaryCredentials) {
  SignableRequest request{"PUT", "/b/k", "", {{"host", "h"}}, Sha256Hex("x")};
  SignRequest(request, {"id", "secret", "token"}, "us-east-1", "s3", 0);
  EXPECT_EQ(request.headers["x-amz-security-token"], "token");
  EXPECT_NE(request.headers["authorization"].find("x-amz-security-token"), std::string::npos);
}

TEST(SigV4Test, EncodesAsSigV4Wants) {
  EXPECT_EQ(UriEncode("a b/c~d+e", true), "a%20b/c~d%2Be");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace skade::s3
