#include "reporter.h"

#include <cstdio>

namespace amdahl::cudabench {
namespace {

std::string format(const char* pattern, double value, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value, unit);
  return text;
}

std::string human_time(double seconds) {
  if (seconds < 1e-3) return format("%8.2f %s", seconds * 1e6, "us");
  if (seconds < 1.0) return format("%8.3f %s", seconds * 1e3, "ms");
  return format("%8.3f %s", seconds, "s ");
}

}  // namespace

void Reporter::begin_group(const std::string& name, const std::string& description) {
  group_ = name;
  group_start_ = std::chrono::steady_clock::now();
  group_rows_ = 0;
  group_skips_ = 0;
  progress_ << "[" << group_ << "] " << description << std::endl;
}

void Reporter::end_group() {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - group_start_).count();
  progress_ << "[" << group_ << "] done: " << group_rows_ << " measurements";
  if (group_skips_ > 0) progress_ << ", " << group_skips_ << " skipped";
  progress_ << " in " << format("%.1f %s", seconds, "s") << std::endl;
}

void Reporter::record(const Measurement& m) {
  writer_.write_row(m);
  ++rows_written_;
  ++group_rows_;
  std::string rate;
  if (m.flops > 0)
    rate += format("%9.2f %s", static_cast<double>(m.flops) / m.time_s * 1e-12, "TFLOP/s ");
  if (m.bytes > 0)
    rate += format("%9.1f %s", static_cast<double>(m.bytes) / m.time_s * 1e-9, "GB/s");
  char head[64];
  std::snprintf(head, sizeof(head), "  %-18s %-5s ", m.bench.c_str(), m.precision.c_str());
  progress_ << head << human_time(m.time_s) << ' ' << rate << "  " << m.shape << std::endl;
}

void Reporter::skip(const std::string& what, const std::string& reason) {
  ++group_skips_;
  progress_ << "  skipped " << what << ": " << reason << std::endl;
}

void Reporter::note(const std::string& message) { progress_ << "  " << message << std::endl; }

}  // namespace amdahl::cudabench
