// amdahl sweep: scaling curves. The step is predicted over a grid of symbolic sizes
// (--vary batch=1,2,4,... [--vary image=...]), points spread over all cores; each row has
// the step time, throughput, per-class and per-bound critical-path shares, and the step time
// with every op on the host CPU with the accelerator's speedup over it.

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include "analysis/sweep.h"
#include "cli/commands.h"
#include "cli/figures.h"
#include "cli/json_text.h"
#include "cli/output_files.h"
#include "cli/progress.h"
#include "cli/report.h"
#include "cli/workload.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/table.h"

namespace amdahl::cli {
namespace {

struct SweepArgs {
  std::vector<std::string> vary;
  bool no_cpu = false;
  unsigned threads = 0;
  std::string plot;  // --plot FILE.svg
};

std::string num(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

void register_sweep(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "scaling curves: step time, throughput, per-class shares and the speedup over the host "
      "CPU as sizes vary");
  add_workload_options(cmd, *o, true, {"csv", "table", "json"});
  cmd->get_option("--format")->default_str("csv");
  o->format = "csv";
  cmd->add_option("--vary", args->vary,
                  "NAME=V1,V2,... | NAME=A..B[:STEP|:xFACTOR] (repeatable; a grid over all)")
      ->required();
  cmd->add_flag("--no-cpu", args->no_cpu, "skip the all-on-host-CPU comparison");
  cmd->add_option("--plot", args->plot,
                  "also draw the sweep into FILE.svg (with FILE.png, the CSV and the gnuplot "
                  "script beside it): throughput against the first axis, or the speedup "
                  "against `gpus` when it varies");
  cmd->add_option("--threads", args->threads, "worker threads (0: all cores)")
      ->capture_default_str();
  cmd->callback([o, args] {
    OutputDir out(o->out_dir, o->force);
    if (!args->plot.empty()) check_plot(args->plot, o->force);  // fails before any work
    const hw::SystemSpec system = load_workload_system(*o);
    const Workload first = load_workload(*o);  // validates every input once
    std::vector<analysis::SweepAxis> axes;
    for (const auto& v : args->vary) axes.push_back(analysis::parse_vary(v));
    // `gpus` is not a size: each of its values is a sweep of the size axes at that many
    // data-parallel replicas (the grid checks that no axis repeats).
    std::vector<analysis::SweepAxis> size_axes;
    std::vector<std::int64_t> gpu_counts{o->gpus};
    for (const auto& a : axes)
      if (a.name == "gpus")
        gpu_counts = a.values;
      else
        size_axes.push_back(a);
    analysis::sweep_grid(axes, {});  // a repeated axis is an error before any work
    const bool scaling = gpu_counts.size() > 1 || o->gpus > 1 || gpu_counts.front() > 1;
    analysis::SweepOptions so;
    so.predict = first.predict;
    // The all-on-CPU comparison is of one device: not made for data-parallel steps.
    so.compare_host = !args->no_cpu && !scaling;
    so.threads = args->threads;
    struct Row {
      std::int64_t gpus = 1;
      std::size_t point = 0;  // index in the size grid
      analysis::SweepRow r;
    };
    std::vector<Row> rows;
    Progress bar;
    std::size_t finished = 0;  // points of the GPU counts before this one
    std::size_t total = 0;
    for (const std::int64_t g : gpu_counts) {
      if (g > std::numeric_limits<int>::max())
        throw UserError(fmt::format("--vary gpus: {} GPUs is more than amdahl models", g));
      WorkloadOptions at = *o;
      at.gpus = static_cast<int>(g);
      const auto grid = analysis::sweep_grid(size_axes, size_overrides(at));
      if (total == 0) total = grid.size() * gpu_counts.size();
      if (bar.shown())
        so.progress = [&bar, &finished, total](std::size_t done, std::size_t) {
          bar.update(finished + done, total, "sweep points");
        };
      const auto points = analysis::sweep(lower_at(at, system), system, grid, so);
      finished += grid.size();
      for (std::size_t i = 0; i < points.size(); ++i) rows.push_back({g, i, points[i]});
    }
    // Speedup and scaling efficiency against the fewest GPUs at the same sizes.
    const std::int64_t base_gpus = *std::min_element(gpu_counts.begin(), gpu_counts.end());
    std::map<std::size_t, double> base_throughput;
    for (const Row& row : rows)
      if (row.gpus == base_gpus) base_throughput[row.point] = row.r.samples_per_s;
    auto scaling_of = [&](const Row& row) {
      return analysis::scaling_against(row.r.samples_per_s, row.gpus, base_throughput.at(row.point),
                                       base_gpus);
    };
    const bool gpus_varied = gpu_counts.size() > 1;

    std::vector<const model::ClassBreakdown*> class_parts;
    std::vector<const model::BoundBreakdown*> bound_parts;
    for (const auto& row : rows) {
      class_parts.push_back(&row.r.share_by_class);
      bound_parts.push_back(&row.r.share_by_bound);
    }
    const std::vector<int> classes = present_in_any(class_parts);
    const std::vector<int> bounds = present_in_any(bound_parts);
    const std::string dev = so.predict.device.empty() ? system.default_device : so.predict.device;
    const hw::DeviceSpec* host = system.host_of(dev);
    const bool cpu = so.compare_host && host && system.device(dev).kind != hw::DeviceKind::kCpu;

    nlohmann::json points = nlohmann::json::array();
    for (const Row& each : rows) {
      const analysis::SweepRow& r = each.r;
      nlohmann::json row = {{"sizes", r.sizes},
                            {"gpus", each.gpus},
                            {"batch", r.batch},
                            {"step_time_s", r.step_s},
                            {"samples_per_s", r.samples_per_s},
                            {"share_by_class", named_json(r.share_by_class)},
                            {"share_by_bound", named_json(r.share_by_bound)}};
      if (gpus_varied) {
        row["speedup"] = scaling_of(each).speedup;
        row["scaling_efficiency"] = scaling_of(each).efficiency;
      }
      if (cpu) {
        row["cpu_step_time_s"] = r.host_step_s;
        row["cpu_vs_accelerator_speedup"] = r.host_speedup;
      }
      points.push_back(row);
    }
    const nlohmann::json json{{"workload", first.lowered.name},
                              {"system", system.name},
                              {"device", dev},
                              {"host", cpu ? host->name : ""},
                              {"points", points}};
    std::vector<std::string> head;
    for (const auto& a : axes) head.push_back(a.name);
    const bool batch_varied =
        std::any_of(axes.begin(), axes.end(), [](const auto& a) { return a.name == "batch"; });
    if (!batch_varied) head.push_back("batch");
    if (scaling && !gpus_varied) head.push_back("gpus");
    for (const char* c : {"step_time_s", "samples_per_s"}) head.push_back(c);
    if (gpus_varied)
      for (const char* c : {"speedup", "scaling_efficiency"}) head.push_back(c);
    if (cpu)
      for (const char* c : {"cpu_step_time_s", "cpu_vs_accelerator_speedup"}) head.push_back(c);
    for (int c : classes) head.push_back(fmt::format("share_{}", model::ClassBreakdown::name(c)));
    for (int b : bounds) head.push_back(fmt::format("bound_{}", model::BoundBreakdown::name(b)));
    Table t(head);
    for (const Row& each : rows) {
      const analysis::SweepRow& r = each.r;
      std::vector<std::string> row;
      for (const auto& a : axes)
        row.push_back(std::to_string(a.name == "gpus" ? each.gpus : r.sizes.at(a.name)));
      if (!batch_varied) row.push_back(std::to_string(r.batch));
      if (scaling && !gpus_varied) row.push_back(std::to_string(each.gpus));
      row.push_back(num(r.step_s));
      row.push_back(num(r.samples_per_s));
      if (gpus_varied) {
        row.push_back(num(scaling_of(each).speedup));
        row.push_back(num(scaling_of(each).efficiency));
      }
      if (cpu) {
        row.push_back(num(r.host_step_s));
        row.push_back(num(r.host_speedup));
      }
      for (int c : classes) row.push_back(fmt::format("{:.4f}", r.share_by_class.at_slot(c)));
      for (int b : bounds) row.push_back(fmt::format("{:.4f}", r.share_by_bound.at_slot(b)));
      t.add(std::move(row));
    }
    const Format format = parse_format(o->format);
    if (format == Format::kJson)
      std::cout << json_text(json, 2) << '\n';
    else if (format == Format::kCsv)
      t.print_csv(std::cout);
    else
      t.print(std::cout);
    if (out) {
      std::ostringstream csv;
      t.print_csv(csv);
      out.add("sweep.csv", csv.str());
      out.add("sweep.json", json_text(json, 1) + "\n");
      out.commit();
    }
    if (args->plot.empty()) return;
    // The plot: with `gpus` varied, the speedup against the GPU count, a line per point of the
    // other axes; else throughput against the first axis, a line per point of the others
    // (and the host CPU's with one axis).
    const std::string x_name = gpus_varied ? "gpus" : axes.front().name;
    const std::vector<std::int64_t>& x_values = gpus_varied ? gpu_counts : axes.front().values;
    std::vector<double> x(x_values.begin(), x_values.end());
    std::map<std::string, Series> lines;
    std::vector<std::string> order;
    for (const Row& each : rows) {
      std::string label;
      for (const auto& a : axes)
        if (a.name != x_name)
          label += fmt::format("{}{}={}", label.empty() ? "" : ",", a.name,
                               a.name == "gpus" ? each.gpus : each.r.sizes.at(a.name));
      if (label.empty()) label = gpus_varied ? "speedup" : "accelerator";
      auto [it, fresh] = lines.try_emplace(label, Series{label, {}, std::nullopt});
      if (fresh) order.push_back(label);
      it->second.y.push_back(gpus_varied ? scaling_of(each).speedup : each.r.samples_per_s);
    }
    std::vector<Series> series;
    for (const auto& label : order) series.push_back(lines.at(label));
    if (!gpus_varied && cpu && axes.size() == 1) {
      Series host_line{"host CPU (" + host->name + ")", {}, std::nullopt};
      for (const Row& each : rows)
        host_line.y.push_back(
            each.r.host_step_s > 0 ? static_cast<double>(each.r.batch) / each.r.host_step_s : NAN);
      series.push_back(host_line);
    }
    const std::string name = plot_name(args->plot);
    const Figure fig = gpus_varied
                           ? line_chart(name,
                                        fmt::format("{} on {}: speedup against {} GPU(s)",
                                                    first.lowered.name, system.name, base_gpus),
                                        "gpus", "speedup", x, series, true, "x")
                           : line_chart(name,
                                        fmt::format("{} on {}: throughput against {}",
                                                    first.lowered.name, system.name, x_name),
                                        x_name, "samples/s", x, series, true);
    write_plot(args->plot, fig, o->force);
  });
}

}  // namespace amdahl::cli
