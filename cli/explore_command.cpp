// amdahl explore: design-space exploration (analysis/explore.h, docs/explore.md). A workload set
// times a grid over hardware parameters of a system (--vary PATH=VALUES, hw/parameter.h), and
// over GPU counts and network sizes; every point predicted on all cores and, under mpirun, on
// every rank (cli/explore_runner.h). Answers: the elasticity of each workload's step time to
// each parameter at the base system, the knee of each axis, the geometric-mean speedup of each
// configuration over the base and the Pareto front against a declared cost.

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "analysis/explore.h"
#include "analysis/sweep.h"
#include "cli/commands.h"
#include "cli/explore_runner.h"
#include "cli/figures.h"
#include "cli/json_text.h"
#include "cli/output_files.h"
#include "cli/progress.h"
#include "cli/report.h"
#include "cli/workload.h"
#include "graphs/zoo.h"
#include "hw/quantity_expr.h"
#include "hw/topology.h"
#include "hw/units.h"
#include "util/error.h"
#include "util/input_log.h"
#include "util/suggest.h"
#include "util/table.h"

#ifdef AMDAHL_WITH_MPI
#include <mpi.h>
#endif

namespace amdahl::cli {
namespace {

namespace fs = std::filesystem;

// The most points (configurations x variants, the analysis points included) explore runs
// without --force: a million predictions take about a minute and a half on two cores
// (docs/performance.md), and a mistyped range should not start an hour of work.
constexpr std::size_t kMaxExplorePoints = 1'000'000;
// The least gain per step along an axis that still counts (Knee), unless --knee.
constexpr double kDefaultKnee = 0.05;
constexpr char kCheckpointName[] = "explore.checkpoint";
// The most configurations the Pareto figure draws besides its front.
constexpr std::size_t kFigurePoints = 20'000;
// The most Pareto configurations the terminal's table lists (pareto.csv has them all).
constexpr std::size_t kShownFront = 20;

struct ExploreArgs {
  std::string suite;
  std::string models;
  std::string system = "minsky";
  std::string mode = "train";
  std::string precision = "fp32";
  std::vector<std::string> vary;
  std::string cost;
  double knee = kDefaultKnee;
  unsigned threads = 0;
  std::string format = "table";
  std::string out_dir;
  bool force = false;
  bool resume = false;
};

std::string num(double v) { return fmt::format("{:.6g}", v); }

// --threads: 0 (the default: the cores) to kMaxThreads, checked before any work.
const CLI::Validator& thread_count() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        const bool whole = ec == std::errc() && end == text.data() + text.size();
        if (!whole && ec != std::errc::result_out_of_range)
          return fmt::format("expected a whole number of threads (got '{}')", excerpt(text));
        if (!whole || n < 0 || n > static_cast<std::int64_t>(kMaxThreads))
          return fmt::format("must be 0 (the cores) to {} (got {})", kMaxThreads, excerpt(text));
        return std::string();
      },
      fmt::format("INT in [0, {}]", kMaxThreads));
  return v;
}

// One --models item: "resnet50", "bert:seq_len=512:precision=fp16:mode=infer:gpus=2".
WorkloadOptions parse_item(const std::string& item, const ExploreArgs& a) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = item.find(':', start);
    parts.push_back(item.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  WorkloadOptions w = workload_entry(parts.front());
  w.mode = a.mode;
  w.precision = a.precision;
  w.system = a.system;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0)
      throw UserError(fmt::format("--models '{}': expected NAME=VALUE after ':' (got '{}')",
                                  excerpt(item), excerpt(parts[i])));
    const std::string key = parts[i].substr(0, eq), value = parts[i].substr(eq + 1);
    if (key == "mode") {
      if (value != "train" && value != "infer")
        throw UserError(fmt::format("--models '{}': mode must be train or infer (got '{}')",
                                    excerpt(item), excerpt(value)));
      w.mode = value;
    } else if (key == "precision") {
      parse_workload_precision(value, fmt::format("--models '{}'", excerpt(item)));
      w.precision = value;
    } else if (key == "gpus") {
      analysis::SweepAxis g = analysis::parse_vary("gpus=" + value);
      if (g.values.size() != 1)
        throw UserError(fmt::format("--models '{}': gpus takes one count", excerpt(item)));
      w.gpus = static_cast<int>(std::min<std::int64_t>(g.values.front(), 1 << 20));
    } else {
      w.sets.push_back(parts[i]);
    }
  }
  return w;
}

// Everything loaded and checked before any point is predicted.
struct Setup {
  hw::SystemSpec system;
  std::vector<analysis::HardwareAxis> axes;
  std::vector<analysis::SweepAxis> size_axes;
  std::vector<std::int64_t> gpu_counts;         // empty: each workload's own
  std::deque<graphs::LoweredNetwork> networks;  // the variants' (stable addresses)
  std::vector<analysis::Variant> variants;
  std::vector<std::pair<std::string, std::size_t>> names;  // cost names -> axis
  std::unique_ptr<hw::QuantityExpression> cost;
  std::string cost_text;  // as given, or the default's description
  std::unique_ptr<analysis::Exploration> exploration;
  std::vector<double> costs;  // per grid configuration (from 0), every one finite
  std::uint64_t fingerprint = 0;
};

// The default cost: each parameter relative to its base value, a time (a latency, a host
// cost) counted inversely (lower is dearer), summed.
double default_cost(const Setup& s, const std::vector<double>& values) {
  double c = 0;
  for (std::size_t a = 0; a < s.axes.size(); ++a) {
    const double base = s.axes[a].parameter.get(s.system);
    c += s.axes[a].parameter.dimension() == hw::Dimension::kTime ? base / values[a]
                                                                 : values[a] / base;
  }
  return c;
}

double config_cost(const Setup& s, const analysis::Configuration& c) {
  if (!s.cost) return default_cost(s, c.values);
  std::vector<double> by_name;
  for (const auto& [name, axis] : s.names) by_name.push_back(c.values[axis]);
  return s.cost->evaluate(by_name);
}

std::string variant_label(const WorkloadOptions& w, const std::string& entry,
                          const graphs::Bindings& varied, int gpus, bool gpus_varied,
                          const ExploreArgs& a) {
  std::string label = entry;
  for (const auto& [k, v] : varied) label += fmt::format(" {}={}", k, v);
  if (gpus_varied || gpus > 1) label += fmt::format(" gpus={}", gpus);
  if (w.mode != a.mode) label += " " + w.mode;
  if (w.precision != a.precision) label += " " + w.precision;
  return label;
}

std::unique_ptr<Setup> make_setup(const ExploreArgs& a) {
  // Every file the loaders read (system, includes, networks): the fingerprint covers them.
  const InputLog inputs;
  auto s = std::make_unique<Setup>();
  WorkloadOptions system_options;
  system_options.system = a.system;
  s->system = load_workload_system(system_options);
  const std::vector<std::string> entries = select_workloads(a.suite, split_list(a.models));

  for (const std::string& v : a.vary) {
    const std::string name = v.substr(0, v.find('='));
    if (name.find('.') != std::string::npos) {
      s->axes.push_back(analysis::parse_hardware_axis(s->system, v));
      continue;
    }
    analysis::SweepAxis axis = analysis::parse_vary(v);
    if (axis.name == "gpus") {
      if (!s->gpu_counts.empty()) throw UserError("--vary gpus: given twice");
      s->gpu_counts = axis.values;
    } else {
      s->size_axes.push_back(axis);
    }
  }
  for (std::size_t i = 0; i < s->axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (s->axes[i].parameter.path() == s->axes[j].parameter.path())
        throw UserError(fmt::format("--vary {}: given twice", s->axes[i].parameter.path()));
  // A repeated size axis is an error; the size points, for every workload.
  const std::size_t size_points = analysis::sweep_grid(s->size_axes, {}).size();
  if (s->axes.empty())
    throw UserError(
        "explore: give at least one --vary over a hardware parameter (a key path such as "
        "gpu0.peak.fp32 or gpu0.memory.bandwidth; `amdahl describe hw` lists the keys)");

  const int capacity = hw::data_parallel_capacity(s->system);
  for (const std::int64_t g : s->gpu_counts)
    if (g > capacity)
      throw UserError(fmt::format("--vary gpus: {} GPUs, but {} has {} {} (over {} node{})", g,
                                  s->system.name, capacity,
                                  s->system.device(s->system.default_device).model, s->system.nodes,
                                  s->system.nodes == 1 ? "" : "s"));

  // Variants: each workload at each size point and GPU count, lowered once.
  std::string canon =
      fmt::format("amdahl explore 2\nsystem {} {}\n", s->system.name, s->system.file);
  // Every variant stays lowered for the whole run (each point re-costs one): their ops are
  // bounded, checked as they are lowered and, from each workload's first variant, for all of
  // its variants at once (a size axis of 100,000 values is refused in a second, not after
  // gigabytes).
  std::size_t variants = 0;
  for (const std::string& entry : entries) {
    const WorkloadOptions item = parse_item(entry, a);
    const std::vector<std::int64_t> gpus =
        s->gpu_counts.empty() ? std::vector<std::int64_t>{item.gpus} : s->gpu_counts;
    variants += gpus.size() * size_points;
  }
  // The bound: what one lowering may make (graphs::max_ops()), the memory amdahl allows one
  // network.
  const auto most_ops = static_cast<std::size_t>(graphs::max_ops());
  std::size_t held_ops = 0;
  auto hold = [&](const graphs::LoweredNetwork& net, const std::string& label,
                  std::size_t still_to_lower) {
    const std::size_t ops = net.graph.size();
    held_ops += ops;
    if (held_ops + ops * still_to_lower > most_ops)
      throw UserError(fmt::format(
          "--vary: {} workload variants (workloads x GPU counts x size points) would hold "
          "about {} lowered ops ({} ops in {}), more than the {} explore keeps lowered for a "
          "run (the most one lowering may make); vary fewer sizes or GPU counts, or fewer "
          "workloads",
          variants, held_ops + ops * still_to_lower, ops, label, most_ops));
  };
  for (const std::string& entry : entries) {
    const WorkloadOptions item = parse_item(entry, a);
    const std::string shown = entry.substr(0, entry.find(':'));
    const std::vector<std::int64_t> gpus =
        s->gpu_counts.empty() ? std::vector<std::int64_t>{item.gpus} : s->gpu_counts;
    const std::size_t own = gpus.size() * size_points;
    std::size_t own_lowered = 0;
    for (const std::int64_t g : gpus) {
      if (g > capacity)
        throw UserError(fmt::format("--models {}: {} GPUs, but {} has {}", excerpt(entry), g,
                                    s->system.name, capacity));
      WorkloadOptions at = item;
      at.gpus = static_cast<int>(g);
      for (const graphs::Bindings& sizes : analysis::sweep_grid(s->size_axes, size_overrides(at))) {
        // Only the lowered network stays (not the bound network nor the system's copy).
        Workload w = load_workload(at, sizes, s->system);
        const graphs::LoweredNetwork& net = s->networks.emplace_back(std::move(w.lowered));
        graphs::Bindings varied;
        for (const auto& axis : s->size_axes) varied[axis.name] = sizes.at(axis.name);
        analysis::Variant v;
        v.workload = shown;
        v.label = variant_label(at, shown, varied, at.gpus, !s->gpu_counts.empty(), a);
        // The first variant of a workload stands for its others (the same network at other
        // sizes); then each counts as lowered.
        hold(net, v.label, own_lowered++ == 0 ? own - 1 : 0);
        v.sizes = w.network.sizes;
        v.gpus = at.gpus;
        v.net = &net;
        v.options = w.predict;
        canon += fmt::format("variant {} {} {} {} {}\n", v.label, at.mode, at.precision, v.gpus,
                             net.graph.size());
        for (const auto& [k, val] : v.sizes) canon += fmt::format(" {}={}", k, val);
        s->variants.push_back(std::move(v));
      }
    }
  }
  for (const analysis::HardwareAxis& axis : s->axes) {
    canon += "axis " + axis.parameter.path();
    for (const double v : axis.values) canon += fmt::format(" {:a}", v);
    canon += "\n";
  }

  s->names = analysis::cost_names(s->axes);
  if (!a.cost.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, axis] : s->names) names.push_back(name);
    s->cost = std::make_unique<hw::QuantityExpression>(a.cost, names);
    s->cost_text = a.cost;
  } else {
    s->cost_text =
        "each parameter over its base value, a time's inverted (lower is dearer), summed";
  }

  s->exploration = std::make_unique<analysis::Exploration>(s->system, s->axes, s->variants);
  const std::size_t points = s->exploration->points();
  const std::size_t grid =
      (s->exploration->configuration_count() - s->exploration->grid_begin()) * s->variants.size();
  if (points > kMaxExplorePoints && !a.force)
    throw UserError(fmt::format(
        "explore: {} predictions ({} configurations x {} workload variants, {} of them the "
        "grid's) is more than the {} explore runs without --force",
        points, s->exploration->configuration_count(), s->variants.size(), grid,
        kMaxExplorePoints));
  // Every grid configuration's cost, before any prediction: a cost that is not a finite
  // number (0/0, a power that overflows) would leave the configuration off the front unsaid.
  const analysis::Exploration& e = *s->exploration;
  for (std::size_t c = e.grid_begin(); c < e.configuration_count(); ++c) {
    const analysis::Configuration config = e.configuration(c);
    const double cost = config_cost(*s, config);
    if (!std::isfinite(cost)) {
      std::string at;
      for (std::size_t i = 0; i < s->axes.size(); ++i)
        at += fmt::format("{}{}={}", i ? ", " : "", s->axes[i].parameter.path(),
                          s->axes[i].parameter.format(config.values[i]));
      throw UserError(
          fmt::format("{}: {} at configuration {} ({}); a cost must be a finite number at every "
                      "configuration of the grid",
                      s->cost ? fmt::format("--cost '{}'", excerpt(s->cost_text))
                              : fmt::format("the default cost ({})", s->cost_text),
                      std::isnan(cost) ? "nan" : fmt::format("{}", cost), c - e.grid_begin(), at));
    }
    s->costs.push_back(cost);
  }
  // The base system predicts every variant (a variant the base cannot run is an error here).
  analysis::Exploration::Workspace w = s->exploration->workspace();
  for (std::size_t v = 0; v < s->variants.size(); ++v) {
    std::string error;
    if (std::isnan(s->exploration->evaluate(v, w, &error).step_s))
      throw UserError(fmt::format("{} on {}: {}", s->variants[v].label, s->system.name, error));
  }
  for (const auto& [path, hash] : inputs.files())
    canon += fmt::format("input {} {:016x}\n", path, hash);
  s->fingerprint = fingerprint(canon);
  return s;
}

// Whether every rank set up (an error on any rank stops all of them before any work). Exits
// this rank quietly (status 2) when another rank failed and this one did not. Then, that every
// rank loaded the same exploration (`fingerprint`: a node with another system file or network
// would send results of other points): a UserError on every rank when not.
void agree_on_setup([[maybe_unused]] bool ok, [[maybe_unused]] std::uint64_t fingerprint = 0) {
#ifdef AMDAHL_WITH_MPI
  const Ranks& r = mpi_ranks();
  if (!r.mpi) return;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all != 1) {
    if (!ok) return;
    std::exit(2);
  }
  std::uint64_t lowest = 0, highest = 0;
  MPI_Allreduce(&fingerprint, &lowest, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&fingerprint, &highest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (lowest != highest)
    throw UserError(fmt::format(
        "rank {} of {}: the ranks loaded different explorations (another system file, network "
        "or amdahl on some node); every rank must read the same inputs",
        r.rank, r.size));
#endif
}

[[noreturn]] void stop_all_ranks([[maybe_unused]] const std::string& message) {
#ifdef AMDAHL_WITH_MPI
  std::cerr << fmt::format("amdahl: error (rank {} of {}): {}\n", mpi_ranks().rank,
                           mpi_ranks().size, message);
  std::cerr.flush();
  MPI_Abort(MPI_COMM_WORLD, 2);
#endif
  std::abort();
}

std::string bound_of(const analysis::PointResult& r) {
  if (std::isnan(r.step_s)) return "failed";
  int best = 0;
  for (int b = 1; b < model::kBoundCount; ++b)
    if (r.by_bound[b] > r.by_bound[best]) best = b;
  return std::string(model::bound_name(static_cast<model::Bound>(best)));
}

std::string knee_text(const analysis::HardwareAxis& axis, const analysis::Knee& k) {
  if (k.still_gaining) return "still gaining";
  if (!k.value) return "-";
  return axis.parameter.format(*k.value);
}

// How many grid configurations have a variant without a time, and why: every output says so
// (the table at its end, the CSV and JSON formats on stderr). Empty when there are none.
std::string infeasible_note(const analysis::ExploreSummary& sum) {
  std::size_t refused = 0, out_of_memory = 0;
  for (std::size_t i = 0; i < sum.failed.size(); ++i) {
    refused += sum.failed[i] > sum.out_of_memory[i] ? 1 : 0;
    out_of_memory += sum.out_of_memory[i] ? 1 : 0;
  }
  std::string note;
  if (out_of_memory)
    note += fmt::format(
        "\n{} of {} configurations have a variant whose memory footprint exceeds its device's "
        "capacity (status out_of_memory in explore.csv): infeasible, not on the front\n",
        out_of_memory, sum.failed.size());
  if (refused)
    note += fmt::format(
        "\n{} of {} configurations have a variant the model refuses (status refused in "
        "explore.csv): no speedup, not on the front\n",
        refused, sum.failed.size());
  return note;
}

struct Outputs {
  std::string points_csv;
  std::string configurations_csv;
  std::string elasticity_csv;
  std::string knees_csv;
  std::string pareto_csv;
  std::string json;
  std::string table;
  std::optional<Figure> figure;
};

Outputs render_outputs(const Setup& s, const std::vector<analysis::PointResult>& results,
                       const analysis::ExploreSummary& sum, const std::vector<double>& cost,
                       const std::vector<std::size_t>& front, double knee_threshold) {
  const analysis::Exploration& e = *s.exploration;
  const std::size_t nv = s.variants.size(), na = s.axes.size();
  const std::size_t g0 = e.grid_begin();
  Outputs out;

  // Every grid point (a million rows: appended line by line, never held as a Table).
  {
    std::vector<std::string> row{"config"};
    for (const auto& a : s.axes) row.push_back(a.parameter.path());
    for (const char* c : {"workload", "variant", "gpus", "batch", "step_time_s", "samples_per_s",
                          "speedup", "binding"})
      row.push_back(c);
    for (int b = 0; b < model::kBoundCount; ++b)
      row.push_back("share_" + std::string(model::bound_name(static_cast<model::Bound>(b))));
    row.push_back("status");
    append_csv_row(out.points_csv, row);
    for (std::size_t c = g0; c < e.configuration_count(); ++c) {
      const analysis::Configuration config = e.configuration(c);
      for (std::size_t v = 0; v < nv; ++v) {
        const analysis::PointResult& r = results[c * nv + v];
        const analysis::Variant& var = s.variants[v];
        row.assign({std::to_string(c - g0)});
        for (std::size_t a = 0; a < na; ++a) row.push_back(num(config.values[a]));
        const bool ok = !std::isnan(r.step_s);
        const double rate = ok ? static_cast<double>(var.options.batch) * var.gpus / r.step_s : 0.0;
        row.insert(row.end(), {var.workload, var.label, std::to_string(var.gpus),
                               std::to_string(var.options.batch), ok ? num(r.step_s) : "nan",
                               ok ? num(rate) : "nan",
                               ok ? num(sum.baseline_s[v] / r.step_s) : "nan", bound_of(r)});
        for (int b = 0; b < model::kBoundCount; ++b)
          row.push_back(ok ? fmt::format("{:.4f}", r.by_bound[b] / r.step_s) : "nan");
        row.emplace_back(analysis::point_status_name(r.status));
        append_csv_row(out.points_csv, row);
      }
    }
  }

  // Per configuration: the suite's geometric-mean speedup and the cost.
  std::vector<bool> on_front(sum.geomean_speedup.size(), false);
  for (const std::size_t i : front) on_front[i] = true;
  {
    std::vector<std::string> row{"config"};
    for (const auto& a : s.axes) row.push_back(a.parameter.path());
    for (const char* c :
         {"cost", "geomean_speedup", "failed_variants", "out_of_memory_variants", "pareto"})
      row.push_back(c);
    append_csv_row(out.configurations_csv, row);
    for (std::size_t i = 0; i < sum.geomean_speedup.size(); ++i) {
      row.assign({std::to_string(i)});
      const analysis::Configuration config = e.configuration(g0 + i);
      for (std::size_t a = 0; a < na; ++a) row.push_back(num(config.values[a]));
      row.insert(row.end(),
                 {num(cost[i]), num(sum.geomean_speedup[i]), std::to_string(sum.failed[i]),
                  std::to_string(sum.out_of_memory[i]), on_front[i] ? "yes" : "no"});
      append_csv_row(out.configurations_csv, row);
    }
  }

  // Elasticities and knees per variant.
  Table el_csv([&] {
    std::vector<std::string> h{"variant", "baseline_step_s", "binding"};
    for (const auto& a : s.axes) h.push_back(a.parameter.path());
    h.push_back("most_elastic");
    return h;
  }());
  Table el_table([&] {
    std::vector<std::string> h{"workload", "step", "binding"};
    for (const auto& a : s.axes) h.push_back(a.parameter.path());
    h.push_back("most elastic");
    return h;
  }());
  // The parameter the time is most elastic to; none when it is indifferent to all of them.
  auto most_elastic = [&](std::size_t v) -> std::string {
    const auto best = analysis::most_elastic(sum.elasticity[v]);
    return best ? s.axes[*best].parameter.path() : "none";
  };
  // "+0.000" and "-0.000" read as signs where there is none.
  auto elasticity_text = [](double x) {
    return std::fabs(x) < 5e-4 ? std::string("0.000") : fmt::format("{:+.3f}", x);
  };
  for (std::size_t v = 0; v < nv; ++v) {
    const std::string binding = bound_of(results[v]);
    std::vector<std::string> c{s.variants[v].label, num(sum.baseline_s[v]), binding};
    std::vector<std::string> t{s.variants[v].label, seconds(sum.baseline_s[v]), binding};
    for (std::size_t a = 0; a < na; ++a) {
      c.push_back(fmt::format("{:.4f}", sum.elasticity[v][a]));
      t.push_back(elasticity_text(sum.elasticity[v][a]));
    }
    c.push_back(most_elastic(v));
    t.push_back(most_elastic(v));
    el_csv.add(c);
    el_table.add(t);
  }
  Table kn([&] {
    std::vector<std::string> h{"workload"};
    for (const auto& a : s.axes) h.push_back(a.parameter.path());
    return h;
  }());
  for (std::size_t v = 0; v < nv; ++v) {
    std::vector<std::string> row{s.variants[v].label};
    for (std::size_t a = 0; a < na; ++a) row.push_back(knee_text(s.axes[a], sum.knees[v][a]));
    kn.add(row);
  }
  {
    std::vector<std::string> row{"suite (geometric mean)"};
    for (std::size_t a = 0; a < na; ++a) row.push_back(knee_text(s.axes[a], sum.suite_knees[a]));
    kn.add(row);
  }
  std::vector<std::string> pareto_head{"rank", "config"};
  for (const auto& a : s.axes) pareto_head.push_back(a.parameter.path());
  pareto_head.insert(pareto_head.end(), {"cost", "geomean_speedup"});
  Table pareto_csv(pareto_head), pareto_table(pareto_head);
  // The terminal shows at most kShownFront of them, spread evenly, both ends included.
  std::set<std::size_t> shown;
  for (std::size_t k = 0; k < std::min(front.size(), kShownFront); ++k)
    shown.insert(front.size() <= kShownFront
                     ? k
                     : (k * (front.size() - 1) + (kShownFront - 1) / 2) / (kShownFront - 1));
  for (std::size_t k = 0; k < front.size(); ++k) {
    const std::size_t i = front[k];
    std::vector<std::string> c{std::to_string(k + 1), std::to_string(i)};
    std::vector<std::string> t = c;
    for (std::size_t a = 0; a < na; ++a) {
      const double v = e.configuration(g0 + i).values[a];
      c.push_back(num(v));
      t.push_back(s.axes[a].parameter.format(v));
    }
    c.insert(c.end(), {num(cost[i]), num(sum.geomean_speedup[i])});
    t.insert(t.end(),
             {fmt::format("{:.4g}", cost[i]), fmt::format("{:.3f}x", sum.geomean_speedup[i])});
    pareto_csv.add(c);
    if (shown.count(k)) pareto_table.add(t);
  }
  {
    std::ostringstream a, b, c;
    el_csv.print_csv(a);
    kn.print_csv(b);
    pareto_csv.print_csv(c);
    out.elasticity_csv = a.str();
    out.knees_csv = b.str();
    out.pareto_csv = c.str();
  }

  // JSON: the whole exploration.
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : s.axes)
    axes.push_back({{"path", a.parameter.path()},
                    {"name", a.name},
                    {"unit", std::string(hw::dimension_name(a.parameter.dimension()))},
                    {"base", a.parameter.get(s.system)},
                    {"targets", a.parameter.targets()},
                    {"values", a.values}});
  nlohmann::json variants = nlohmann::json::array();
  for (std::size_t v = 0; v < nv; ++v) {
    nlohmann::json el = nlohmann::json::object(), knees = nlohmann::json::object();
    for (std::size_t a = 0; a < na; ++a) {
      el[s.axes[a].parameter.path()] = sum.elasticity[v][a];
      const analysis::Knee& k = sum.knees[v][a];
      knees[s.axes[a].parameter.path()] =
          k.value ? nlohmann::json(*k.value)
                  : nlohmann::json(k.still_gaining ? "still gaining" : "none");
    }
    variants.push_back({{"label", s.variants[v].label},
                        {"workload", s.variants[v].workload},
                        {"gpus", s.variants[v].gpus},
                        {"batch", s.variants[v].options.batch},
                        {"sizes", s.variants[v].sizes},
                        {"baseline_step_s", sum.baseline_s[v]},
                        {"binding", bound_of(results[v])},
                        {"elasticity", el},
                        {"knee", knees}});
  }
  nlohmann::json suite_knees = nlohmann::json::object();
  for (std::size_t a = 0; a < na; ++a) {
    const analysis::Knee& k = sum.suite_knees[a];
    suite_knees[s.axes[a].parameter.path()] =
        k.value ? nlohmann::json(*k.value)
                : nlohmann::json(k.still_gaining ? "still gaining" : "none");
  }
  nlohmann::json j{{"system", s.system.name},
                   {"axes", axes},
                   {"variants", variants},
                   {"cost", s.cost_text},
                   {"knee_threshold", knee_threshold},
                   {"elasticity_step", analysis::kElasticityStep},
                   {"suite_knee", suite_knees},
                   {"pareto_front", front}};
  // The configurations, written line by line (a million of them would be gigabytes as a
  // JSON tree): values per axis, cost, speedup, whether on the front, each variant's step.
  out.json = json_text(j, 1);
  out.json.pop_back();  // the closing brace
  out.json += ",\n \"configurations\": [";
  auto number = [](double x) { return std::isfinite(x) ? fmt::format("{}", x) : "null"; };
  for (std::size_t i = 0; i < sum.geomean_speedup.size(); ++i) {
    std::string line = i ? ",\n  {\"values\": [" : "\n  {\"values\": [";
    const analysis::Configuration c = e.configuration(g0 + i);
    for (std::size_t a = 0; a < na; ++a) line += (a ? ", " : "") + number(c.values[a]);
    line += fmt::format(
        "], \"cost\": {}, \"geomean_speedup\": {}, \"pareto\": {}, \"failed_variants\": {}, "
        "\"out_of_memory_variants\": {}, \"step_time_s\": [",
        number(cost[i]), number(sum.geomean_speedup[i]), on_front[i] ? "true" : "false",
        sum.failed[i], sum.out_of_memory[i]);
    for (std::size_t v = 0; v < nv; ++v)
      line += (v ? ", " : "") + number(results[(g0 + i) * nv + v].step_s);
    line += "], \"status\": [";
    for (std::size_t v = 0; v < nv; ++v)
      line += fmt::format("{}\"{}\"", v ? ", " : "",
                          analysis::point_status_name(results[(g0 + i) * nv + v].status));
    out.json += line + "]}";
  }
  out.json += "\n ]\n}\n";

  // The terminal's tables.
  std::ostringstream os;
  os << fmt::format(
      "explore  {} configurations x {} workload variants on {} ({} points with "
      "the baseline, elasticity and knee points)\n",
      sum.geomean_speedup.size(), nv, s.system.name, e.points());
  for (const auto& a : s.axes) {
    std::string values;
    for (const double v : a.values) values += (values.empty() ? "" : ", ") + a.parameter.format(v);
    os << fmt::format("  vary {} (base {}): {}\n", a.parameter.path(),
                      a.parameter.format(a.parameter.get(s.system)), values);
  }
  os << fmt::format(
      "\nelasticity of the step time at the base system, d log t / d log p (-1: the time "
      "scales as 1/p; 0: indifferent):\n");
  el_table.print(os);
  os << fmt::format(
      "\nknee of each axis: the value beyond which a step along it gains less "
      "than {:g}% (others at base):\n",
      100 * knee_threshold);
  kn.print(os);
  os << fmt::format(
      "\nPareto front: cost ({}) against the geometric-mean speedup over the base "
      "across the {} variants:\n",
      s.cost_text, nv);
  if (front.empty())
    os << fmt::format("(none: no configuration of the {} runs every variant; see below)\n",
                      sum.geomean_speedup.size());
  else
    pareto_table.print(os);
  if (front.size() > kShownFront)
    os << fmt::format("({} configurations on the front, {} shown; all in pareto.csv)\n",
                      front.size(), shown.size());
  out.table = os.str() + infeasible_note(sum);

  // The figure: every configuration's (cost, speedup), the front drawn over them.
  // Beyond kFigurePoints configurations only the front is drawn (gnuplot's SVG of a million
  // points would be hundreds of megabytes).
  std::vector<std::pair<double, double>> all, best;
  if (cost.size() <= kFigurePoints)
    for (std::size_t i = 0; i < cost.size(); ++i)
      if (std::isfinite(sum.geomean_speedup[i]) && cost[i] > 0)
        all.emplace_back(cost[i], sum.geomean_speedup[i]);
  for (const std::size_t i : front)
    if (cost[i] > 0) best.emplace_back(cost[i], sum.geomean_speedup[i]);
  std::vector<PointGroup> groups;
  if (!all.empty()) groups.push_back({"configurations", all});
  if (!best.empty()) groups.push_back({"Pareto front", best});
  if (!best.empty())
    out.figure =
        scatter("pareto", fmt::format("{}: geometric-mean speedup against cost", s.system.name),
                "cost", "speedup over the base system", groups, false);
  return out;
}

void run_explore(const ExploreArgs& a) {
  const Ranks& ranks = mpi_ranks();
  const bool root = ranks.rank == 0;
  std::unique_ptr<Setup> s;
  std::optional<OutputDir> out;
  const bool resuming =
      a.resume && !a.out_dir.empty() && fs::exists(fs::path(a.out_dir) / kCheckpointName);
  try {
    if (a.resume && a.out_dir.empty()) throw UserError("--resume needs -o DIR (the checkpoint)");
    if (a.resume && !resuming)
      throw UserError(fmt::format("--resume: no checkpoint {} to resume from",
                                  (fs::path(a.out_dir) / kCheckpointName).string()));
    if (!a.resume && !a.out_dir.empty() && fs::exists(fs::path(a.out_dir) / kCheckpointName))
      throw UserError(fmt::format(
          "-o {}: holds an unfinished exploration's checkpoint ({}); give --resume to continue "
          "it, or remove it to start over",
          a.out_dir, kCheckpointName));
    // The output folder holds this exploration's checkpoint when resuming.
    if (root) out.emplace(a.out_dir, a.force || resuming);
    s = make_setup(a);
  } catch (const UserError&) {
    agree_on_setup(false);
    throw;
  }
  agree_on_setup(true, s->fingerprint);

  RunOptions ro;
  ro.points = s->exploration->points();
  ro.threads = a.threads;
  ro.resume = a.resume;
  ro.fingerprint = s->fingerprint;
  if (root && !a.out_dir.empty()) {
    ro.checkpoint = (fs::path(a.out_dir) / kCheckpointName).string();
  }
  Progress bar;
  if (root && bar.shown())
    ro.progress = [&bar](std::size_t done, std::size_t total) {
      bar.update(done, total, "predictions");
    };
  const analysis::Exploration& e = *s->exploration;
  RunStats stats;
  std::vector<analysis::PointResult> results;
  try {
    results = run_points(
        ro,
        [&e] {
          auto w = std::make_shared<analysis::Exploration::Workspace>(e.workspace());
          return PointEvaluator([&e, w](std::size_t p) { return e.evaluate(p, *w); });
        },
        stats);
  } catch (const std::exception& err) {
    if (ranks.mpi) stop_all_ranks(err.what());
    throw;
  }
  if (!root) return;

  const analysis::ExploreSummary sum = analysis::summarize(e, results, a.knee);
  const std::vector<double>& cost = s->costs;
  const std::vector<std::size_t> front = analysis::pareto_front(cost, sum.geomean_speedup);
  Outputs o = render_outputs(*s, results, sum, cost, front, a.knee);

  const std::size_t computed = ro.points - stats.resumed_points;
  const double per_point =
      computed ? stats.seconds * stats.ranks * stats.threads / static_cast<double>(computed) : 0.0;
  std::string run_line = fmt::format(
      "ran {} predictions in {:.2f} s on {} rank{} x {} thread{} ({:.1f} us per prediction per "
      "thread{}{})",
      computed, stats.seconds, stats.ranks, stats.ranks == 1 ? "" : "s", stats.threads,
      stats.threads == 1 ? "" : "s", 1e6 * per_point,
      stats.resumed_points ? fmt::format("; {} resumed from the checkpoint", stats.resumed_points)
                           : "",
      stats.ranks > 1 ? fmt::format("; {:.1f} kB gathered to rank 0", stats.gathered_bytes / 1e3)
                      : "");
  if (stats.ranks > 1) {
    run_line += "; per rank:";
    for (std::size_t r = 0; r < stats.points_by_rank.size(); ++r)
      run_line += fmt::format(" {}", stats.points_by_rank[r]);
  }

  switch (parse_format(a.format)) {
    case Format::kJson:
      std::cout << o.json;
      break;
    case Format::kCsv:
      std::cout << o.configurations_csv;
      break;
    case Format::kTable:
      std::cout << o.table << "\n" << run_line << "\n";
      break;
  }
  if (a.format != "table") {
    std::string note = infeasible_note(sum);
    if (front.empty()) note += "\nthe Pareto front is empty: no configuration runs every variant\n";
    std::cerr << (note.empty() ? "" : note.substr(1)) << run_line << "\n";
  }
  if (!out || !*out) return;
  out->add("explore.csv", std::move(o.points_csv));
  out->add("configurations.csv", std::move(o.configurations_csv));
  out->add("elasticity.csv", std::move(o.elasticity_csv));
  out->add("knees.csv", std::move(o.knees_csv));
  out->add("pareto.csv", std::move(o.pareto_csv));
  out->add("explore.json", std::move(o.json));
  if (o.figure) {
    const RenderedFigure r = render(*o.figure);
    out->add("figures/pareto.csv", o.figure->csv);
    out->add("figures/pareto.gp", o.figure->script);
    if (r.error.empty()) {
      out->add("figures/pareto.svg", r.svg);
      out->add("figures/pareto.png", r.png);
    } else {
      std::cerr << "amdahl: note: " << r.error << "\n";
    }
  }
  out->commit();
  // The results are written: the checkpoint has served.
  if (!ro.checkpoint.empty()) fs::remove(ro.checkpoint);
}

}  // namespace

void register_explore(CLI::App& app) {
  auto a = std::make_shared<ExploreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explore",
      "design-space exploration: a workload set on a grid over hardware parameters; "
      "elasticities, knees, the geometric-mean speedup and the Pareto front (runs under "
      "mpirun too)");
  cmd->add_option("--suite", a->suite, suites_help());
  cmd->add_option("--models", a->models,
                  "comma-separated workloads instead of --suite: a zoo name, network YAML or ONNX "
                  "file, each with optional :NAME=VALUE sizes and :mode=, :precision=, :gpus= "
                  "(e.g. resnet50:batch=128:precision=fp16)");
  cmd->add_option("--system", a->system, "catalog system name or system YAML path")
      ->capture_default_str();
  add_allow_path_option(cmd);
  cmd->add_option("--mode", a->mode, "train or infer (each workload's unless it says)")
      ->check(CLI::IsMember({"train", "infer"}))
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "each workload's precision unless it says")
      ->check(workload_precision())
      ->capture_default_str();
  cmd->add_option(
         "--vary", a->vary,
         "PATH=VALUES: a hardware parameter by its key path (gpu0.peak.fp32=5..40TFLOP/s:x2, "
         "gpu0.memory.bandwidth=0.25..2TB/s:x2, links.cpu0-gpu0.bandwidth=16,32,64GB/s, "
         "runtime.dispatch_per_op=...), gpus=1,2,4 or a network size (batch=32..256:x2); "
         "repeatable, a grid over all")
      ->required();
  cmd->add_option("--cost", a->cost,
                  "the cost of a configuration, an expression of the varied parameters by name "
                  "(the path with '_' for '.' and '-', or any unique tail of it) with quantities "
                  "('0.5 * peak_fp32 / 10TFLOP/s + bandwidth / 1TB/s'); default: each parameter "
                  "over its base value, summed");
  // A gain per step above 100 (10,000%) is past any axis's reach: every knee would be its
  // first value, printed as an absurd percentage.
  cmd->add_option("--knee", a->knee,
                  "the least relative gain per step along an axis that counts, for the knees "
                  "(0.05: 5%; at most 100)")
      ->check(positive_at_most(100))
      ->capture_default_str();
  cmd->add_option("--threads", a->threads,
                  fmt::format("worker threads per process, at most {} (0: the machine's cores "
                              "over its ranks)",
                              kMaxThreads))
      ->check(thread_count())
      ->capture_default_str();
  cmd->add_option("--format", a->format,
                  "what to print: the tables, the configurations' CSV, "
                  "or the JSON")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", a->out_dir,
                  "folder for explore.csv (every point), configurations.csv, elasticity.csv, "
                  "knees.csv, pareto.csv, explore.json and figures/pareto.svg; holds the "
                  "checkpoint while running");
  cmd->add_flag("--force", a->force,
                fmt::format("let -o replace files in a non-empty folder, and run more than {} "
                            "predictions",
                            kMaxExplorePoints));
  cmd->add_flag("--resume", a->resume,
                "continue the exploration whose checkpoint is in -o DIR (an interrupted run), "
                "computing only the chunks it lacks");
  cmd->callback([a] { run_explore(*a); });
}

}  // namespace amdahl::cli
