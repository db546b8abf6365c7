#include "skade/metrics/registry.h"

#include <absl/hash/hash.h>

#include <algorithm>

namespace skade::metrics {

namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool ValidMetricName(std::string_view name) {
  if (!name.starts_with("skade_")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(IsAlpha(c) || c == '_' || c == ':' || (i > 0 && IsDigit(c)))) return false;
  }
  return true;
}

bool ValidLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(IsAlpha(c) || c == '_' || (i > 0 && IsDigit(c)))) return false;
  }
  return true;
}

// --- Family -------------------------------------------------------------------

template <typename T>
Family<T>::Family(std::vector<std::string> label_names, size_t max_series, Factory make)
    : label_names_(std::move(label_names)), max_series_(max_series), make_(std::move(make)) {}

template <typename T>
size_t Family<T>::KeyHash::operator()(std::span<const std::string_view> key) const {
  size_t hash = key.size();
  for (std::string_view value : key) hash = absl::HashOf(hash, value);
  return hash;
}

template <typename T>
size_t Family<T>::KeyHash::operator()(const std::vector<std::string>& key) const {
  size_t hash = key.size();
  for (const std::string& value : key) hash = absl::HashOf(hash, std::string_view(value));
  return hash;
}

template <typename T>
bool Family<T>::KeyEq::operator()(const std::vector<std::string>& a,
                                  std::span<const std::string_view> b) const {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const std::string& x, std::string_view y) { return x == y; });
}

template <typename T>
T& Family<T>::Overflow() {
  std::call_once(overflow_once_, [this] {
    overflow_ = make_();
    series_.fetch_add(1, std::memory_order_relaxed);
  });
  return *overflow_;
}

template <typename T>
T& Family<T>::WithLabels(std::span<const std::string_view> values) {
  if (values.size() != label_names_.size()) return Overflow();
  const size_t hash = KeyHash()(values);
  Stripe& stripe = stripes_[hash % kStripes];
  {
    std::lock_guard<std::mutex> lock(stripe.mutex);
    auto it = stripe.series.find(values);
    if (it != stripe.series.end()) return *it->second;
    // Reserve a slot first, so concurrent inserts on other stripes cannot
    // together pass the limit.
    if (series_.fetch_add(1, std::memory_order_relaxed) < max_series_) {
      std::vector<std::string> key(values.begin(), values.end());
      auto [inserted, _] = stripe.series.emplace(std::move(key), make_());
      return *inserted->second;
    }
    series_.fetch_sub(1, std::memory_order_relaxed);
  }
  return Overflow();
}

template <typename T>
size_t Family<T>::series() const {
  return series_.load(std::memory_order_relaxed);
}

template <typename T>
void Family<T>::ForEach(const std::function<void(LabelPairs, const T&)>& visit) const {
  std::vector<std::pair<std::vector<std::string>, const T*>> all;
  for (const Stripe& stripe : stripes_) {
    std::lock_guard<std::mutex> lock(stripe.mutex);
    for (const auto& [key, metric] : stripe.series) all.emplace_back(key, metric.get());
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto labels_of = [this](const std::vector<std::string>& values) {
    LabelPairs labels;
    for (size_t i = 0; i < label_names_.size(); ++i)
      labels.emplace_back(label_names_[i], values[i]);
    return labels;
  };
  for (const auto& [key, metric] : all) visit(labels_of(key), *metric);
  // Set once (call_once) before any reader can see series_ count it.
  if (overflow_ != nullptr) {
    visit(
        labels_of(std::vector<std::string>(label_names_.size(), std::string(kOverflowLabelValue))),
        *overflow_);
  }
}

template class Family<Counter>;
template class Family<Histogram>;

// --- Registry -----------------------------------------------------------------

Status Registry::Check(const std::string& name, MetricType type,
                       const std::vector<std::string>& label_names) const {
  if (!ValidMetricName(name)) {
    return InvalidArgument("Invalid metric name '", name, "' (skade_[a-zA-Z0-9_:]*)");
  }
  for (const std::string& label : label_names) {
    if (!ValidLabelName(label) || (type == MetricType::kHistogram && label == "le")) {
      return InvalidArgument("Invalid label name '", label, "' of metric ", name);
    }
  }
  for (const Entry& entry : entries_) {
    if (entry.name == name) {
      return MakeError(ErrorKind::kAlreadyExists, "Metric ", name, " is already registered");
    }
  }
  return OkStatus();
}

Status Registry::Add(Entry entry, const std::vector<std::string>& label_names) {
  std::lock_guard<std::mutex> lock(mutex_);
  SKADE_RETURN_NOT_OK(Check(entry.name, entry.type, label_names));
  entries_.push_back(std::move(entry));
  return OkStatus();
}

Result<Counter*> Registry::AddCounter(std::string name, std::string help) {
  auto counter = std::make_shared<Counter>();
  Counter* raw = counter.get();
  SKADE_RETURN_NOT_OK(
      Add({std::move(name), std::move(help), MetricType::kCounter, counter,
           [raw] {
             return std::vector<MetricSample>{{{}, static_cast<double>(raw->value()), {}}};
           }},
          {}));
  return raw;
}

Result<Gauge*> Registry::AddGauge(std::string name, std::string help) {
  auto gauge = std::make_shared<Gauge>();
  Gauge* raw = gauge.get();
  SKADE_RETURN_NOT_OK(Add({std::move(name), std::move(help), MetricType::kGauge, gauge,
                           [raw] {
                             return std::vector<MetricSample>{{{}, raw->value(), {}}};
                           }},
                          {}));
  return raw;
}

Result<Histogram*> Registry::AddHistogram(std::string name, std::string help,
                                          std::vector<double> upper_bounds) {
  if (!Histogram::ValidBounds(upper_bounds)) {
    return InvalidArgument("Histogram ", name, ": bounds must be finite and increasing");
  }
  auto histogram = std::make_shared<Histogram>(std::move(upper_bounds));
  Histogram* raw = histogram.get();
  SKADE_RETURN_NOT_OK(Add({std::move(name), std::move(help), MetricType::kHistogram, histogram,
                           [raw] {
                             return std::vector<MetricSample>{{{}, 0, raw->Snapshot()}};
                           }},
                          {}));
  return raw;
}

Result<CounterFamily*> Registry::AddCounterFamily(std::string name, std::string help,
                                                  std::vector<std::string> label_names,
                                                  size_t max_series) {
  auto family = std::make_shared<CounterFamily>(label_names, max_series,
                                                [] { return std::make_unique<Counter>(); });
  CounterFamily* raw = family.get();
  SKADE_RETURN_NOT_OK(
      Add({std::move(name), std::move(help), MetricType::kCounter, family,
           [raw] {
             std::vector<MetricSample> samples;
             raw->ForEach([&](LabelPairs labels, const Counter& counter) {
               samples.push_back({std::move(labels), static_cast<double>(counter.value()), {}});
             });
             return samples;
           }},
          label_names));
  return raw;
}

Result<HistogramFamily*> Registry::AddHistogramFamily(std::string name, std::string help,
                                                      std::vector<std::string> label_names,
                                                      std::vector<double> upper_bounds,
                                                      size_t max_series) {
  if (!Histogram::ValidBounds(upper_bounds)) {
    return InvalidArgument("Histogram ", name, ": bounds must be finite and increasing");
  }
  auto family = std::make_shared<HistogramFamily>(
      label_names, max_series,
      [bounds = std::move(upper_bounds)] { return std::make_unique<Histogram>(bounds); });
  HistogramFamily* raw = family.get();
  SKADE_RETURN_NOT_OK(Add({std::move(name), std::move(help), MetricType::kHistogram, family,
                           [raw] {
                             std::vector<MetricSample> samples;
                             raw->ForEach([&](LabelPairs labels, const Histogram& histogram) {
                               samples.push_back({std::move(labels), 0, histogram.Snapshot()});
                             });
                             return samples;
                           }},
                          label_names));
  return raw;
}

Status Registry::AddCallback(std::string name, std::string help, MetricType type,
                             std::vector<std::string> label_names, Collector collect) {
  if (!collect) return InvalidArgument("Metric ", name, " has no collector");
  return Add({std::move(name), std::move(help), type, nullptr, std::move(collect)}, label_names);
}

Status Registry::AddValueCallback(std::string name, std::string help, MetricType type,
                                  std::function<double()> read) {
  if (!read) return InvalidArgument("Metric ", name, " has no callback");
  return AddCallback(std::move(name), std::move(help), type, {}, [read = std::move(read)] {
    return std::vector<MetricSample>{{{}, read(), {}}};
  });
}

Status Registry::AddGaugeCallback(std::string name, std::string help,
                                  std::function<double()> read) {
  return AddValueCallback(std::move(name), std::move(help), MetricType::kGauge, std::move(read));
}

Status Registry::AddCounterCallback(std::string name, std::string help,
                                    std::function<double()> read) {
  return AddValueCallback(std::move(name), std::move(help), MetricType::kCounter, std::move(read));
}

std::vector<MetricFamily> Registry::Collect() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<MetricFamily> families;
  families.reserve(entries_.size());
  for (const Entry& entry : entries_) {
    families.push_back({entry.name, entry.help, entry.type, entry.collect()});
  }
  return families;
}

}  // namespace skade::metrics
