#include "calibrate/allreduce_fit.h"

#include <fmt/format.h>

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

// p GPUs of one model, each on its own link to a host vertex: every ring hop crosses two links
// (up to the host, down to the next GPU), each link direction once, so a hop gets the link's
// bandwidth.
hw::SystemSpec star(int gpus, double step_latency_s, double hop_bytes_per_s) {
  hw::SystemSpec s;
  s.name = "deepbench-allreduce-star";
  s.file = "calibrate/allreduce_fit.cpp";
  hw::DeviceSpec host;
  host.name = "host";
  host.model = "host";
  host.kind = hw::DeviceKind::kCpu;
  s.devices.push_back(host);
  for (int i = 0; i < gpus; ++i) {
    hw::DeviceSpec g;
    g.name = fmt::format("gpu{}", i);
    g.model = "gpu";
    s.devices.push_back(g);
    hw::LinkSpec l;
    l.name = "host-" + g.name;
    l.from = "host";
    l.to = g.name;
    l.model = "fitted hop";
    l.bandwidth_bytes_per_s = hop_bytes_per_s;
    l.p2p_bytes_per_s = hop_bytes_per_s;
    s.links.push_back(l);
  }
  s.default_device = "gpu0";
  s.runtime.collectives.algorithm = hw::CollectiveAlgorithmChoice::kRing;
  s.runtime.collectives.step_latency_s = step_latency_s;
  return s;
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
    x.bytes = t.positive_number(r, c_bytes);
    x.measured_s = t.positive_number(r, c_mean) * kUs;
    rows.push_back(std::move(x));
  }
  return rows;
}

bool fitted_allreduce_row(const AllReduceRow& r) {
  return r.nodes == 1 && r.gpus >= 2 && r.algorithm.rfind("NCCL", 0) == 0;
}

model::CollectiveCost star_ring_allreduce(int gpus, double bytes, double step_latency_s,
                                          double hop_bytes_per_s) {
  const hw::SystemSpec s = star(gpus, step_latency_s, hop_bytes_per_s);
  const hw::Topology t(s);
  std::vector<std::string> devices;
  for (int i = 0; i < gpus; ++i) devices.push_back(fmt::format("gpu{}", i));
  const model::CollectiveGroup g(t, devices, s.runtime.collectives);
  return g.cost(model::Collective::kAllReduce, bytes);
}

std::vector<AllReduceFit> fit_allreduce(const std::vector<AllReduceRow>& rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const AllReduceRow*>> fitted;
  std::map<std::string, int> not_fitted;
  for (const AllReduceRow& r : rows) {
    if (!fitted.count(r.dataset) && !not_fitted.count(r.dataset)) order.push_back(r.dataset);
    if (fitted_allreduce_row(r))
      fitted[r.dataset].push_back(&r);
    else
      ++not_fitted[r.dataset];
  }
  std::vector<AllReduceFit> fits;
  for (const std::string& dataset : order) {
    const auto it = fitted.find(dataset);
    if (it == fitted.end()) continue;
    const std::vector<const AllReduceRow*>& rs = it->second;
    // The design of each row, from the model: time = x1 a + x2 / B.
    struct Design {
      double x1, x2;
    };
    std::vector<Design> design;
    for (const AllReduceRow* r : rs) {
      // a = 0 and B = 1 B/s: the time is x2; the latency terms are the cost's steps.
      const model::CollectiveCost unit = star_ring_allreduce(r->gpus, r->bytes, 0, 1);
      design.push_back({static_cast<double>(unit.steps), unit.time_s});
    }
    // Weighted least squares on relative error over the training rows.
    double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
    int train_rows = 0;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      if (static_cast<int>(i) % kHoldOutEvery == kHoldOutEvery - 1) continue;
      const double w = 1 / rs[i]->measured_s;
      const double u = design[i].x1 * w, v = design[i].x2 * w;
      s11 += u * u;
      s12 += u * v;
      s22 += v * v;
      b1 += u;  // target: measured * w = 1
      b2 += v;
      ++train_rows;
    }
    if (train_rows < 3)
      throw UserError(fmt::format(
          "deepbench all-reduce: dataset '{}' has {} training rows of one-node NCCL runs; at "
          "least 3 are needed",
          dataset, train_rows));
    const double det = s11 * s22 - s12 * s12;
    double a = det != 0 ? (b1 * s22 - b2 * s12) / det : 0;
    double c = det != 0 ? (s11 * b2 - s12 * b1) / det : 0;
    if (a < 0) {  // through zero
      a = 0;
      c = b2 / s22;
    }
    if (!(c > 0))
      throw UserError(fmt::format(
          "deepbench all-reduce: dataset '{}': the fitted hop bandwidth is not positive "
          "(1/B = {:.3g} s/B); its times do not grow with the size",
          dataset, c));
    AllReduceFit f;
    f.dataset = dataset;
    f.gpu = rs.front()->gpu;
    f.step_latency_s = a;
    f.hop_bytes_per_s = 1 / c;
    f.rows_not_fitted = not_fitted[dataset];
    std::vector<double> train, held;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      AllReduceResidual res;
      res.row = *rs[i];
      res.held_out = static_cast<int>(i) % kHoldOutEvery == kHoldOutEvery - 1;
      res.predicted_s =
          star_ring_allreduce(rs[i]->gpus, rs[i]->bytes, f.step_latency_s, f.hop_bytes_per_s)
              .time_s;
      (res.held_out ? held : train)
          .push_back((res.predicted_s - rs[i]->measured_s) / rs[i]->measured_s);
      f.residuals.push_back(std::move(res));
    }
    f.train = summarize_errors(train);
    f.held_out = summarize_errors(held);
    fits.push_back(std::move(f));
  }
  return fits;
}

}  // namespace amdahl::calibrate
