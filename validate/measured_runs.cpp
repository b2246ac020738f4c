#include "validate/measured_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "graphs/expr.h"
#include "graphs/zoo.h"
#include "hw/units.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/op_class.h"
#include "util/precision.h"
#include "util/suggest.h"

namespace amdahl::validate {
namespace {

// The two layouts: which column names the network, which holds the time and in what unit.
struct Layout {
  const char* name_column;
  const char* time_column;
  double seconds_per_unit;
  bool pytorch_names;  // the name column holds PyTorch names (resolved through the zoo)
  const char* inputs;  // where the inputs start when the file has no `inputs` column
};
const Layout kAmdahlLayout{"workload", "measured_s", 1.0, false, "host"};
// shared/data/h200/models.py: make() creates the inputs with device=dev.
const Layout kPyTorchLayout{"model", "median_us", 1e-6, true, "device"};
// amdahl's layout's alternative to its time column.
constexpr const char* kThroughputColumn = "samples_per_s";

const Layout& layout_of(const CsvTable& t) {
  if (t.has_column(kAmdahlLayout.name_column)) return kAmdahlLayout;
  if (t.has_column(kPyTorchLayout.name_column)) return kPyTorchLayout;
  throw UserError(fmt::format(
      "{}:1: a measured-runs file names its networks in a column '{}' (amdahl models, with "
      "{} or {}) or '{}' (PyTorch names, with {}); the header has: {}",
      t.path(), kAmdahlLayout.name_column, kAmdahlLayout.time_column, kThroughputColumn,
      kPyTorchLayout.name_column, kPyTorchLayout.time_column, t.header_excerpt()));
}

std::string member(const CsvTable& t, std::size_t row, std::size_t col,
                   const std::vector<std::string>& valid) {
  const std::string& v = t.cell(row, col);
  if (std::find(valid.begin(), valid.end(), v) == valid.end())
    throw UserError(fmt::format("{}: column {}: {} (got '{}')", t.where(row), t.header().at(col),
                                suggestion(v, valid), excerpt(v)));
  return v;
}

// "NAME=VALUE ..." (spaces between bindings; each as --set takes it, graphs::parse_size_binding).
std::map<std::string, std::int64_t> parse_sizes(const CsvTable& t, std::size_t row,
                                                std::size_t col) {
  std::map<std::string, std::int64_t> sizes;
  std::istringstream in(t.cell(row, col));
  for (std::string item; in >> item;) {
    std::pair<std::string, std::int64_t> binding;
    try {
      binding = graphs::parse_size_binding(item);
    } catch (const UserError&) {
      throw UserError(fmt::format(
          "{}: column {}: expected NAME=VALUE bindings separated by spaces, each VALUE a whole "
          "number >= 0 (got '{}')",
          t.where(row), t.header().at(col), excerpt(item)));
    }
    if (binding.first == "batch")
      throw UserError(fmt::format("{}: column {}: the batch is the `batch` column's (got '{}')",
                                  t.where(row), t.header().at(col), excerpt(item)));
    sizes[binding.first] = binding.second;
  }
  return sizes;
}

// The step time of a published throughput over `samples` samples per step: a throughput that
// gives a step outside hw::measured_range's times is an error at its cell, as a time is.
double step_of_throughput(const CsvTable& t, std::size_t row, std::size_t col, double samples) {
  const double per_s = t.positive_number(row, col);
  const double step_s = samples / per_s;
  const PlausibleRange range = hw::measured_range(hw::Dimension::kTime);
  if (!range.contains(step_s))
    throw UserError(fmt::format(
        "{}: column {}: expected a throughput giving a step of {} (got "
        "'{}', a step of {:.3g} s for {:.0f} samples)",
        t.where(row), t.header().at(col), range.rule, excerpt(t.cell(row, col)), step_s, samples));
  return step_s;
}

}  // namespace

std::vector<MeasuredRun> read_measured_runs(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  const Layout& layout = layout_of(t);
  const std::size_t name_col = t.column(layout.name_column);
  // amdahl's layout may give a published throughput over all GPUs instead of a step time.
  const bool throughput = &layout == &kAmdahlLayout && !t.has_column(layout.time_column) &&
                          t.has_column(kThroughputColumn);
  const std::size_t time_col = t.column(throughput ? kThroughputColumn : layout.time_column);
  const std::size_t batch_col = t.column("batch");
  const std::size_t mode_col = t.column("mode");
  const std::size_t precision_col = t.column("precision");
  const bool has_class = t.has_column("op_class");
  const bool has_params = t.has_column("params");
  const bool has_inputs = t.has_column("inputs");
  const bool has_gpus = t.has_column("gpus");
  const bool has_update = t.has_column("variable_update");
  const bool has_sizes = t.has_column("sizes");
  const std::vector<std::string> consumed{layout.name_column,
                                          layout.time_column,
                                          kThroughputColumn,
                                          "batch",
                                          "mode",
                                          "precision",
                                          "op_class",
                                          "params",
                                          "inputs",
                                          "gpus",
                                          "variable_update",
                                          "sizes"};
  std::vector<MeasuredRun> runs;
  for (std::size_t row = 0; row < t.size(); ++row) {
    MeasuredRun run;
    run.where = t.where(row);
    const std::string& name = t.cell(row, name_col);
    if (layout.pytorch_names) {
      run.model = name;
      run.workload = graphs::zoo_network_for_pytorch(
          name, fmt::format("{}: column {}", run.where, layout.name_column));
    } else {
      if (name.empty())
        throw UserError(fmt::format("{}: column {}: empty (expected a zoo name or network file)",
                                    run.where, layout.name_column));
      run.workload = name;
    }
    run.batch = t.whole_number(row, batch_col, 1);
    run.mode = member(t, row, mode_col, {"train", "infer"});
    run.precision = t.cell(row, precision_col);
    parse_workload_precision(run.precision, fmt::format("{}: column precision", run.where));
    if (has_gpus) run.gpus = static_cast<int>(t.whole_number(row, t.column("gpus"), 1));
    run.measured_s =
        throughput ? step_of_throughput(t, row, time_col, static_cast<double>(run.batch) * run.gpus)
                   : t.measured(row, time_col, layout.seconds_per_unit,
                                hw::measured_range(hw::Dimension::kTime));
    if (has_update && !t.cell(row, t.column("variable_update")).empty())
      run.variable_update = hw::parse_variable_update(
          member(t, row, t.column("variable_update"), hw::variable_update_names()));
    if (has_sizes) run.sizes = parse_sizes(t, row, t.column("sizes"));
    if (has_class) {
      const std::size_t col = t.column("op_class");
      if (!t.cell(row, col).empty()) run.op_class = member(t, row, col, op_class_names());
    }
    if (has_params) run.parameters = t.whole_number(row, t.column("params"), 1);
    run.inputs_on_device = (has_inputs ? member(t, row, t.column("inputs"), {"host", "device"})
                                       : std::string(layout.inputs)) == "device";
    for (std::size_t col = 0; col < t.header().size(); ++col)
      if (std::find(consumed.begin(), consumed.end(), t.header()[col]) == consumed.end())
        run.extra[t.header()[col]] = t.cell(row, col);
    runs.push_back(std::move(run));
  }
  return runs;
}

void check_parameters(const MeasuredRun& run, std::int64_t network_parameters) {
  if (run.parameters && *run.parameters != network_parameters)
    throw UserError(fmt::format(
        "{}: column params: the measured network has {} parameters, amdahl's '{}' has {}: not "
        "the same network",
        run.where, *run.parameters, run.workload, network_parameters));
}

double signed_error(double predicted, double measured) { return (predicted - measured) / measured; }

ErrorSummary summarize(const std::vector<double>& signed_errors) {
  std::vector<double> v;
  for (double e : signed_errors) v.push_back(std::fabs(e));
  std::sort(v.begin(), v.end());
  const auto percentile = [&v](double q) {
    if (v.empty()) return 0.0;
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  return {signed_errors.size(), percentile(0.5), percentile(0.9)};
}

}  // namespace amdahl::validate
