// A progress bar on a terminal (stderr) for long CLI work: ingest, scan.
// Redrawn at most ten times a second; silent when disabled (not a terminal).
// Not thread-safe: one caller draws.
#pragma once

#include <cstdint>
#include <string>

namespace skade::cli {

/// 1234567 → "1.23M", 4200 → "4.2k".
std::string Human(double value);

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);

  /// Draws `fraction` (0..1) done, then `detail`; "ETA" follows from the
  /// time since construction. `force` draws even within the 100 ms.
  void Update(double fraction, const std::string& detail, bool force = false);
  /// Ends the line.
  void Finish();

  bool enabled() const { return enabled_; }
  /// Seconds since construction.
  double Seconds() const;

 private:
  bool enabled_;
  int64_t start_;
  int64_t last_draw_ = 0;
};

}  // namespace skade::cli
