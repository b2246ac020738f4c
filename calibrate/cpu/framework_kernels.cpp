#include "calibrate/cpu/framework_kernels.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <sstream>

#include "calibrate/measured_op.h"
#include "hw/units.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {

// The memory-bound benches: op class, FLOPs and bytes per element (fp32) of n elements, as
// cpu_benchmarks.cpp counts its OpenMP loops.
struct MemoryBench {
  const char* bench;
  const char* op_class;
  double flops_per_element;
  double bytes_per_element;
};
constexpr MemoryBench kMemoryBenches[] = {{"elementwise_add", "elementwise", 1, 12},
                                          {"elementwise_relu", "elementwise", 1, 8},
                                          {"reduce_sum", "reduction", 1, 4},
                                          {"mem_copy", "data_movement", 0, 8},
                                          // graphs/optimizer.cpp, momentum: 4 FLOPs, reads
                                          // param, grad, buffer; writes param, buffer
                                          {"optimizer_momentum", "optimizer", 4, 20},
                                          // fit_allocation's raw rows (no op class fitted)
                                          {"alloc_fresh", "allocation", 0, 4},
                                          {"alloc_reused", "allocation", 0, 4}};

// Batch norm and max pooling on an n x c x h x w input: the op the registry's layer lowers to
// (graphs/ops/norm.cpp, graphs/ops/pool.cpp): the training forward and the data gradient of
// batchnorm2d, its inference forward (one scale-shift pass, an elementwise op), and maxpool2d's
// forward and data gradient.
bool activation_bench(Measurement& m) {
  struct LayerBench {
    const char* bench;
    const char* kind;
    Phase phase;
    bool training;
  };
  constexpr LayerBench kLayerBenches[] = {
      {"batchnorm_fwd", "batchnorm2d", Phase::kForward, true},
      {"batchnorm_bwd_data", "batchnorm2d", Phase::kBackwardData, true},
      {"batchnorm_infer", "batchnorm2d", Phase::kForward, false},
      {"maxpool_fwd", "maxpool2d", Phase::kForward, false},
      {"maxpool_bwd_data", "maxpool2d", Phase::kBackwardData, true}};
  const LayerBench* found = nullptr;
  for (const auto& b : kLayerBenches)
    if (m.bench == b.bench) found = &b;
  if (!found) return false;
  const auto e = [&](const char* key) { return m.shape_whole(key); };
  std::map<std::string, std::vector<std::int64_t>> params;
  if (std::string(found->kind) == "maxpool2d")
    params = {{"kernel", {e("r"), e("s")}}, {"stride", {e("stride")}}, {"padding", {e("pad")}}};
  const graphs::Operator op = layer_op(found->kind, params, {e("n"), e("c"), e("h"), e("w")},
                                       found->phase, found->training);
  m.op_class = std::string(op_class_name(op.op_class));
  m.flops = op.flops;
  m.bytes = op.bytes();
  return true;
}

std::vector<std::string> known_benches() {
  std::vector<std::string> out{"dispatch",        "gemm",          "gemm_bwd_data",
                               "gemm_bwd_filter", "conv_fwd",      "conv_bwd_data",
                               "conv_bwd_filter", "batchnorm_fwd", "batchnorm_bwd_data",
                               "batchnorm_infer", "maxpool_fwd",   "maxpool_bwd_data"};
  for (const auto& b : kMemoryBenches) out.emplace_back(b.bench);
  return out;
}

}  // namespace

std::string framework_kernels_script() { return AMDAHL_FRAMEWORK_KERNELS_SCRIPT; }

Measurement framework_measurement(const std::string& bench,
                                  std::map<std::string, std::string> shape, double time_s,
                                  int reps) {
  Measurement m;
  m.bench = bench;
  m.shape = std::move(shape);
  m.time_s = time_s;
  m.reps = reps;
  m.precision = "fp32";
  if (bench == "dispatch") {
    m.op_class = "dispatch";
    m.precision = "none";
  } else if (bench == "gemm" || bench == "gemm_bwd_data" || bench == "gemm_bwd_filter") {
    m.op_class = "gemm";
    count_from_registry(m);
  } else if (bench.starts_with("conv_")) {
    m.op_class = "conv";
    count_from_registry(m);
  } else if (!activation_bench(m)) {
    const MemoryBench* found = nullptr;
    for (const auto& b : kMemoryBenches)
      if (bench == b.bench) found = &b;
    if (!found)
      throw UserError(fmt::format("framework kernel row: unknown bench '{}' (expected one of: {})",
                                  bench, join(known_benches())));
    m.op_class = found->op_class;
    if (m.op_class == "data_movement" || m.op_class == "allocation") m.precision = "none";
    const double n = m.shape_number("n");
    m.flops = found->flops_per_element * n;
    m.bytes = found->bytes_per_element * n + (bench == "reduce_sum" ? 4 : 0);
  }
  return m;
}

FrameworkKernels parse_framework_output(const std::string& text) {
  FrameworkKernels out;
  bool header = false;
  int line_no = 0;
  for (const std::string& raw : split_fields(text, '\n')) {
    ++line_no;
    const std::string line = raw.ends_with('\r') ? raw.substr(0, raw.size() - 1) : raw;
    const std::string where = fmt::format("framework kernels output line {}", line_no);
    if (line.empty()) continue;
    if (line.starts_with("# ")) {
      const auto colon = line.find(": ");
      if (colon != std::string::npos)
        out.provenance[line.substr(2, colon - 2)] = line.substr(colon + 2);
      continue;
    }
    if (!header) {
      if (line != "bench,shape,time_s,reps")
        throw UserError(fmt::format("{}: expected the header 'bench,shape,time_s,reps' (got '{}')",
                                    where, line));
      header = true;
      continue;
    }
    const auto cells = split_fields(line, ',');
    if (cells.size() != 4)
      throw UserError(
          fmt::format("{}: expected 4 cells bench,shape,time_s,reps (got '{}')", where, line));
    std::map<std::string, std::string> shape = parse_shape(cells[1], where);
    const double time_s =
        measured_cell(cells[2], where, "time_s", 1, hw::measured_range(hw::Dimension::kTime));
    const int reps = static_cast<int>(
        whole_number_cell(cells[3], where, "reps", 0, std::numeric_limits<int>::max()));
    try {
      out.rows.push_back(framework_measurement(cells[0], std::move(shape), time_s, reps));
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", where, e.what()));
    }
    if (cells[0] == "dispatch") out.dispatch_s = time_s;
  }
  if (!header) throw UserError("framework kernels output: no header row");
  const auto it = out.provenance.find("framework");
  out.framework = it == out.provenance.end() ? "unknown framework" : it->second;
  return out;
}

bool run_framework_kernels(const FrameworkKernelOptions& options, FrameworkKernels& out,
                           std::string& why_not) {
  const std::string script = options.script.empty() ? framework_kernels_script() : options.script;
  if (access(options.python.c_str(), X_OK) != 0) {
    why_not = options.python + " not found";
    return false;
  }
  if (access(script.c_str(), R_OK) != 0) {
    why_not = script + " not found";
    return false;
  }
  // The module check first, so that a missing framework is told apart from a failing script.
  const std::string probe = fmt::format("{} -c 'import torch' >/dev/null 2>&1", options.python);
  if (std::system(probe.c_str()) != 0) {
    why_not = "PyTorch is not installed for " + options.python;
    return false;
  }
  const std::string cmd =
      fmt::format("'{}' '{}'{}{}", options.python, script, options.quick ? " --quick" : "",
                  options.dispatch_only ? " --only dispatch" : "");
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    why_not = "cannot run " + options.python;
    return false;
  }
  std::string text;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) text += buf;
  if (pclose(pipe) != 0) {
    why_not = fmt::format("{} failed (its messages are above)", script);
    return false;
  }
  out = parse_framework_output(text);
  if (out.dispatch_s <= 0) {
    why_not = fmt::format("{} wrote no dispatch row", script);
    return false;
  }
  return true;
}

std::string allocation_yaml(const FreshAllocation& a) {
  return fmt::format(
      "{{above: {:.0f} B, bandwidth: {:.4g} GB/s, source: \"measured: writing into fresh "
      "against reused tensors through the framework, {} sizes above the threshold\"}}",
      a.above_bytes, a.bytes_per_s / 1e9, a.sizes);
}

std::optional<FreshAllocation> fit_allocation(const MeasurementSet& set) {
  // Per size: the extra time of a fresh allocation over a reused one.
  std::map<double, std::pair<double, double>> by_bytes;  // bytes -> (fresh, reused)
  for (const auto& m : set.rows) {
    if (m.bench == "alloc_fresh") by_bytes[m.bytes].first = m.time_s;
    if (m.bench == "alloc_reused") by_bytes[m.bytes].second = m.time_s;
  }
  std::vector<std::pair<double, double>> extra;  // (bytes, extra seconds), ascending bytes
  for (const auto& [bytes, t] : by_bytes)
    if (t.first > 0 && t.second > 0) extra.push_back({bytes, std::max(0.0, t.first - t.second)});
  if (extra.size() < 2) return std::nullopt;
  // The sizes that pay: the largest ones whose extra time per byte is at least half the
  // largest size's; the threshold is the largest size below them that does not.
  const double top = extra.back().second / extra.back().first;
  if (top <= 0) return std::nullopt;
  std::size_t first = extra.size();
  while (first > 0 && extra[first - 1].second / extra[first - 1].first >= 0.5 * top) --first;
  if (first == 0) return std::nullopt;  // every size pays: no threshold seen in the sweep
  FreshAllocation out;
  out.above_bytes = extra[first - 1].first;
  double bb = 0, be = 0;  // least squares through the origin: extra = bytes / rate
  for (std::size_t i = first; i < extra.size(); ++i) {
    bb += extra[i].first * extra[i].first;
    be += extra[i].first * extra[i].second;
    ++out.sizes;
  }
  out.bytes_per_s = bb / be;
  return out;
}

}  // namespace amdahl::calibrate
