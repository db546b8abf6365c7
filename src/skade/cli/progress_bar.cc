#include "skade/cli/progress_bar.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "skade/util/clock.h"

namespace skade::cli {

std::string Human(double value) {
  char buf[32];
  if (value >= 1e9) {
    std::snprintf(buf, sizeof(buf), "%.2fG", value / 1e9);
  } else if (value >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%.2fM", value / 1e6);
  } else if (value >= 1e3) {
    std::snprintf(buf, sizeof(buf), "%.1fk", value / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
  }
  return buf;
}

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled), start_(MonotonicMicros()) {}

double ProgressBar::Seconds() const { return static_cast<double>(MonotonicMicros() - start_) / 1e6; }

void ProgressBar::Update(double fraction, const std::string& detail, bool force) {
  if (!enabled_) return;
  int64_t now = MonotonicMicros();
  if (!force && now - last_draw_ < 100000) return;
  last_draw_ = now;
  fraction = std::clamp(fraction, 0.0, 1.0);
  double seconds = static_cast<double>(now - start_) / 1e6;
  int filled = static_cast<int>(fraction * 30);
  std::string eta = "--:--";
  if (fraction > 0.01) {
    auto left = static_cast<int64_t>(seconds * (1 - fraction) / fraction);
    char buf[48];
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld", static_cast<long long>(left / 60),
                  static_cast<long long>(left % 60));
    eta = buf;
  }
  char line[320];
  std::snprintf(line, sizeof(line), "\r[%s%s] %3d%%  %s  ETA %s ",
                std::string(filled, '#').c_str(), std::string(30 - filled, '.').c_str(),
                static_cast<int>(fraction * 100), detail.c_str(), eta.c_str());
  std::cerr << line << std::flush;
}

void ProgressBar::Finish() {
  if (enabled_) std::cerr << "\n";
}

}  // namespace skade::cli
