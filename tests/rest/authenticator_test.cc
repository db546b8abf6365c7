// Token authentication: how tokens are made, found, refreshed, bounded and
// dropped, with an injected clock so no test sleeps.
#include "skade/rest/authenticator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "skade/rest/request_target.h"
#include "skade/util/json_reader.h"

namespace skade::rest {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

class AuthenticatorTest : public ::testing::Test {
 protected:
  AuthOptions Options() {
    AuthOptions options;
    options.mode = AuthOptions::Mode::kToken;
    options.clients = {{"writer", "w-secret", false}, {"reader", "r-secret", true}};
    options.clock = [this] { return now_; };
    return options;
  }

  HttpResponse Post(Authenticator& auth, const std::string& form) {
    HttpRequest request;
    request.method = "POST";
    request.target = "/v1/oauth/tokens";
    request.body = form;
    return auth.IssueToken(request);
  }

  // The access token of a successful grant; "" (and a test failure) otherwise.
  std::string Grant(Authenticator& auth, const std::string& id, const std::string& secret,
                    int64_t* expires_in = nullptr) {
    return TokenOf(
        Post(auth, "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret),
        expires_in);
  }

  std::string Exchange(Authenticator& auth, const std::string& token,
                       int64_t* expires_in = nullptr) {
    return TokenOf(Post(auth, "grant_type=" +
                                  PercentEncode("urn:ietf:params:oauth:grant-type:token-exchange") +
                                  "&subject_token=" + token + "&subject_token_type=" +
                                  PercentEncode("urn:ietf:params:oauth:token-type:access_token")),
                   expires_in);
  }

  std::string TokenOf(const HttpResponse& response, int64_t* expires_in) {
    EXPECT_EQ(response.status, 200) << response.body;
    if (response.status != 200) return "";
    auto element = json::Parse(parser_, response.body);
    EXPECT_TRUE(element);
    auto object = json::AsObject(*element, "body");
    if (expires_in) *expires_in = *json::GetInt64(*object, "expires_in");
    return *json::GetString(*object, "access_token");
  }

  bool Accepted(Authenticator& auth, const std::string& token,
                const std::string& scheme = "Bearer ") {
    HttpRequest request;
    request.headers.emplace_back("authorization", scheme + token);
    return auth.Authenticate(request).has_value();
  }

  Clock::time_point now_ = Clock::now();
  simdjson::dom::parser parser_;
};

TEST_F(AuthenticatorTest, TokensAre256RandomBitsAndNeverRepeat) {
  Authenticator auth(Options());
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string token = Grant(auth, "writer", "w-secret");
    ASSERT_EQ(token.size(), 64u);  // 32 bytes, hex
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
    EXPECT_TRUE(seen.insert(token).second);
  }
}

TEST_F(AuthenticatorTest, OnlyTheExactTokenIsAccepted) {
  Authenticator auth(Options());
  std::string token = Grant(auth, "writer", "w-secret");
  EXPECT_TRUE(Accepted(auth, token));
  EXPECT_FALSE(Accepted(auth, token.substr(0, 63)));
  EXPECT_FALSE(Accepted(auth, token + "0"));
  std::string flipped = token;
  flipped.back() = flipped.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(Accepted(auth, flipped));
  EXPECT_FALSE(Accepted(auth, ""));
}

// RFC 9110 §11.1: the scheme's case does not matter; only Bearer is one.
TEST_F(AuthenticatorTest, TheBearerSchemeIsMatchedWithoutCase) {
  Authenticator auth(Options());
  std::string token = Grant(auth, "writer", "w-secret");
  for (const char* scheme : {"Bearer ", "bearer ", "BEARER ", "bEaReR "}) {
    EXPECT_TRUE(Accepted(auth, token, scheme)) << scheme;
  }
  for (const char* scheme : {"Basic ", "Bearer", "Bearerx ", ""}) {
    EXPECT_FALSE(Accepted(auth, token, scheme)) << scheme;
  }
}

TEST_F(AuthenticatorTest, ReadOnlyTravelsWithTheTokenAndItsExchange) {
  Authenticator auth(Options());
  std::string token = Grant(auth, "reader", "r-secret");
  HttpRequest request;
  request.headers.emplace_back("authorization", "Bearer " + Exchange(auth, token));
  auto principal = auth.Authenticate(request);
  ASSERT_TRUE(principal);
  EXPECT_EQ(principal->client_id, "reader");
  EXPECT_TRUE(principal->read_only);
}

TEST_F(AuthenticatorTest, TokensExpire) {
  auto options = Options();
  options.token_ttl_seconds = 10;
  Authenticator auth(options);
  std::string token = Grant(auth, "writer", "w-secret");
  now_ += seconds(9);
  EXPECT_TRUE(Accepted(auth, token));
  now_ += seconds(1);
  EXPECT_FALSE(Accepted(auth, token));
}

// Regression: each exchange used to grant a fresh `token_ttl`, so a stolen
// token could be refreshed forever.
TEST_F(AuthenticatorTest, ExchangeNeverExtendsPastTheMaximumLifetime) {
  auto options = Options();
  options.token_ttl_seconds = 100;
  options.max_token_lifetime_seconds = 150;
  Authenticator auth(options);
  int64_t expires_in = 0;
  std::string first = Grant(auth, "writer", "w-secret", &expires_in);
  EXPECT_EQ(expires_in, 100);
  now_ += seconds(90);
  std::string second = Exchange(auth, first, &expires_in);
  EXPECT_EQ(expires_in, 60);  // 150 after the grant, not 100 after the exchange
  now_ += seconds(50);
  std::string third = Exchange(auth, second, &expires_in);
  EXPECT_EQ(expires_in, 10);
  now_ += seconds(10);
  EXPECT_FALSE(Accepted(auth, second));
  EXPECT_FALSE(Accepted(auth, third));
  EXPECT_EQ(Post(auth,
                 "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
                 "&subject_token=" +
                     third)
                .status,
            401);
  // A new client-credentials grant starts a new lifetime.
  EXPECT_TRUE(Accepted(auth, Grant(auth, "writer", "w-secret")));
}

TEST_F(AuthenticatorTest, TheMaximumLifetimeAlsoCapsTheFirstGrant) {
  auto options = Options();
  options.token_ttl_seconds = 100;
  options.max_token_lifetime_seconds = 30;
  Authenticator auth(options);
  int64_t expires_in = 0;
  std::string token = Grant(auth, "writer", "w-secret", &expires_in);
  EXPECT_EQ(expires_in, 30);
  now_ += seconds(30);
  EXPECT_FALSE(Accepted(auth, token));
}

TEST_F(AuthenticatorTest, ExpiredTokensAreDropped) {
  auto options = Options();
  options.token_ttl_seconds = 10;
  Authenticator auth(options);
  for (int i = 0; i < 5; ++i) Grant(auth, "writer", "w-secret");
  EXPECT_EQ(auth.token_count(), 5u);
  now_ += seconds(10);
  std::string live = Grant(auth, "writer", "w-secret");
  EXPECT_EQ(auth.token_count(), 1u);
  EXPECT_TRUE(Accepted(auth, live));
}

TEST_F(AuthenticatorTest, AClientAtItsShareLosesItsOwnTokenThatExpiresFirstNeverAnothers) {
  auto options = Options();
  options.max_tokens = 6;  // two clients: three tokens each
  Authenticator auth(options);
  const std::string reader = Grant(auth, "reader", "r-secret");
  now_ += seconds(1);
  std::vector<std::string> tokens;
  for (int i = 0; i < 50; ++i) {
    tokens.push_back(Grant(auth, "writer", "w-secret"));
    now_ += seconds(1);
  }
  EXPECT_EQ(auth.token_count(), 4u);
  // Review finding: the flood logged every other client out.
  EXPECT_TRUE(Accepted(auth, reader));
  for (int i = 0; i < 47; ++i) EXPECT_FALSE(Accepted(auth, tokens[i])) << i;
  for (int i = 47; i < 50; ++i) EXPECT_TRUE(Accepted(auth, tokens[i])) << i;
}

TEST_F(AuthenticatorTest, WrongSecretsAndUnknownClientsGetNoToken) {
  Authenticator auth(Options());
  EXPECT_EQ(
      Post(auth, "grant_type=client_credentials&client_id=writer&client_secret=r-secret").status,
      401);
  EXPECT_EQ(
      Post(auth, "grant_type=client_credentials&client_id=nobody&client_secret=w-secret").status,
      401);
  EXPECT_EQ(auth.token_count(), 0u);
}

TEST_F(AuthenticatorTest, OAuthErrorsNeverEchoInvalidUtf8) {
  Authenticator auth(Options());
  auto response = Post(auth, "grant_type=%FF%FEpassword");
  EXPECT_EQ(response.status, 400);
  EXPECT_TRUE(json::Parse(parser_, response.body)) << response.body;
  EXPECT_NE(response.body.find("\xEF\xBF\xBD"), std::string::npos) << response.body;
}

TEST(OAuthClientListTest, ParsesLinesAndCommasAndSkipsBlanksAndComments) {
  auto clients = ParseOAuthClientList("# writers\nw:one\r\n\n  r:two:ro  \n", false);
  ASSERT_TRUE(clients) << clients.error().ToString();
  ASSERT_EQ(clients->size(), 2u);
  EXPECT_EQ((*clients)[0].id, "w");
  EXPECT_EQ((*clients)[0].secret, "one");
  EXPECT_FALSE((*clients)[0].read_only);
  EXPECT_EQ((*clients)[1].id, "r");
  EXPECT_TRUE((*clients)[1].read_only);

  auto listed = ParseOAuthClientList("a:x,b:y:ro", true);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 2u);
  // In a file a comma may be part of a secret.
  auto file = ParseOAuthClientList("a:x,y", false);
  ASSERT_TRUE(file);
  ASSERT_EQ(file->size(), 1u);
  EXPECT_EQ((*file)[0].secret, "x,y");

  auto bad = ParseOAuthClientList("ok:fine\nbroken", false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.find("fine"), std::string::npos) << "secrets stay out of errors";
}

}  // namespace
}  // namespace skade::rest
