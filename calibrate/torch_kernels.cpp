#include "calibrate/torch_kernels.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calibrate/measured_op.h"
#include "calibrate/profile_writer.h"
#include "hw/units.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/precision.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {
namespace fs = std::filesystem;

// Repetitions behind each median (README.md of the data): 15 timed calls per kernel, 8 per RNN
// call, 1000 launches per launch row.
constexpr int kKernelReps = 15;
constexpr int kRnnReps = 8;
constexpr int kLaunchCalls = 1000;

std::string file_in(const std::string& dir, const std::string& name) {
  const fs::path p = fs::path(dir) / name;
  if (!fs::is_regular_file(p))
    throw UserError(
        fmt::format("{}: no such file (a PyTorch kernel data folder has "
                    "kernels/gemm.csv, conv.csv, rnn.csv, micro.csv and info.json)",
                    p.string()));
  return p.string();
}

// Dims and sizes up to 2^53, so that each is also exact as the double the costs use.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;

// A cell that must be a whole number from `min` (CsvTable::whole_number), as shape text.
std::string count(const CsvTable& t, std::size_t r, const std::string& column,
                  std::int64_t min = 1) {
  return fmt::format("{}", t.whole_number(r, t.column(column), min, kMaxCount));
}

std::string precision_cell(const CsvTable& t, std::size_t r) {
  const std::string& p = t.cell(r, t.column("precision"));
  parse_workload_precision(p, t.where(r) + ": column precision");
  return p;
}

// A time column in microseconds, in seconds (hw::measured_range).
double time_cell(const CsvTable& t, std::size_t r, std::size_t column) {
  return t.measured(r, column, 1e-6, hw::measured_range(hw::Dimension::kTime));
}

struct RowMaker {
  std::string framework;
  Measurement operator()(std::string bench, std::string op_class, std::string precision,
                         std::map<std::string, std::string> shape, double time_s, int reps,
                         const char* timing) const {
    Measurement m;
    m.bench = std::move(bench);
    m.op_class = std::move(op_class);
    m.precision = std::move(precision);
    m.shape = std::move(shape);
    m.shape["framework"] = framework;
    m.shape["timing"] = timing;
    m.time_s = time_s;
    m.reps = reps;
    return m;
  }
};

void read_gemm(const std::string& path, const RowMaker& make, MeasurementSet& out) {
  const CsvTable t = CsvTable::read(path);
  const std::size_t c_time = t.column("median_us");
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string precision = precision_cell(t, r);
    std::map<std::string, std::string> shape{
        {"m", count(t, r, "m")}, {"n", count(t, r, "n")}, {"k", count(t, r, "k")}};
    for (const auto& [column, key] : {std::pair{"transA", "ta"}, std::pair{"transB", "tb"}}) {
      const std::string& v = t.cell(r, t.column(column));
      if (v != "N" && v != "T")
        throw UserError(fmt::format("{}: column {}: expected N or T (got '{}')", t.where(r), column,
                                    excerpt(v)));
      shape[key] = v;
    }
    Measurement m = make("gemm", "gemm", precision, std::move(shape), time_cell(t, r, c_time),
                         kKernelReps, "event");
    count_from_registry(m);
    out.rows.push_back(std::move(m));
  }
}

void read_conv(const std::string& path, const RowMaker& make, MeasurementSet& out) {
  const CsvTable t = CsvTable::read(path);
  const std::pair<const char*, const char*> directions[] = {{"conv_fwd", "fwd_us"},
                                                            {"conv_bwd_data", "bwd_data_us"},
                                                            {"conv_bwd_filter", "bwd_filter_us"}};
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string precision = precision_cell(t, r);
    const std::map<std::string, std::string> shape{
        {"n", count(t, r, "N")}, {"c", count(t, r, "C")},           {"h", count(t, r, "H")},
        {"w", count(t, r, "W")}, {"k", count(t, r, "K")},           {"r", count(t, r, "R")},
        {"s", count(t, r, "S")}, {"stride", count(t, r, "stride")}, {"pad", count(t, r, "pad", 0)}};
    for (const auto& [bench, column] : directions) {
      Measurement m = make(bench, "conv", precision, shape, time_cell(t, r, t.column(column)),
                           kKernelReps, "event");
      try {
        count_from_registry(m);
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: {}", t.where(r), e.what()));
      }
      out.rows.push_back(std::move(m));
    }
  }
}

void read_rnn(const std::string& path, const RowMaker& make, MeasurementSet& out) {
  const CsvTable t = CsvTable::read(path);
  const std::pair<const char*, const char*> calls[] = {{"rnn_layer_fwd", "fwd_us"},
                                                       {"rnn_layer_train", "fwd_bwd_us"}};
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string& cell = t.cell(r, t.column("cell"));
    if (cell != "lstm" && cell != "gru")
      throw UserError(fmt::format("{}: column cell: unknown cell '{}' (expected one of: lstm, gru)",
                                  t.where(r), cell));
    const std::map<std::string, std::string> shape{{"type", cell},
                                                   {"hidden", count(t, r, "hidden")},
                                                   {"batch", count(t, r, "batch")},
                                                   {"timesteps", count(t, r, "timesteps")},
                                                   {"layers", count(t, r, "layers")}};
    for (const auto& [bench, column] : calls) {
      Measurement m =
          make(bench, "rnn", "fp32", shape, time_cell(t, r, t.column(column)), kRnnReps, "event");
      count_from_registry(m);
      out.rows.push_back(std::move(m));
    }
  }
}

// The op a memory-bound micro bench times on `elements` fp32 elements, from the registry.
graphs::Operator micro_op(const std::string& bench, std::int64_t elements, const CsvTable& t,
                          std::size_t r) {
  if (bench == "elementwise_add") return forward_layer_op("add", {}, {{elements}, {elements}});
  if (bench == "elementwise_relu") return forward_layer_op("relu", {}, {{elements}});
  if (bench == "reduce_sum") return forward_layer_op("reduce_sum", {}, {{elements}});
  constexpr std::int64_t kRow = 1024;  // softmax_rows1024: rows of 1024 elements
  if (elements % kRow != 0)
    throw UserError(fmt::format("{}: softmax over rows of {}: {} elements is not whole rows",
                                t.where(r), kRow, elements));
  return forward_layer_op("softmax", {}, {{elements / kRow, kRow}});
}

void read_micro(const std::string& path, const RowMaker& make, MeasurementSet& out) {
  const CsvTable t = CsvTable::read(path);
  struct Bench {
    const char* bench;
    const char* op_class;
    const char* timing;
  };
  // The data's names and what each is (header of torch_kernels.h).
  static const std::map<std::string, Bench> kCopies{
      {"d2d_copy", {"copy_d2d", "data_movement", "event"}},
      {"h2d_pinned", {"copy_h2d_pinned", "transfer", "event"}},
      {"d2h_pinned", {"copy_d2h_pinned", "transfer", "event"}},
      {"h2d_pageable", {"copy_h2d_pageable", "transfer", "wall"}}};
  static const std::map<std::string, Bench> kKernels{
      {"add_fp32", {"elementwise_add", "elementwise", "event"}},
      {"relu_inplace_fp32", {"elementwise_relu", "elementwise", "event"}},
      {"sum_fp32", {"reduce_sum", "reduction", "event"}},
      {"softmax_rows1024_fp32", {"softmax", "softmax", "event"}}};
  static const std::map<std::string, std::pair<const char*, const char*>> kLaunches{
      {"1000_tiny_launches_event", {"dispatch", "event"}},
      {"1000_tiny_launches_wall", {"dispatch", "wall"}},
      {"1000_tiny_launches_graph", {"graph_launch", "event"}}};
  const std::size_t c_bench = t.column("bench"), c_time = t.column("median_us");
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string& name = t.cell(r, c_bench);
    const double time_s = time_cell(t, r, c_time);
    const std::string size = count(t, r, "bytes_or_elems");
    const double n = t.number(r, t.column("bytes_or_elems"));
    if (const auto it = kCopies.find(name); it != kCopies.end()) {
      const Bench& b = it->second;
      Measurement m =
          make(b.bench, b.op_class, "none", {{"bytes", size}}, time_s, kKernelReps, b.timing);
      // A device copy reads and writes every byte; a host-device copy moves each once.
      m.bytes = std::string(b.op_class) == "transfer" ? n : 2 * n;
      out.rows.push_back(std::move(m));
    } else if (const auto k = kKernels.find(name); k != kKernels.end()) {
      const Bench& b = k->second;
      Measurement m =
          make(b.bench, b.op_class, "fp32", {{"elements", size}}, time_s, kKernelReps, b.timing);
      const graphs::Operator op = micro_op(b.bench, static_cast<std::int64_t>(n), t, r);
      m.flops = op.flops;
      m.bytes = op.bytes();
      out.rows.push_back(std::move(m));
    } else if (const auto l = kLaunches.find(name); l != kLaunches.end()) {
      if (n != kLaunchCalls)
        throw UserError(fmt::format("{}: column bytes_or_elems: {} times {} calls (got '{}')",
                                    t.where(r), name, kLaunchCalls, size));
      const auto& [bench, timing] = l->second;
      const bool graph = std::string(bench) == "graph_launch";
      std::map<std::string, std::string> shape{{"mode", graph ? "async" : timing},
                                               {"kernels", size}};
      // One row per call: the time of the 1000 over 1000.
      Measurement m = make(bench, graph ? "launch" : "dispatch", "none", std::move(shape),
                           time_s / n, kLaunchCalls, timing);
      out.rows.push_back(std::move(m));
    } else {
      std::vector<std::string> known;
      for (const auto* table : {&kCopies, &kKernels})
        for (const auto& [key, value] : *table) known.push_back(key);
      for (const auto& [key, value] : kLaunches) known.push_back(key);
      throw UserError(fmt::format("{}: column bench: unknown benchmark '{}' ({})", t.where(r), name,
                                  suggestion(name, known)));
    }
  }
}

nlohmann::json read_info(const std::string& path) {
  try {
    nlohmann::json info = nlohmann::json::parse(read_text_file(path));
    if (!info.is_object()) throw UserError(fmt::format("{}: expected a JSON object", path));
    return info;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

std::string text_of(const nlohmann::json& info, const char* key) {
  const auto it = info.find(key);
  if (it == info.end()) return "unknown";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// The second field of nvidia-smi's CSV line for the card ("name, driver_version, ...").
std::string driver_of(const std::string& nvidia_smi) {
  std::istringstream lines(nvidia_smi);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  const auto first = row.find(", ");
  if (first == std::string::npos) return "unknown";
  const auto second = row.find(',', first + 2);
  return row.substr(first + 2,
                    second == std::string::npos ? std::string::npos : second - first - 2);
}

}  // namespace

MeasurementSet read_torch_kernels(const std::string& dir) {
  const nlohmann::json info = read_info(file_in(dir, "info.json"));
  MeasurementSet set;
  const RowMaker make{"pytorch " + text_of(info, "torch")};
  set.provenance["source"] = "kernels timed through PyTorch (torch_kernels.h)";
  set.provenance["device"] = text_of(info, "device");
  set.provenance["framework"] = make.framework;
  set.provenance["cuda"] = text_of(info, "cuda");
  set.provenance["cudnn"] = text_of(info, "cudnn");
  set.provenance["driver"] = driver_of(text_of(info, "nvidia_smi"));
  read_gemm(file_in(dir, "kernels/gemm.csv"), make, set);
  read_conv(file_in(dir, "kernels/conv.csv"), make, set);
  read_rnn(file_in(dir, "kernels/rnn.csv"), make, set);
  read_micro(file_in(dir, "kernels/micro.csv"), make, set);
  return set;
}

}  // namespace amdahl::calibrate
