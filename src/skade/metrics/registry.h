// Registry: the named metric families a process exposes, and their
// collection for GET /metrics (exposition.h).
//
// Names: every family's name starts with "skade_" and matches Prometheus'
// [a-zA-Z_:][a-zA-Z0-9_:]*; label names match [a-zA-Z_][a-zA-Z0-9_]*, do
// not start with "__", and a histogram's are not "le". Registration checks
// both and refuses a name taken (kInvalidArgument, kAlreadyExists).
//
// Cardinality: a labelled family keeps at most `max_series` series. Label
// values must come from fixed vocabularies (a route pattern, a method, a
// status code; never a raw path or anything else a client chooses): the
// limit is a safety net, not the design. Past it, new label sets all count
// in one series whose labels are all kOverflowLabelValue.
//
// Threading: thread-safe. Registration and Collect() take the registry's
// mutex; a metric returned by registration lives as long as the registry and
// is updated without it (counter.h, histogram.h). A family's WithLabels()
// takes one of its stripe mutexes for a hash lookup (no allocation for a
// label set it has seen); callers on a hot path may keep the returned
// reference instead. Callbacks run inside Collect(), on the scraping thread,
// under the registry's mutex: they must be cheap, must not call back into the
// registry, and what they read must outlive the registry's last Collect().
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "skade/metrics/counter.h"
#include "skade/metrics/exposition.h"
#include "skade/metrics/gauge.h"
#include "skade/metrics/histogram.h"
#include "skade/util/result.h"

namespace skade::metrics {

inline constexpr std::string_view kOverflowLabelValue = "_overflow";

/// A family of metrics of type T (Counter, Histogram) told apart by the
/// values of fixed label names.
template <typename T>
class Family {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;

  Family(std::vector<std::string> label_names, size_t max_series, Factory make);
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  /// The series for `values`, one per label name, in order; made on first
  /// use. A wrong number of values (a programming error) and a new label
  /// set past max_series get the overflow series.
  T& WithLabels(std::span<const std::string_view> values);
  T& WithLabels(std::initializer_list<std::string_view> values) {
    return WithLabels(std::span<const std::string_view>(values.begin(), values.size()));
  }

  const std::vector<std::string>& label_names() const { return label_names_; }
  /// Series made so far, the overflow series included once used.
  size_t series() const;

  /// Calls `visit(labels, metric)` for each series, ordered by label values.
  void ForEach(const std::function<void(LabelPairs, const T&)>& visit) const;

 private:
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::span<const std::string_view> key) const;
    size_t operator()(const std::vector<std::string>& key) const;
  };
  struct KeyEq {
    using is_transparent = void;
    bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
      return a == b;
    }
    bool operator()(const std::vector<std::string>& a, std::span<const std::string_view> b) const;
    bool operator()(std::span<const std::string_view> a, const std::vector<std::string>& b) const {
      return (*this)(b, a);
    }
  };
  static constexpr size_t kStripes = 8;
  struct Stripe {
    mutable std::mutex mutex;
    absl::flat_hash_map<std::vector<std::string>, std::unique_ptr<T>, KeyHash, KeyEq> series;
  };

  T& Overflow();

  const std::vector<std::string> label_names_;
  const size_t max_series_;
  const Factory make_;
  std::atomic<size_t> series_{0};
  std::array<Stripe, kStripes> stripes_;
  std::once_flag overflow_once_;
  std::unique_ptr<T> overflow_;
};

using CounterFamily = Family<Counter>;
using HistogramFamily = Family<Histogram>;

class Registry {
 public:
  static constexpr size_t kDefaultMaxSeries = 1000;

  /// What a callback family reports at scrape time: its series (labels in the
  /// family's label name order) and values; for kHistogram, histograms.
  using Collector = std::function<std::vector<MetricSample>()>;

  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  Result<Counter*> AddCounter(std::string name, std::string help);
  Result<Gauge*> AddGauge(std::string name, std::string help);
  /// `upper_bounds` as Histogram's (kInvalidArgument otherwise).
  Result<Histogram*> AddHistogram(std::string name, std::string help,
                                  std::vector<double> upper_bounds);
  Result<CounterFamily*> AddCounterFamily(std::string name, std::string help,
                                          std::vector<std::string> label_names,
                                          size_t max_series = kDefaultMaxSeries);
  Result<HistogramFamily*> AddHistogramFamily(std::string name, std::string help,
                                              std::vector<std::string> label_names,
                                              std::vector<double> upper_bounds,
                                              size_t max_series = kDefaultMaxSeries);

  /// A family whose series `collect` reports at each scrape (values kept
  /// elsewhere: a cache's statistics, the store's size). Its samples' label
  /// names must be `label_names`.
  Status AddCallback(std::string name, std::string help, MetricType type,
                     std::vector<std::string> label_names, Collector collect);
  /// A gauge or a counter without labels whose value `read` gives at scrape
  /// time.
  Status AddGaugeCallback(std::string name, std::string help, std::function<double()> read);
  Status AddCounterCallback(std::string name, std::string help, std::function<double()> read);

  /// Every family, in registration order, with its series as of now.
  std::vector<MetricFamily> Collect() const;
  /// Collect() in the text exposition format.
  std::string Scrape() const { return WriteTextFormat(Collect()); }

 private:
  struct Entry {
    std::string name;
    std::string help;
    MetricType type;
    std::shared_ptr<void> owned;  // the metric or family, if the registry owns it
    Collector collect;
  };

  Status Check(const std::string& name, MetricType type,
               const std::vector<std::string>& label_names) const;  // under mutex_
  Status Add(Entry entry, const std::vector<std::string>& label_names);
  Status AddValueCallback(std::string name, std::string help, MetricType type,
                          std::function<double()> read);

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

/// Whether `name` may name a metric family (the pattern above, and the
/// "skade_" prefix).
bool ValidMetricName(std::string_view name);
/// Whether `name` may name a label (the pattern above; "le" is allowed here).
bool ValidLabelName(std::string_view name);

}  // namespace skade::metrics
