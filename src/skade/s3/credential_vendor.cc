#include "skade/s3/credential_vendor.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "skade/io/location.h"
#include "skade/s3/s3_client.h"
#include "skade/s3/s3_file_io.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::s3 {

namespace {

std::map<std::string, std::string> AsProperties(const AwsCredentials& credentials) {
  std::map<std::string, std::string> out{{kAccessKeyIdProperty, credentials.access_key_id},
                                         {kSecretAccessKeyProperty, credentials.secret_access_key}};
  if (!credentials.session_token.empty()) {
    out[kSessionTokenProperty] = credentials.session_token;
  }
  return out;
}

// The text of the first <tag>…</tag> in `xml`, or empty.
std::string XmlText(const std::string& xml, std::string_view tag) {
  std::string open = StrCat("<", tag, ">"), close = StrCat("</", tag, ">");
  auto start = xml.find(open);
  if (start == std::string::npos) return {};
  start += open.size();
  auto end = xml.find(close, start);
  return end == std::string::npos ? std::string() : xml.substr(start, end - start);
}

// STS refuses a longer session policy (AWS: "can't exceed 2,048
// characters"; PackedPolicyTooLarge), whatever the caller retries.
constexpr size_t kMaxSessionPolicyChars = 2048;

// The keys a policy grants: prefixes of object keys, by bucket, in the order
// first named.
struct BucketPrefixes {
  std::string bucket;
  std::vector<std::string> prefixes;
};

// A session policy that allows the object calls on the keys under each of
// a table's roots (only GetObject when `read_only`), listing only under those
// prefixes, and finding the buckets' regions (a bucket call that takes no
// prefix condition). A root whose text the policy would read as a pattern
// ('*', '?') or a variable ('$') is refused: its keys would reach other
// tables. So are roots whose policy (each prefix three times) STS would
// refuse as too long. Roots on other storage than S3 are left out.
Result<std::string> TablePolicy(const std::vector<std::string>& locations, bool read_only) {
  std::vector<BucketPrefixes> buckets;
  for (const std::string& location : locations) {
    SKADE_ASSIGN_OR_RAISE(io::Location parsed, io::Location::Parse(location));
    if (parsed.scheme != "s3" && parsed.scheme != "s3a" && parsed.scheme != "s3n") continue;
    if (location.find_first_of("*?$") != std::string::npos) {
      return MakeError(ErrorKind::kForbidden, "Cannot vend credentials for ", location,
                       ": an access policy would read its '*', '?' or '$' as a wildcard or a ",
                       "variable and reach beyond the table; move the table to a location ",
                       "without them");
    }
    auto bucket = std::find_if(buckets.begin(), buckets.end(), [&](const BucketPrefixes& b) {
      return b.bucket == parsed.authority;
    });
    if (bucket == buckets.end()) {
      buckets.push_back({parsed.authority, {}});
      bucket = std::prev(buckets.end());
    }
    bucket->prefixes.push_back(parsed.path.substr(1));
  }
  if (buckets.empty()) {
    return MakeError(ErrorKind::kForbidden, "Cannot vend credentials for ", Join(locations, ", "),
                     ": no location on S3");
  }
  auto bucket_arn = [](const BucketPrefixes& bucket) {
    return StrCat("arn:aws:s3:::", bucket.bucket);
  };
  JsonWriter writer;
  // `listed`: the prefixes a ListBucket may name.
  auto statement = [&](std::initializer_list<const char*> actions,
                       const std::vector<std::string>& resources,
                       const std::vector<std::string>* listed) {
    writer.StartObject();
    writer.Field("Effect", "Allow");
    writer.Key("Action");
    writer.StartArray();
    for (const char* action : actions) writer.String(action);
    writer.EndArray();
    writer.Key("Resource");
    writer.StartArray();
    for (const std::string& resource : resources) writer.String(resource);
    writer.EndArray();
    if (listed != nullptr) {
      writer.Key("Condition");
      writer.StartObject();
      writer.Key("StringLike");
      writer.StartObject();
      // Not the bare prefix: "wh/n/t" also lists the keys of a table "t1".
      writer.Key("s3:prefix");
      writer.StartArray();
      for (const std::string& prefix : *listed) {
        writer.String(StrCat(prefix, "/"));
        writer.String(StrCat(prefix, "/*"));
      }
      writer.EndArray();
      writer.EndObject();
      writer.EndObject();
    }
    writer.EndObject();
  };
  std::vector<std::string> objects, bucket_arns;
  for (const BucketPrefixes& bucket : buckets) {
    bucket_arns.push_back(bucket_arn(bucket));
    for (const std::string& prefix : bucket.prefixes) {
      objects.push_back(StrCat(bucket_arn(bucket), "/", prefix, "/*"));
    }
  }
  writer.StartObject();
  writer.Field("Version", "2012-10-17");
  writer.Key("Statement");
  writer.StartArray();
  if (read_only) {
    statement({"s3:GetObject"}, objects, nullptr);
  } else {
    statement({"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
               "s3:ListMultipartUploadParts"},
              objects, nullptr);
  }
  for (const BucketPrefixes& bucket : buckets) {
    statement({"s3:ListBucket"}, {bucket_arn(bucket)}, &bucket.prefixes);
  }
  statement({"s3:GetBucketLocation"}, bucket_arns, nullptr);
  writer.EndArray();
  writer.EndObject();
  std::string policy = writer.Take();
  if (policy.size() > kMaxSessionPolicyChars) {
    return MakeError(ErrorKind::kForbidden, "Cannot vend credentials for ", Join(locations, ", "),
                     ": its access policy would have ", policy.size(),
                     " characters, more than the ", kMaxSessionPolicyChars,
                     " STS accepts; move the table to a shorter location");
  }
  return policy;
}

// Temporary credentials from STS, one set per table's roots, reused until a
// quarter of their lifetime is left.
class StsVendor {
 public:
  StsVendor(S3Config config, CredentialsSource signer, VendingOptions options)
      : client_(std::move(config), std::move(signer)), options_(std::move(options)) {}

  Result<std::map<std::string, std::string>> Vend(const std::vector<std::string>& locations,
                                                  bool read_only) {
    auto now = std::chrono::steady_clock::now();
    // No location holds a control character (io::Location::Parse).
    std::string key = StrCat(read_only ? "r\n" : "rw\n", Join(locations, "\n"));
    {
      std::lock_guard lock(mutex_);
      auto it = cache_.find(key);
      if (it != cache_.end() && now < it->second.renew_at) return AsProperties(it->second.value);
    }
    SKADE_ASSIGN_OR_RAISE(std::string policy, TablePolicy(locations, read_only));
    std::string form =
        StrCat("Action=AssumeRole&Version=2011-06-15&DurationSeconds=", options_.duration_seconds,
               "&Policy=", UriEncode(policy, false));
    if (!options_.role_arn.empty()) {
      StrAppend(&form, "&RoleArn=", UriEncode(options_.role_arn, false), "&RoleSessionName=skade");
    }
    SKADE_ASSIGN_OR_RAISE(auto response, client_.PostSts(form));
    AwsCredentials credentials{XmlText(response.body, "AccessKeyId"),
                               XmlText(response.body, "SecretAccessKey"),
                               XmlText(response.body, "SessionToken")};
    if (credentials.empty() || credentials.secret_access_key.empty()) {
      return IoError("STS AssumeRole at ", client_.config().EndpointUrl(),
                     " answered without credentials");
    }
    std::lock_guard lock(mutex_);
    cache_[key] = {credentials, now + std::chrono::seconds(options_.duration_seconds * 3 / 4)};
    return AsProperties(credentials);
  }

 private:
  struct Cached {
    AwsCredentials value;
    std::chrono::steady_clock::time_point renew_at;
  };
  S3Client client_;
  VendingOptions options_;
  std::mutex mutex_;
  std::unordered_map<std::string, Cached> cache_;
};

}  // namespace

Result<VendingMode> ParseVendingMode(std::string_view text) {
  if (text == "none") return VendingMode::kNone;
  if (text == "static") return VendingMode::kStatic;
  if (text == "sts") return VendingMode::kSts;
  return InvalidArgument("Credential vending must be none, static or sts, not '", text, "'");
}

Result<std::map<std::string, std::string>> ClientProperties(
    const io::FileIOProperties& properties) {
  SKADE_ASSIGN_OR_RAISE(S3Config config, S3Config::FromProperties(properties));
  std::map<std::string, std::string> out{
      {kRegionProperty, config.region},
      {kClientRegionProperty, config.region},
      {kPathStyleProperty, config.path_style ? "true" : "false"}};
  if (!config.endpoint_host.empty()) out[kEndpointProperty] = config.EndpointUrl();
  return out;
}

Result<CredentialVendor> MakeCredentialVendor(const io::FileIOProperties& properties,
                                              const VendingOptions& options) {
  if (options.mode == VendingMode::kNone) return CredentialVendor();
  SKADE_ASSIGN_OR_RAISE(S3Config config, S3Config::FromProperties(properties));
  SKADE_ASSIGN_OR_RAISE(CredentialsSource source, NewCredentialsSource(properties));
  // Fail at start, not at a client's first loadTable.
  SKADE_ASSIGN_OR_RAISE(AwsCredentials probe, source());
  (void)probe;
  if (options.mode == VendingMode::kStatic) {
    return CredentialVendor([source](const std::vector<std::string>&,
                                     bool read_only) -> Result<std::map<std::string, std::string>> {
      if (read_only) return std::map<std::string, std::string>();  // cannot be limited
      SKADE_ASSIGN_OR_RAISE(AwsCredentials credentials, source());
      return AsProperties(credentials);
    });
  }
  if (options.duration_seconds < 900 || options.duration_seconds > 43200) {
    return InvalidArgument("STS credentials last 900 to 43200 seconds, not ",
                           options.duration_seconds);
  }
  auto vendor = std::make_shared<StsVendor>(std::move(config), std::move(source), options);
  return CredentialVendor([vendor](const std::vector<std::string>& locations, bool read_only) {
    return vendor->Vend(locations, read_only);
  });
}

}  // namespace skade::s3
