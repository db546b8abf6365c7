#include "skade/s3/s3_config.h"

#include <cstdlib>

#include "skade/util/strings.h"

namespace skade::s3 {

namespace {

const std::string* Find(const io::FileIOProperties& properties, const char* key) {
  auto it = properties.find(key);
  return it == properties.end() || it->second.empty() ? nullptr : &it->second;
}

Result<bool> ParseBool(const char* key, const std::string& value) {
  if (EqualsIgnoreCase(value, "true")) return true;
  if (EqualsIgnoreCase(value, "false")) return false;
  return InvalidArgument("Property ", key, " must be true or false, not '", value, "'");
}

Result<int> ParseCount(const char* key, const std::string& value, int max) {
  auto parsed = ParseInt32(value);
  if (!parsed || *parsed < 1 || *parsed > max) {
    return InvalidArgument("Property ", key, " must be a whole number from 1 to ", max, ", not '",
                           value, "'");
  }
  return *parsed;
}

bool ValidHost(std::string_view host) {
  if (host.empty()) return false;
  for (char c : host) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<S3Config> S3Config::FromProperties(const io::FileIOProperties& properties) {
  S3Config config;
  if (const auto* endpoint = Find(properties, kEndpointProperty)) {
    std::string_view rest = *endpoint;
    if (ConsumePrefix(&rest, "http://")) {
      config.endpoint_scheme = "http";
    } else if (ConsumePrefix(&rest, "https://")) {
      config.endpoint_scheme = "https";
    } else {
      return InvalidArgument("Property ", kEndpointProperty,
                             " must be http://host[:port] or https://host[:port], not '", *endpoint,
                             "'");
    }
    ConsumeSuffix(&rest, "/");
    if (!ValidHost(rest)) {
      return InvalidArgument("Property ", kEndpointProperty, " names no valid host: '", *endpoint,
                             "'");
    }
    config.endpoint_host = std::string(rest);
    config.path_style = true;
  }
  if (const auto* region = Find(properties, kRegionProperty)) {
    config.region = *region;
  } else if (const auto* client_region = Find(properties, kClientRegionProperty)) {
    config.region = *client_region;
  } else if (const char* env = std::getenv("AWS_REGION"); env && *env) {
    config.region = env;
  } else if (const char* env_default = std::getenv("AWS_DEFAULT_REGION");
             env_default && *env_default) {
    config.region = env_default;
  }
  if (!ValidHost(config.region) || config.region.find(':') != std::string::npos) {
    return InvalidArgument("Invalid S3 region '", config.region, "'");
  }
  if (const auto* path_style = Find(properties, kPathStyleProperty)) {
    SKADE_ASSIGN_OR_RAISE(config.path_style, ParseBool(kPathStyleProperty, *path_style));
  }
  const auto* access_key = Find(properties, kAccessKeyIdProperty);
  const auto* secret_key = Find(properties, kSecretAccessKeyProperty);
  if ((access_key == nullptr) != (secret_key == nullptr)) {
    return InvalidArgument("Properties ", kAccessKeyIdProperty, " and ", kSecretAccessKeyProperty,
                           " go together: set both or neither");
  }
  if (access_key) {
    config.credentials.access_key_id = *access_key;
    config.credentials.secret_access_key = *secret_key;
    if (const auto* token = Find(properties, kSessionTokenProperty)) {
      config.credentials.session_token = *token;
    }
  }
  if (const auto* parts = Find(properties, kPartsInFlightProperty)) {
    SKADE_ASSIGN_OR_RAISE(config.parts_in_flight, ParseCount(kPartsInFlightProperty, *parts, 64));
  }
  if (const auto* attempts = Find(properties, kMaxAttemptsProperty)) {
    SKADE_ASSIGN_OR_RAISE(config.max_attempts, ParseCount(kMaxAttemptsProperty, *attempts, 100));
  }
  if (const auto* timeout = Find(properties, kOperationTimeoutProperty)) {
    // At least a second: a shorter bound would fail a healthy store's answers.
    SKADE_ASSIGN_OR_RAISE(int ms, ParseCount(kOperationTimeoutProperty, *timeout, 3'600'000));
    if (ms < 1000) {
      return InvalidArgument("Property ", kOperationTimeoutProperty,
                             " must be at least 1000 (milliseconds), not '", *timeout, "'");
    }
    config.operation_timeout_ms = ms;
  }
  if (const auto* conditional = Find(properties, kConditionalWritesProperty)) {
    if (EqualsIgnoreCase(*conditional, "auto")) {
      config.conditional_writes = ConditionalWrites::kAuto;
    } else {
      SKADE_ASSIGN_OR_RAISE(bool on, ParseBool(kConditionalWritesProperty, *conditional));
      config.conditional_writes = on ? ConditionalWrites::kRequired : ConditionalWrites::kOff;
    }
  }
  return config;
}

std::string S3Config::HostFor(const std::string& bucket) const {
  std::string host =
      endpoint_host.empty() ? StrCat("s3.", region, ".amazonaws.com") : endpoint_host;
  return path_style ? host : StrCat(bucket, ".", host);
}

std::string S3Config::PathPrefixFor(const std::string& bucket) const {
  return path_style ? StrCat("/", bucket) : std::string();
}

std::string S3Config::EndpointUrl() const {
  return StrCat(endpoint_scheme, "://",
                endpoint_host.empty() ? StrCat("s3.", region, ".amazonaws.com") : endpoint_host);
}

std::string S3Config::ToString() const {
  return StrCat("endpoint ", EndpointUrl(), ", region ", region,
                path_style ? ", path-style" : ", virtual-hosted",
                credentials.empty() ? ", AWS default credentials" : ", static credentials");
}

}  // namespace skade::s3
