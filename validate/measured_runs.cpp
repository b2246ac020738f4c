#include "validate/measured_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/error.h"

namespace amdahl::validate {
namespace {
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}
}  // namespace

std::vector<MeasuredRun> read_measured_runs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open measured-runs file", path));
  std::string line;
  int line_no = 0;
  std::vector<std::string> header;
  std::vector<MeasuredRun> runs;
  const std::vector<std::string> required{"workload", "batch", "mode", "precision", "measured_s"};
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.starts_with("#")) continue;
    const auto cells = split(line);
    if (header.empty()) {
      header = cells;
      for (const auto& r : required)
        if (std::find(header.begin(), header.end(), r) == header.end())
          throw UserError(
              fmt::format("{}:{}: missing column '{}' (required: workload, batch, "
                          "mode, precision, measured_s)",
                          path, line_no, r));
      continue;
    }
    MeasuredRun run;
    run.line = line_no;
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string value = i < cells.size() ? cells[i] : "";
      const std::string& col = header[i];
      if (col == "workload")
        run.workload = value;
      else if (col == "mode")
        run.mode = value;
      else if (col == "precision")
        run.precision = value;
      else if (col == "op_class")
        run.op_class = value;
      else if (col == "batch" || col == "measured_s") {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0' || v <= 0)
          throw UserError(fmt::format("{}:{}: {} must be a positive number (got '{}')", path,
                                      line_no, col, value));
        if (col == "batch")
          run.batch = static_cast<std::int64_t>(v);
        else
          run.measured_s = v;
      } else {
        run.extra[col] = value;
      }
    }
    if (run.mode != "train" && run.mode != "infer")
      throw UserError(
          fmt::format("{}:{}: mode must be train or infer (got '{}')", path, line_no, run.mode));
    runs.push_back(std::move(run));
  }
  return runs;
}

double signed_error(double predicted, double measured) { return (predicted - measured) / measured; }

ErrorSummary summarize(const std::vector<double>& signed_errors) {
  std::vector<double> abs_errors;
  for (double e : signed_errors) abs_errors.push_back(std::fabs(e));
  return {signed_errors.size(), percentile(abs_errors, 0.5), percentile(abs_errors, 0.9)};
}

}  // namespace amdahl::validate
