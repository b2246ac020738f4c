#include "calibrate/allreduce_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "calibrate/holdout.h"
#include "hw/system.h"
#include "hw/topology.h"
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

// The star machine (allreduce_fit.h) of `nodes` nodes with `per_node` GPUs each: every ring hop
// inside a node crosses two links (up to the host, down to the next GPU), each link direction
// once, so a hop gets the link's bandwidth; the hop that leaves a node also crosses its NIC link
// and the next node's, each direction once.
hw::SystemSpec star(int nodes, int per_node, const StarMachine& m) {
  hw::SystemSpec s;
  s.name = "deepbench-allreduce-star";
  s.file = "calibrate/allreduce_fit.cpp";
  hw::DeviceSpec host;
  host.name = "host";
  host.model = "host";
  host.kind = hw::DeviceKind::kCpu;
  s.devices.push_back(host);
  for (int i = 0; i < per_node; ++i) {
    hw::DeviceSpec g;
    g.name = fmt::format("gpu{}", i);
    g.model = "gpu";
    s.devices.push_back(g);
    hw::LinkSpec l;
    l.name = "host-" + g.name;
    l.from = "host";
    l.to = g.name;
    l.model = "fitted hop";
    l.bandwidth_bytes_per_s = m.hop_bytes_per_s;
    l.p2p_bytes_per_s = m.hop_bytes_per_s;
    s.links.push_back(l);
  }
  s.nodes = nodes;
  if (nodes > 1) {
    hw::NetworkSpec net;
    net.link.name = "network";
    net.link.model = "fitted network";
    net.link.bandwidth_bytes_per_s = m.network_bytes_per_s;
    net.link.p2p_bytes_per_s = m.network_bytes_per_s;
    net.attach = {"host"};
    s.network = net;
  }
  s.default_device = "gpu0";
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

// a and 1/B (or 1/N) fitted to rows whose time is steps a + x / B: `unit` costs a row with
// a = 0 and the fitted bandwidth 1 B/s. Weighted least squares on relative error over the rows
// not held out; a negative intercept is refitted through zero. `what` names the rows in errors.
struct LinearFit {
  double step_latency_s = 0;
  double inverse_bandwidth = 0;
};

template <class Unit>
LinearFit fit_step_and_bandwidth(const std::string& dataset, const std::string& what,
                                 const std::vector<const AllReduceRow*>& rs, Unit unit) {
  const std::size_t train_rows = training_rows(rs.size());
  if (train_rows < kMinTrainingRows)
    throw UserError(fmt::format(
        "deepbench all-reduce: dataset '{}' has {} training rows of {}; at least {} are needed",
        dataset, train_rows, what, kMinTrainingRows));
  double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (held_out_index(i)) continue;
    const model::CollectiveCost c = unit(*rs[i]);
    const double w = 1 / rs[i]->measured_s;
    const double u = c.steps * w, v = c.time_s * w;
    s11 += u * u;
    s12 += u * v;
    s22 += v * v;
    b1 += u;  // target: measured * w = 1
    b2 += v;
  }
  const double det = s11 * s22 - s12 * s12;
  LinearFit f;
  f.step_latency_s = det != 0 ? (b1 * s22 - b2 * s12) / det : 0;
  f.inverse_bandwidth = det != 0 ? (s11 * b2 - s12 * b1) / det : 0;
  if (f.step_latency_s < 0) {  // through zero
    f.step_latency_s = 0;
    f.inverse_bandwidth = b2 / s22;
  }
  if (!(f.inverse_bandwidth > 0))
    throw UserError(fmt::format(
        "deepbench all-reduce: dataset '{}': the fitted bandwidth of its {} is not positive "
        "(1/B = {:.3g} s/B); their times do not grow with the size",
        dataset, what, f.inverse_bandwidth));
  return f;
}

// Each row's prediction on `m`, appended to `out`; the relative errors summarized.
void add_residuals(const std::vector<const AllReduceRow*>& rs, const StarMachine& m,
                   std::vector<AllReduceResidual>& out, ErrorStats& train_stats,
                   ErrorStats& held_stats) {
  std::vector<double> train, held;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    AllReduceResidual res;
    res.row = *rs[i];
    res.held_out = held_out_index(i);
    res.predicted_s = star_ring_allreduce(rs[i]->gpus, rs[i]->nodes, rs[i]->bytes, m).time_s;
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
          "{}: n_gpus: expected at most {} GPUs per node (DeepBench's machines have 8); got {} "
          "on {} node{}",
          x.where, kMaxGpusPerNode, x.gpus, x.nodes, x.nodes == 1 ? "" : "s"));
    x.bytes = t.positive_number(r, c_bytes);
    x.measured_s = t.positive_number(r, c_mean) * kUs;
    rows.push_back(std::move(x));
  }
  return rows;
}

bool fitted_allreduce_row(const AllReduceRow& r) {
  return r.gpus >= 2 && r.algorithm.rfind("NCCL", 0) == 0;
}

model::CollectiveCost star_ring_allreduce(int gpus, int nodes, double bytes,
                                          const StarMachine& machine) {
  require_even_split("deepbench all-reduce", gpus, nodes);
  const hw::SystemSpec s = star(nodes, gpus / nodes, machine);
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
    // Step 1: a and B; with a = 0 and B = 1 B/s, a row's time is its x.
    const LinearFit hop =
        fit_step_and_bandwidth(dataset, "one-node NCCL runs", rs, [](const AllReduceRow& r) {
          return star_ring_allreduce(r.gpus, 1, r.bytes, {0, 1, 0});
        });
    f.step_latency_s = hop.step_latency_s;
    f.hop_bytes_per_s = 1 / hop.inverse_bandwidth;
    add_residuals(rs, {f.step_latency_s, f.hop_bytes_per_s, 0}, f.residuals, f.train, f.held_out);
    // Step 2: a and N over several nodes, B fixed; N = 1 B/s binds the ring.
    const std::vector<const AllReduceRow*>& ms = multi_node[dataset];
    if (training_rows(ms.size()) < kMinTrainingRows) {
      f.rows_not_fitted += static_cast<int>(ms.size());
    } else {
      const LinearFit net =
          fit_step_and_bandwidth(dataset, "multi-node NCCL runs", ms, [&](const AllReduceRow& r) {
            return star_ring_allreduce(r.gpus, r.nodes, r.bytes, {0, f.hop_bytes_per_s, 1});
          });
      NetworkFit n;
      n.step_latency_s = net.step_latency_s;
      n.bytes_per_s = 1 / net.inverse_bandwidth;
      if (!(n.bytes_per_s < f.hop_bytes_per_s))
        throw UserError(fmt::format(
            "deepbench all-reduce: dataset '{}': the network bandwidth fitted to its "
            "multi-node NCCL runs, {:.2f} GB/s, is not below its one-node hop's, {:.2f} GB/s: "
            "the network does not bind those runs, so it cannot be fitted from them",
            dataset, n.bytes_per_s / 1e9, f.hop_bytes_per_s / 1e9));
      add_residuals(ms, {n.step_latency_s, f.hop_bytes_per_s, n.bytes_per_s}, f.residuals, n.train,
                    n.held_out);
      f.network = n;
    }
    fits.push_back(std::move(f));
  }
  return fits;
}

}  // namespace amdahl::calibrate
