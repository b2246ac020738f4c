#include "calibrate/allreduce_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>

#include "calibrate/holdout.h"
#include "hw/system.h"
#include "hw/topology.h"
#include "hw/units.h"
#include "model/collective.h"
#include "util/csv_table.h"
#include "util/error.h"

namespace amdahl::calibrate {
namespace {

constexpr double kUs = 1e-6;

int positive_int(const CsvTable& t, std::size_t row, std::size_t col, const char* what) {
  const double v = t.number(row, col);
  if (!(v >= 1) || v != std::floor(v) || v > 1e6)
    throw UserError(fmt::format("{}: {}: expected a whole number >= 1 (got '{}')", t.where(row),
                                what, t.cell(row, col)));
  return static_cast<int>(v);
}

// The box (allreduce_fit.h) of `nodes` nodes with `per_node` GPUs each, in the box's first
// slots. Every ring hop crosses each link direction at most once: inside a node, up from one GPU
// and down to the next through the levels that part them; the hop that leaves a node also
// crosses its NIC link and the next node's, each direction once.
hw::SystemSpec box(int nodes, int per_node, const PcieBox& m) {
  const BoxLayout layout = box_layout(per_node);
  hw::SystemSpec s;
  s.name = "deepbench-allreduce-box";
  s.file = "calibrate/allreduce_fit.cpp";
  for (const std::string& c : layout.cpus) {
    hw::DeviceSpec d;
    d.name = c;
    d.model = "host";
    d.kind = hw::DeviceKind::kCpu;
    s.devices.push_back(d);
  }
  for (const std::string& w : layout.switches) s.switches.push_back({w, "PCIe switch"});
  for (const std::string& g : layout.gpus) {
    hw::DeviceSpec d;
    d.name = g;
    d.model = "gpu";
    s.devices.push_back(d);
  }
  for (const BoxLink& b : layout.links) {
    hw::LinkSpec l;
    l.name = b.from + "-" + b.to;
    l.from = b.from;
    l.to = b.to;
    l.model = fmt::format("fitted {} level", box_level_name(b.level));
    l.bandwidth_bytes_per_s = m.level_bytes_per_s[static_cast<std::size_t>(b.level)];
    l.p2p_bytes_per_s = l.bandwidth_bytes_per_s;
    s.links.push_back(l);
  }
  s.nodes = nodes;
  if (nodes > 1) {
    hw::NetworkSpec net;
    net.link.name = "network";
    net.link.model = "fitted network";
    net.link.bandwidth_bytes_per_s = m.network_bytes_per_s;
    net.link.p2p_bytes_per_s = m.network_bytes_per_s;
    net.attach = {std::string(kBoxNicVertex)};
    s.network = net;
  }
  s.default_device = layout.gpus.front();
  s.runtime.collectives.algorithm = hw::CollectiveAlgorithmChoice::kRing;
  s.runtime.collectives.step_latency_s = m.step_latency_s;
  return s;
}

bool held_out_index(std::size_t i) {
  return static_cast<int>(i) % kHoldOutEvery == kHoldOutEvery - 1;
}

// How many of `rows` rows held_out_index() leaves to train on.
std::size_t training_rows(std::size_t rows) { return rows - rows / kHoldOutEvery; }

// Throws UserError, prefixed by `where`, when `gpus` do not divide evenly over `nodes`.
void require_even_split(const std::string& where, int gpus, int nodes) {
  if (nodes < 1 || gpus % nodes != 0)
    throw UserError(
        fmt::format("{}: {} GPUs do not divide evenly over {} nodes", where, gpus, nodes));
}

// A row's time as the fits see it: `steps` latency terms plus x / B, where B is the one fitted
// bandwidth that carries it (`column`).
struct RowTerms {
  int steps = 0;
  double x = 0;
  std::size_t column = 0;
};

// a and 1/B_j fitted to rows whose time is steps a + x / B_column (`columns` bandwidths).
// Weighted least squares on relative error over the rows not held out; a negative intercept is
// refitted through zero. `what` names the rows in errors.
struct LinearFit {
  double step_latency_s = 0;
  std::vector<double> inverse_bandwidths;
};

LinearFit fit_steps_and_bandwidths(const std::string& dataset, const std::string& what,
                                   const std::vector<const AllReduceRow*>& rs,
                                   const std::vector<RowTerms>& terms, std::size_t columns) {
  const std::size_t train_rows = training_rows(rs.size());
  if (train_rows < kMinTrainingRows)
    throw UserError(fmt::format(
        "deepbench all-reduce: dataset '{}' has {} training rows of {}; at least {} are needed",
        dataset, train_rows, what, kMinTrainingRows));
  const auto k = static_cast<Eigen::Index>(columns);
  Eigen::MatrixXd design = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(train_rows), k + 1);
  Eigen::Index r = 0;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (held_out_index(i)) continue;
    const double w = 1 / rs[i]->measured_s;  // target: measured * w = 1
    design(r, 0) = terms[i].steps * w;
    design(r, static_cast<Eigen::Index>(terms[i].column) + 1) = terms[i].x * w;
    ++r;
  }
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(design.rows());
  Eigen::VectorXd solution = design.colPivHouseholderQr().solve(ones);
  LinearFit f;
  f.step_latency_s = solution(0);
  if (f.step_latency_s < 0) {  // through zero
    f.step_latency_s = 0;
    const Eigen::MatrixXd bandwidths = design.rightCols(k);
    solution.tail(k) = bandwidths.colPivHouseholderQr().solve(ones);
  }
  for (Eigen::Index j = 1; j <= k; ++j) {
    if (!(solution(j) > 0))
      throw UserError(fmt::format(
          "deepbench all-reduce: dataset '{}': the fitted bandwidth of its {} is not positive "
          "(1/B = {:.3g} s/B); their times do not grow with the size",
          dataset, what, solution(j)));
    f.inverse_bandwidths.push_back(solution(j));
  }
  return f;
}

// Step 1: a and each level's bandwidth from the one-node rows. A row's x is its time with a = 0
// and every level at 1 B/s; the level it runs at is the one its ring's bandwidth shows when the
// levels are given distinct bandwidths, widest first. Adjacent levels whose fit is not widest
// first are fitted as one, until none is left.
void fit_levels(const std::string& dataset, const std::vector<const AllReduceRow*>& rs,
                AllReduceFit& f) {
  PcieBox unit, distinct;
  unit.level_bytes_per_s.fill(1);
  for (int l = 0; l < kBoxLevels; ++l)
    distinct.level_bytes_per_s[static_cast<std::size_t>(l)] = std::ldexp(1.0, kBoxLevels - l);
  std::vector<int> level(rs.size());
  std::vector<RowTerms> terms(rs.size());
  std::vector<bool> trained(kBoxLevels, false);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const model::CollectiveCost c = box_ring_allreduce(rs[i]->gpus, 1, rs[i]->bytes, unit);
    terms[i].steps = c.steps;
    terms[i].x = c.time_s;
    const double b =
        box_ring_allreduce(rs[i]->gpus, 1, rs[i]->bytes, distinct).bandwidth_bytes_per_s;
    level[i] = kBoxLevels - static_cast<int>(std::lround(std::log2(b)));
    if (!held_out_index(i)) trained[static_cast<std::size_t>(level[i])] = true;
  }
  // groups[j]: the levels fitted as bandwidth j, widest first; only levels rows train.
  std::vector<std::vector<int>> groups;
  for (int l = 0; l < kBoxLevels; ++l)
    if (trained[static_cast<std::size_t>(l)]) groups.push_back({l});
  LinearFit fit;
  for (;;) {
    for (std::size_t i = 0; i < rs.size(); ++i)
      for (std::size_t j = 0; j < groups.size(); ++j)
        if (std::find(groups[j].begin(), groups[j].end(), level[i]) != groups[j].end())
          terms[i].column = j;
    fit = fit_steps_and_bandwidths(dataset, "one-node NCCL runs", rs, terms, groups.size());
    std::size_t j = 1;
    while (j < groups.size() && fit.inverse_bandwidths[j] >= fit.inverse_bandwidths[j - 1]) ++j;
    if (j == groups.size()) break;
    groups[j - 1].insert(groups[j - 1].end(), groups[j].begin(), groups[j].end());
    groups.erase(groups.begin() + static_cast<long>(j));
  }
  f.step_latency_s = fit.step_latency_s;
  f.level_bytes_per_s.fill(0);
  for (std::size_t j = 0; j < groups.size(); ++j)
    for (const int l : groups[j])
      f.level_bytes_per_s[static_cast<std::size_t>(l)] = 1 / fit.inverse_bandwidths[j];
  // Levels no row trains: the level before's bandwidth (the first level: the one after's).
  for (std::size_t l = 1; l < f.level_bytes_per_s.size(); ++l)
    if (f.level_bytes_per_s[l] == 0) f.level_bytes_per_s[l] = f.level_bytes_per_s[l - 1];
  for (std::size_t l = f.level_bytes_per_s.size() - 1; l > 0; --l)
    if (f.level_bytes_per_s[l - 1] == 0) f.level_bytes_per_s[l - 1] = f.level_bytes_per_s[l];
}

// Each row's prediction on `m`, appended to `out`; the relative errors summarized.
void add_residuals(const std::vector<const AllReduceRow*>& rs, const PcieBox& m,
                   std::vector<AllReduceResidual>& out, ErrorStats& train_stats,
                   ErrorStats& held_stats) {
  std::vector<double> train, held;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    AllReduceResidual res;
    res.row = *rs[i];
    res.held_out = held_out_index(i);
    res.predicted_s = box_ring_allreduce(rs[i]->gpus, rs[i]->nodes, rs[i]->bytes, m).time_s;
    (res.held_out ? held : train)
        .push_back((res.predicted_s - rs[i]->measured_s) / rs[i]->measured_s);
    out.push_back(std::move(res));
  }
  train_stats = summarize_errors(train);
  held_stats = summarize_errors(held);
}

}  // namespace

std::vector<AllReduceRow> read_deepbench_allreduce(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  const std::size_t c_dataset = t.column("dataset"), c_gpu = t.column("gpu"),
                    c_algorithm = t.column("algorithm"), c_bytes = t.column("size_bytes"),
                    c_gpus = t.column("n_gpus"), c_nodes = t.column("n_nodes_col"),
                    c_mean = t.column("mean_us");
  std::vector<AllReduceRow> rows;
  for (std::size_t r = 0; r < t.size(); ++r) {
    AllReduceRow x;
    x.where = t.where(r);
    x.dataset = t.cell(r, c_dataset);
    x.gpu = t.cell(r, c_gpu);
    x.algorithm = t.cell(r, c_algorithm);
    x.gpus = positive_int(t, r, c_gpus, "n_gpus");
    x.nodes = t.cell(r, c_nodes).empty() ? 1 : positive_int(t, r, c_nodes, "n_nodes_col");
    if ((x.gpus + x.nodes - 1) / x.nodes > kMaxGpusPerNode)
      throw UserError(fmt::format(
          "{}: n_gpus: expected at most {} GPUs per node (the slots of DeepBench's PCIe boxes); "
          "got {} on {} node{}",
          x.where, kMaxGpusPerNode, x.gpus, x.nodes, x.nodes == 1 ? "" : "s"));
    x.bytes = t.measured(r, c_bytes, 1, hw::measured_range(hw::Dimension::kBytes));
    x.measured_s = t.measured(r, c_mean, kUs, hw::measured_range(hw::Dimension::kTime));
    rows.push_back(std::move(x));
  }
  return rows;
}

std::vector<AllReduceRow> read_tartan_allreduce(const std::string& dir, const std::string& version,
                                                const std::string& dataset) {
  std::vector<AllReduceRow> rows;
  // `size_column`: the column of the size in bytes (packet.txt), else every row has `bytes`;
  // `gpus_column` likewise, else 8 GPUs; `value`: the bus bandwidth (GB/s) or the time (ms).
  auto read = [&](const std::string& name, const char* size_column, double bytes,
                  const char* gpus_column, const char* value, bool time) {
    const CsvTable t = CsvTable::read(fmt::format("{}/nccl-{}-{}.txt", dir, version, name));
    const std::size_t c_op = t.column("OP"), c_value = t.column(value);
    const std::size_t c_size = size_column ? t.column(size_column) : 0;
    const std::size_t c_gpus = gpus_column ? t.column(gpus_column) : 0;
    for (std::size_t r = 0; r < t.size(); ++r) {
      if (t.cell(r, c_op) != "all_reduce_perf") continue;
      AllReduceRow x;
      x.where = t.where(r);
      x.dataset = dataset;
      x.gpu = "Tesla P100 SXM2 (DGX-1)";
      x.algorithm = "NCCL " + version;
      x.gpus = gpus_column ? static_cast<int>(t.whole_number(r, c_gpus, 1, kMaxGpusPerNode))
                           : kMaxGpusPerNode;
      x.bytes =
          size_column ? t.measured(r, c_size, 1, hw::measured_range(hw::Dimension::kBytes)) : bytes;
      if (time) {
        x.measured_s = t.measured(r, c_value, 1e-3, hw::measured_range(hw::Dimension::kTime));
      } else {
        const double busbw = t.nonnegative_number(r, c_value) * 1e9;
        if (busbw < kTartanLeastBusBandwidth)
          x.algorithm = "rounded";
        else if (x.gpus >= 2)
          x.measured_s = x.bytes * 2 * (x.gpus - 1) / x.gpus / busbw;
      }
      rows.push_back(std::move(x));
    }
  };
  read("bandwidth", nullptr, kTartanBandwidthBytes, "GPU", "Bandwidth", false);
  read("latency", nullptr, 8, "GPU", "Latency", true);
  read("packet", "Packet", 0, nullptr, "Bandwidth", false);
  return rows;
}

bool fitted_allreduce_row(const AllReduceRow& r) {
  return r.gpus >= 2 && r.algorithm.rfind("NCCL", 0) == 0;
}

BoxLayout box_layout(int gpus_per_node) {
  if (gpus_per_node < 1 || gpus_per_node > kMaxGpusPerNode)
    throw InternalError(
        fmt::format("box_layout: {} GPUs per node (1 to {})", gpus_per_node, kMaxGpusPerNode));
  BoxLayout b;
  const int switches = (gpus_per_node + 1) / 2, sockets = (switches + 1) / 2;
  for (int c = 0; c < sockets; ++c) b.cpus.push_back(fmt::format("cpu{}", c));
  for (int k = 0; k < switches; ++k) {
    b.switches.push_back(fmt::format("switch{}", k));
    b.links.push_back(
        {b.cpus[static_cast<std::size_t>(k / 2)], b.switches.back(), BoxLevel::kSocket});
  }
  if (sockets > 1) b.links.push_back({b.cpus[0], b.cpus[1], BoxLevel::kQpi});
  for (int i = 0; i < gpus_per_node; ++i) {
    b.gpus.push_back(fmt::format("gpu{}", i));
    b.links.push_back(
        {b.switches[static_cast<std::size_t>(i / 2)], b.gpus.back(), BoxLevel::kSwitch});
  }
  return b;
}

std::string_view box_level_name(BoxLevel l) {
  switch (l) {
    case BoxLevel::kSwitch:
      return "switch";
    case BoxLevel::kSocket:
      return "socket";
    case BoxLevel::kQpi:
      return "QPI";
  }
  return "?";
}

model::CollectiveCost box_ring_allreduce(int gpus, int nodes, double bytes, const PcieBox& m) {
  require_even_split("deepbench all-reduce", gpus, nodes);
  const hw::SystemSpec s = box(nodes, gpus / nodes, m);
  const hw::Topology t(s);
  const model::CollectiveGroup g(t, hw::data_parallel_devices(s, gpus), s.runtime.collectives);
  return g.cost(model::Collective::kAllReduce, bytes);
}

std::vector<AllReduceFit> fit_allreduce(const std::vector<AllReduceRow>& rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const AllReduceRow*>> one_node, multi_node;
  std::map<std::string, int> not_fitted;
  for (const AllReduceRow& r : rows) {
    if (std::find(order.begin(), order.end(), r.dataset) == order.end()) order.push_back(r.dataset);
    if (!fitted_allreduce_row(r)) {
      ++not_fitted[r.dataset];
      continue;
    }
    require_even_split(r.where + ": n_gpus", r.gpus, r.nodes);
    (r.nodes == 1 ? one_node : multi_node)[r.dataset].push_back(&r);
  }
  std::vector<AllReduceFit> fits;
  for (const std::string& dataset : order) {
    const auto it = one_node.find(dataset);
    if (it == one_node.end()) continue;
    const std::vector<const AllReduceRow*>& rs = it->second;
    AllReduceFit f;
    f.dataset = dataset;
    f.gpu = rs.front()->gpu;
    f.rows_not_fitted = not_fitted[dataset];
    // Step 1: a and each level's bandwidth.
    fit_levels(dataset, rs, f);
    PcieBox m{f.step_latency_s, f.level_bytes_per_s, 0};
    add_residuals(rs, m, f.residuals, f.train, f.held_out);
    // Step 2: a and N over several nodes, the levels fixed; N = 1 B/s binds the ring.
    const std::vector<const AllReduceRow*>& ms = multi_node[dataset];
    if (training_rows(ms.size()) < kMinTrainingRows) {
      f.rows_not_fitted += static_cast<int>(ms.size());
    } else {
      std::vector<RowTerms> terms;
      for (const AllReduceRow* r : ms) {
        const model::CollectiveCost c =
            box_ring_allreduce(r->gpus, r->nodes, r->bytes, {0, f.level_bytes_per_s, 1});
        terms.push_back({c.steps, c.time_s, 0});
      }
      const LinearFit net = fit_steps_and_bandwidths(dataset, "multi-node NCCL runs", ms, terms, 1);
      NetworkFit n;
      n.step_latency_s = net.step_latency_s;
      n.bytes_per_s = 1 / net.inverse_bandwidths.front();
      const double narrowest =
          *std::min_element(f.level_bytes_per_s.begin(), f.level_bytes_per_s.end());
      if (!(n.bytes_per_s < narrowest))
        throw UserError(fmt::format(
            "deepbench all-reduce: dataset '{}': the network bandwidth fitted to its "
            "multi-node NCCL runs, {:.2f} GB/s, is not below its narrowest one-node level's, "
            "{:.2f} GB/s: the network does not bind those runs, so it cannot be fitted from them",
            dataset, n.bytes_per_s / 1e9, narrowest / 1e9));
      m.step_latency_s = n.step_latency_s;
      m.network_bytes_per_s = n.bytes_per_s;
      add_residuals(ms, m, f.residuals, n.train, n.held_out);
      f.network = n;
    }
    fits.push_back(std::move(f));
  }
  return fits;
}

}  // namespace amdahl::calibrate
