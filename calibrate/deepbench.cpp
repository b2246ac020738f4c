#include "calibrate/deepbench.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "calibrate/measured_op.h"
#include "hw/units.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/yaml_file.h"

namespace amdahl::calibrate {
namespace {
namespace fs = std::filesystem;

constexpr double kUs = 1e-6;
// DeepBench's GEMM benchmark reports the mean of 400 calls (shared/data/README.md); the
// convolution and RNN workbooks do not state a count (0: not stated).
constexpr int kGemmReps = 400;

std::string file_in(const std::string& dir, const char* name) {
  return (std::filesystem::path(dir) / name).string();
}

// The most a DeepBench dim may be: 2^53, the largest whole number a double holds exactly (the
// registry then checks the op's sizes).
constexpr std::int64_t kMaxDim = std::int64_t{1} << 53;

// A dim cell as a whole number from `min` to kMaxDim, as the shape's text.
std::string dim(const CsvTable& t, std::size_t row, std::size_t col, std::int64_t min = 1) {
  return fmt::format("{}", t.whole_number(row, col, min, kMaxDim));
}

// A measured time in seconds from a microsecond cell (hw::measured_range); nullopt for an empty
// cell (a kernel the workbook did not time).
std::optional<double> time_cell(const CsvTable& t, std::size_t row, std::size_t col) {
  if (t.cell(row, col).empty()) return std::nullopt;
  return t.measured(row, col, kUs, hw::measured_range(hw::Dimension::kTime));
}

struct Selection {
  std::vector<std::size_t> rows;
  std::set<std::string> precisions_of_dataset;
};

Selection select(const CsvTable& t, const std::string& dataset, const std::string& precision) {
  const std::size_t c_dataset = t.column("dataset"), c_precision = t.column("precision");
  Selection s;
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.cell(r, c_dataset) != dataset) continue;
    s.precisions_of_dataset.insert(t.cell(r, c_precision));
    if (t.cell(r, c_precision) == precision) s.rows.push_back(r);
  }
  return s;
}

// One measurement row of a DeepBench kernel (reps 0: the workbooks do not say, except GEMM),
// its FLOPs and bytes those of the op the registry lowers it to (measured_op.h).
Measurement kernel_row(const char* bench, const char* op_class, const std::string& precision,
                       std::map<std::string, std::string> shape, double time_s) {
  Measurement x;
  x.bench = bench;
  x.op_class = op_class;
  x.precision = precision;
  x.shape = std::move(shape);
  x.time_s = time_s;
  count_from_registry(x);
  return x;
}

void read_gemm(const CsvTable& t, const Selection& s, const std::string& precision,
               MeasurementSet& out) {
  const std::size_t cm = t.column("m"), cn = t.column("n"), ck = t.column("k");
  const std::size_t cta = t.column("transA"), ctb = t.column("transB");
  const std::size_t ct = t.column("time_us");
  for (std::size_t r : s.rows) {
    const std::string m = dim(t, r, cm), n = dim(t, r, cn), k = dim(t, r, ck);
    const auto time = time_cell(t, r, ct);
    if (!time) continue;
    Measurement x = kernel_row(
        "gemm", "gemm", precision,
        {{"m", m}, {"n", n}, {"k", k}, {"ta", t.cell(r, cta)}, {"tb", t.cell(r, ctb)}}, *time);
    x.reps = kGemmReps;
    out.rows.push_back(std::move(x));
  }
}

void read_conv(const CsvTable& t, const Selection& s, const std::string& precision,
               MeasurementSet& out) {
  const std::size_t cw = t.column("W"), ch = t.column("H"), cc = t.column("C");
  const std::size_t cn = t.column("N"), ck = t.column("K"), cr = t.column("R");
  const std::size_t cs = t.column("S"), cpad = t.column("pad_h"), cpad_w = t.column("pad_w");
  const std::size_t cstride = t.column("stride_h"), cstride_w = t.column("stride_w");
  const std::size_t calgo = t.column("fwd_algo");
  const std::pair<const char*, std::size_t> directions[] = {
      {"conv_fwd", t.column("fwd_us")},
      {"conv_bwd_data", t.column("bwd_data_us")},
      {"conv_bwd_filter", t.column("bwd_filter_us")}};
  for (std::size_t r : s.rows) {
    const std::string w = dim(t, r, cw), h = dim(t, r, ch), c = dim(t, r, cc);
    const std::string n = dim(t, r, cn), k = dim(t, r, ck), fr = dim(t, r, cr);
    const std::string fs = dim(t, r, cs), pad = dim(t, r, cpad, 0), stride = dim(t, r, cstride);
    if (pad != dim(t, r, cpad_w, 0) || stride != dim(t, r, cstride_w))
      throw UserError(
          fmt::format("{}: unequal padding or stride per dimension is not supported", t.where(r)));
    for (const auto& [bench, col] : directions) {
      const auto time = time_cell(t, r, col);
      if (!time) continue;
      Measurement x = kernel_row(bench, "conv", precision,
                                 {{"n", n},
                                  {"c", c},
                                  {"h", h},
                                  {"w", w},
                                  {"k", k},
                                  {"r", fr},
                                  {"s", fs},
                                  {"pad", pad},
                                  {"stride", stride}},
                                 *time);
      if (std::string(bench) == "conv_fwd" && !t.cell(r, calgo).empty())
        x.shape["algo"] = t.cell(r, calgo);
      out.rows.push_back(std::move(x));
    }
  }
}

void read_rnn(const CsvTable& t, const Selection& s, const std::string& precision,
              MeasurementSet& out) {
  const std::size_t ctype = t.column("rnn_type"), chidden = t.column("hidden");
  const std::size_t cbatch = t.column("batch"), csteps = t.column("timesteps");
  const std::pair<const char*, std::size_t> directions[] = {
      {"rnn_fwd", t.column("fwd_us")},
      {"rnn_bwd_data", t.column("bwd_data_us")},
      {"rnn_bwd_filter", t.column("bwd_weights_us")}};
  for (std::size_t r : s.rows) {
    const std::string& type = t.cell(r, ctype);
    const std::string hidden = dim(t, r, chidden), batch = dim(t, r, cbatch);
    const std::string steps = dim(t, r, csteps);
    for (const auto& [bench, col] : directions) {
      const auto time = time_cell(t, r, col);
      if (!time) continue;
      out.rows.push_back(kernel_row(
          bench, "rnn", precision,
          {{"type", type}, {"hidden", hidden}, {"batch", batch}, {"timesteps", steps}}, *time));
    }
  }
}

}  // namespace

std::vector<std::string> deepbench_dataset_names(const std::string& dir) {
  const CsvTable t = CsvTable::read(file_in(dir, "deepbench_datasets.csv"));
  const std::size_t c = t.column("dataset");
  std::vector<std::string> names;
  for (std::size_t r = 0; r < t.size(); ++r) names.push_back(t.cell(r, c));
  return names;
}

MeasurementSet read_deepbench(const std::string& dir, const std::string& dataset,
                              const std::string& precision) {
  const CsvTable datasets = CsvTable::read(file_in(dir, "deepbench_datasets.csv"));
  const std::size_t c_name = datasets.column("dataset");
  std::optional<std::size_t> info;
  std::vector<std::string> names;
  for (std::size_t r = 0; r < datasets.size(); ++r) {
    names.push_back(datasets.cell(r, c_name));
    if (names.back() == dataset) info = r;
  }
  if (!info)
    throw UserError(fmt::format("unknown DeepBench dataset '{}' in {}: {}", dataset,
                                datasets.path(), suggestion(dataset, names)));

  MeasurementSet set;
  set.provenance["source"] = "DeepBench (baidu-research/DeepBench) training-kernel results";
  set.provenance["dataset"] = dataset;
  set.provenance["precision"] = precision;
  for (const char* key : {"repo", "path", "read_at_commit", "last_modified_date", "gpu_model",
                          "cpu_model", "cuda", "cudnn", "driver"})
    set.provenance[key] = datasets.cell(*info, datasets.column(key));

  const CsvTable gemm = CsvTable::read(file_in(dir, "deepbench_gemm.csv"));
  const CsvTable conv = CsvTable::read(file_in(dir, "deepbench_conv.csv"));
  const CsvTable rnn = CsvTable::read(file_in(dir, "deepbench_rnn.csv"));
  const Selection sg = select(gemm, dataset, precision), sc = select(conv, dataset, precision);
  const Selection sr = select(rnn, dataset, precision);
  if (sg.rows.empty() && sc.rows.empty() && sr.rows.empty()) {
    std::set<std::string> have = sg.precisions_of_dataset;
    have.insert(sc.precisions_of_dataset.begin(), sc.precisions_of_dataset.end());
    have.insert(sr.precisions_of_dataset.begin(), sr.precisions_of_dataset.end());
    throw UserError(
        fmt::format("DeepBench dataset '{}' has no kernel at precision '{}' (it has: {})", dataset,
                    precision, join(std::vector<std::string>(have.begin(), have.end()))));
  }
  read_gemm(gemm, sg, precision, set);
  read_conv(conv, sc, precision, set);
  read_rnn(rnn, sr, precision, set);
  return set;
}

std::vector<std::pair<std::string, std::string>> deepbench_cards(const std::string& catalog_dir) {
  const fs::path devices = fs::path(catalog_dir) / "devices";
  std::error_code ec;
  if (!fs::is_directory(devices, ec))
    throw UserError(fmt::format("{}: not a folder of device files", devices.string()));
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(devices))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, std::string>> cards;
  for (const auto& file : files) {
    const YamlFile yaml = load_yaml_file(file);
    const YAML::Node list = yaml.root.IsMap() ? yaml.root["deepbench_datasets"] : YAML::Node();
    if (!list) continue;
    if (!list.IsSequence())
      throw UserError(
          fmt::format("{}: deepbench_datasets: expected a list of dataset names (got {})",
                      yaml.where(list).str(), describe_node(list)));
    for (const auto& item : list) {
      if (!item.IsScalar())
        throw UserError(fmt::format("{}: deepbench_datasets: expected a dataset name (got {})",
                                    yaml.where(item).str(), describe_node(item)));
      for (const auto& [name, other] : cards)
        if (name == item.Scalar())
          throw UserError(fmt::format("{}: deepbench_datasets: '{}' is listed by {} too",
                                      yaml.where(item).str(), name, other));
      cards.emplace_back(item.Scalar(), file);
    }
  }
  return cards;
}

std::string deepbench_measured_device(const std::string& dataset, const std::string& catalog_dir) {
  std::vector<std::string> known;
  for (const auto& [name, file] : deepbench_cards(catalog_dir)) {
    if (name == dataset) return file;
    known.push_back(name);
  }
  throw UserError(fmt::format(
      "no device file in {}/devices lists DeepBench dataset '{}' under deepbench_datasets "
      "(listed: {}; others need --measured-device)",
      catalog_dir, dataset, join(known)));
}

int adjust_for_clock(MeasurementSet& set, const hw::DeviceSpec& measured,
                     const hw::DeviceSpec& target) {
  if (measured.clock_hz <= 0 || target.clock_hz <= 0)
    throw UserError(
        fmt::format("the clock adjustment needs `clock` in both device files ({}: {}, {}: {})",
                    measured.file, measured.clock_hz > 0 ? "given" : "missing", target.file,
                    target.clock_hz > 0 ? "given" : "missing"));
  const double ratio = measured.clock_hz / target.clock_hz;
  int adjusted = 0;
  for (auto& m : set.rows) {
    const auto precision = parse_precision(m.precision);
    const auto peak = measured.peak_for(precision ? *precision : Precision::kFp32);
    if (!peak || m.flops <= 0) continue;
    const double compute_s = m.flops / peak->flops_per_s;
    const double memory_s = m.bytes / measured.memory.bandwidth_bytes_per_s;
    if (compute_s >= memory_s && ratio != 1.0) {
      m.time_s *= ratio;
      ++adjusted;
    }
  }
  set.provenance["clock_adjustment"] =
      fmt::format("compute-bound rows x {:.4f} ({} MHz measured card / {} MHz target), {} rows",
                  ratio, measured.clock_hz / 1e6, target.clock_hz / 1e6, adjusted);
  return adjusted;
}

}  // namespace amdahl::calibrate
