// amdahl report: the characterization study (cli/study.h) of a suite or a list of workloads
// on one system, written under -o DIR as report.md and the CSV behind every table
// (docs/report.md).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "cli/commands.h"
#include "cli/figures.h"
#include "cli/output_files.h"
#include "cli/progress.h"
#include "cli/report.h"
#include "cli/study.h"
#include "cli/validation_view.h"
#include "cli/workload.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/output_encoding.h"
#include "util/suggest.h"
#include "util/table.h"
#include "validate/comparison.h"
#include "validate/measured_runs.h"

namespace amdahl::cli {

namespace {

std::string num(double v) { return fmt::format("{:.6g}", v); }
std::string times(double v) { return std::isfinite(v) ? fmt::format("{:.2f}x", v) : "inf"; }
std::string mode_text(const analysis::ModeStudy& m) {
  return std::string(graphs::mode_name(m.mode));
}

// The CSV files, one table each over every workload and mode.
struct Csv {
  Table summary{{"workload", "mode", "batch", "device", "step_s", "samples_per_s", "binding",
                 "host_step_s", "accelerator_speedup"}};
  Table classes{{"workload", "mode", "target", "op_class", "seconds", "share"}};
  Table bounds{{"workload", "mode", "bound", "seconds", "share"}};
  Table accelerability{{"workload", "mode", "op_class", "share", "busy_s", "step_at_2x_s",
                        "speedup_at_2x", "step_at_10x_s", "speedup_at_10x", "bound_s",
                        "bound_speedup"}};
  Table batches{{"workload", "mode", "batch", "step_s", "samples_per_s", "host_share", "binding",
                 "cpu_step_s", "accelerator_speedup"}};
  Table link{
      {"workload", "mode", "link", "compared_link", "step_s", "compared_step_s", "slowdown"}};
  Table scaling{{"workload", "gpus", "step_s", "samples_per_s", "speedup", "efficiency",
                 "exposed_communication_s"}};
  Table whatif{{"workload", "mode", "device", "compared_device", "step_s", "compared_step_s",
                "speedup", "bound_speedup"}};
};

double bound_speedup(double v) { return std::isinf(v) ? -1.0 : v; }

// A value from the inputs shown as code (a name, a path, the command line).
struct Code {
  std::string text;
};

// The report as Markdown and as self-contained HTML, written block by block. A heading's or
// paragraph's `prose` is amdahl's own text (`backticks` mark code in it), a format string
// whose {} take `values`: each string value (a name, a path: data from the inputs) is encoded
// for Markdown and for HTML (util/output_encoding.h), each Code value shown as code, each
// number formatted as the {} says. No value is ever markup.
class Doc {
 public:
  template <class... Values>
  void heading(int level, std::string_view prose, const Values&... values) {
    md_ << '\n'
        << std::string(static_cast<std::size_t>(level), '#') << ' '
        << fmt::format(fmt::runtime(prose), for_markdown(values)...) << "\n";
    html_ << fmt::format("<h{0}>{1}</h{0}>\n", level,
                         fmt::format(fmt::runtime(inline_html(prose)), for_html(values)...));
  }
  template <class... Values>
  void paragraph(std::string_view prose, const Values&... values) {
    md_ << '\n' << fmt::format(fmt::runtime(prose), for_markdown(values)...) << '\n';
    html_ << "<p>" << fmt::format(fmt::runtime(inline_html(prose)), for_html(values)...)
          << "</p>\n";
  }
  void table(const Table& t) {
    md_ << '\n';
    t.print_markdown(md_);
    t.print_html(html_);
  }
  // The figure from figures/NAME.svg, inline in the HTML; a note where it was not rendered.
  void figure(const Figure& f, const RenderedFigure& r) {
    if (!r.error.empty()) {
      paragraph("Figure {} not drawn: {}; render it with {} in the figures folder (its data: {}).",
                f.title, r.why, Code{"gnuplot " + f.name + ".gp"},
                Code{"figures/" + f.name + ".csv"});
      return;
    }
    md_ << fmt::format("\n![{}](figures/{}.svg)\n", markdown_text(f.title), f.name);
    // The SVG's own XML declaration is not allowed inside HTML. gnuplot escapes the text it
    // writes into it (the titles, the labels) as XML.
    std::string svg = r.svg;
    if (const auto at = svg.find("<svg"); at != std::string::npos) svg = svg.substr(at);
    html_ << fmt::format("<figure id=\"{}\">\n{}\n<figcaption>{}</figcaption></figure>\n",
                         html_text(f.name), svg, html_text(f.title));
  }
  std::string markdown() const { return md_.str(); }
  std::string html(const std::string& title) const {
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<title>{}</title>\n<style>\n"
        "body {{ font-family: sans-serif; max-width: 1000px; margin: 2em auto; color: #222; }}\n"
        "table {{ border-collapse: collapse; margin: 0.5em 0 1em; }}\n"
        "th, td {{ border: 1px solid #ccc; padding: 2px 8px; text-align: right; }}\n"
        "th {{ background: #f0f0f0; }} td:first-child {{ text-align: left; }}\n"
        "figure {{ margin: 1em 0; }} figure svg {{ max-width: 100%; height: auto; }}\n"
        "code {{ background: #f4f4f4; padding: 0 3px; }}\n"
        "</style>\n</head>\n<body>\n{}</body>\n</html>\n",
        html_text(title), html_.str());
  }

 private:
  static std::string for_markdown(const std::string& v) { return markdown_text(v); }
  static std::string for_markdown(const Code& v) { return markdown_code(v.text); }
  static std::string for_html(const std::string& v) { return html_text(v); }
  static std::string for_html(const Code& v) { return "<code>" + html_text(v.text) + "</code>"; }
  template <class Number, class = std::enable_if_t<std::is_arithmetic_v<Number>>>
  static Number for_markdown(Number v) {
    return v;
  }
  template <class Number, class = std::enable_if_t<std::is_arithmetic_v<Number>>>
  static Number for_html(Number v) {
    return v;
  }
  // amdahl's prose: `code` spans as <code>, the rest escaped ({} kept for the values).
  static std::string inline_html(std::string_view text) {
    std::string out;
    bool code = false;
    std::size_t from = 0;
    for (std::size_t at = text.find('`'); at != std::string::npos; at = text.find('`', from)) {
      out += html_text(text.substr(from, at - from)) + (code ? "</code>" : "<code>");
      code = !code;
      from = at + 1;
    }
    out += html_text(text.substr(from));
    return code ? out + "</code>" : out;
  }
  std::ostringstream md_;
  std::ostringstream html_;
};

// One workload and mode: its Markdown section, and its rows of the CSV files.
void write_mode(Doc& doc, Csv& csv, const Study& st, const std::string& name,
                const analysis::ModeStudy& m) {
  const model::Prediction& p = m.accel;
  const std::string mode = mode_text(m);
  doc.heading(3, "{}: {}", name, mode);
  const std::string step =
      fmt::format("step {}, {:.1f} samples/s, {}", seconds(p.step_time_s), p.samples_per_s,
                  model::binding_name(model::step_binding(p)));
  if (m.host)
    doc.paragraph(
        "{} on {} ({}): {}; on the host CPU alone ({}) {}, so the accelerator is {} "
        "faster.",
        batch_text(p), p.device, p.device_model, step, m.host->device_model,
        seconds(m.host->step_time_s), times(m.host->step_time_s / p.step_time_s));
  else
    doc.paragraph("{} on {} ({}): {}.", batch_text(p), p.device, p.device_model, step);
  csv.summary.add({name, mode, std::to_string(p.batch), p.device, num(p.step_time_s),
                   num(p.samples_per_s), std::string(model::binding_name(model::step_binding(p))),
                   m.host ? num(m.host->step_time_s) : "",
                   m.host ? num(m.host->step_time_s / p.step_time_s) : ""});

  // Where the time goes: critical-path seconds per op class, accelerator and CPU alone.
  doc.paragraph("Where the time goes (share of the critical path by op class):");
  const std::vector<int> classes =
      m.host ? present_in_any({&p.by_class, &m.host->by_class}) : present_in_any({&p.by_class});
  Table t({"op class", "accelerator", "share", "host CPU alone", "share"});
  for (int k : classes) {
    const std::string c(p.by_class.name(k));
    const double as = p.by_class.at_slot(k);
    const double hs = m.host ? m.host->by_class.at_slot(k) : 0;
    t.add({c, seconds(as), pct(as, p.step_time_s), m.host ? seconds(hs) : "-",
           m.host ? pct(hs, m.host->step_time_s) : "-"});
    csv.classes.add({name, mode, "accelerator", c, num(as), num(as / p.step_time_s)});
    if (m.host) csv.classes.add({name, mode, "host", c, num(hs), num(hs / m.host->step_time_s)});
  }
  doc.table(t);

  doc.paragraph("Binding resource (share of the critical path):");
  Table b({"bound", "time", "share"});
  for (const auto& [bound_name, s] : p.by_bound.named()) {
    const std::string bound(bound_name);
    b.add({bound, seconds(s), pct(s, p.step_time_s)});
    csv.bounds.add({name, mode, bound, num(s), num(s / p.step_time_s)});
  }
  doc.table(b);

  doc.paragraph(
      "Accelerability (each class alone 2x and 10x faster, and at zero cost: the Amdahl "
      "bound; host dispatch and sync {:.1f}% of the step):",
      100 * m.at10.host_share);
  Table a({"op class", "share", "step at 2x", "speedup", "step at 10x", "speedup", "bound"});
  for (std::size_t i = 0; i < m.at10.classes.size(); ++i) {
    const analysis::ClassAccelerability& c10 = m.at10.classes[i];
    const auto c2 = std::find_if(m.at2.classes.begin(), m.at2.classes.end(),
                                 [&](const auto& c) { return c.op_class == c10.op_class; });
    const std::string cls(op_class_name(c10.op_class));
    a.add({cls, pct(c10.share, 1), seconds(c2->at_k_s), times(c2->speedup_at_k),
           seconds(c10.at_k_s), times(c10.speedup_at_k), times(c10.bound_speedup)});
    csv.accelerability.add({name, mode, cls, num(c10.share), num(c10.busy_s), num(c2->at_k_s),
                            num(c2->speedup_at_k), num(c10.at_k_s), num(c10.speedup_at_k),
                            num(c10.bound_s), num(bound_speedup(c10.bound_speedup))});
  }
  doc.table(a);

  if (!m.batches.empty()) {
    const std::string range =
        fmt::format("batch {} to {}", m.batches.front().batch, m.batches.back().batch);
    doc.paragraph(
        "Batch size, {} (host share: the critical path's host dispatch and sync; speedup: the "
        "accelerator's over the host CPU). {}; {}.",
        range,
        m.device_bound_from ? fmt::format("Device-bound from batch {} on", *m.device_bound_from)
                            : "Not device-bound at the largest batch",
        m.host ? (m.accelerator_wins_from
                      ? fmt::format("the accelerator beats the CPU from batch {} on",
                                    *m.accelerator_wins_from)
                      : std::string("the CPU is as fast or faster at the largest batch"))
               : std::string("no host CPU to compare"));
    Table s({"batch", "step", "samples/s", "host share", "binding", "CPU step", "speedup"});
    for (const analysis::SweepRow& r : m.batches) {
      const double host = analysis::host_share(r);
      const std::string binding(model::binding_name(model::host_binding(host)));
      const bool cpu = r.host_step_s > 0;
      s.add({std::to_string(r.batch), seconds(r.step_s), fmt::format("{:.1f}", r.samples_per_s),
             pct(host, 1), binding, cpu ? seconds(r.host_step_s) : "-",
             cpu ? times(r.host_speedup) : "-"});
      csv.batches.add({name, mode, std::to_string(r.batch), num(r.step_s), num(r.samples_per_s),
                       num(host), binding, cpu ? num(r.host_step_s) : "",
                       cpu ? num(r.host_speedup) : ""});
    }
    doc.table(s);
  }

  if (m.link) {
    const analysis::LinkStudy& l = *m.link;
    doc.paragraph("Host link: with {} links in place of {}, the step takes {} ({} of {}).", l.to,
                  l.from, seconds(l.changed_step_s), times(l.slowdown), seconds(l.step_s));
    csv.link.add({name, mode, l.from, l.to, num(l.step_s), num(l.changed_step_s), num(l.slowdown)});
  }

  if (!m.scaling.empty()) {
    doc.paragraph("Data-parallel training over {}'s GPUs (batch {} per GPU):", st.system.name,
                  p.batch);
    Table s({"GPUs", "step", "samples/s", "speedup", "efficiency", "exposed communication"});
    for (const analysis::ScalingPoint& g : m.scaling) {
      s.add({std::to_string(g.gpus), seconds(g.step_s), fmt::format("{:.1f}", g.samples_per_s),
             times(g.scaling.speedup), pct(g.scaling.efficiency, 1), seconds(g.exposed_s)});
      csv.scaling.add({name, std::to_string(g.gpus), num(g.step_s), num(g.samples_per_s),
                       num(g.scaling.speedup), num(g.scaling.efficiency), num(g.exposed_s)});
    }
    doc.table(s);
  }

  const analysis::DeviceWhatIf& w = m.whatif;
  doc.paragraph(
      "What-if: {} in place of {}: step {} ({} faster; {} with every accelerator op at zero "
      "cost).",
      st.whatif_device_model, p.device_model, seconds(w.changed.step_time_s), times(w.speedup),
      times(w.bound_speedup));
  csv.whatif.add({name, mode, p.device_model, st.whatif_device_model, num(p.step_time_s),
                  num(w.changed.step_time_s), num(w.speedup), num(bound_speedup(w.bound_speedup))});
}

std::string csv_text(const Table& t) {
  std::ostringstream os;
  t.print_csv(os);
  return os.str();
}

// The study's figures: class shares per workload (a stacked bar each, per mode); the
// accelerator's speedup over the CPU against the batch, the batch from which the step is
// device-bound marked (per mode); training throughput speedup against the GPU count.
std::vector<Figure> study_figures(const Study& st) {
  std::vector<Figure> figures;
  const std::size_t modes = st.workloads.empty() ? 0 : st.workloads.front().modes.size();
  for (std::size_t k = 0; k < modes; ++k) {
    const std::string mode = mode_text(st.workloads.front().modes[k]);
    std::vector<const model::ClassBreakdown*> parts;
    for (const WorkloadStudy& ws : st.workloads) parts.push_back(&ws.modes[k].accel.by_class);
    const std::vector<int> slots = present_in_any(parts);
    std::vector<std::string> classes;
    for (int c : slots) classes.emplace_back(model::ClassBreakdown::name(c));
    std::vector<std::string> rows;
    std::vector<std::vector<double>> shares;
    for (const WorkloadStudy& ws : st.workloads) {
      const model::Prediction& p = ws.modes[k].accel;
      rows.push_back(ws.name);
      std::vector<double> row;
      for (int c : slots)
        row.push_back(p.step_time_s <= 0 ? 0 : p.by_class.at_slot(c) / p.step_time_s);
      shares.push_back(row);
    }
    figures.push_back(stacked_bars(
        "classes_" + mode,
        fmt::format("Where the time goes on {} ({}): share of the critical path by op class",
                    st.system.device(st.system.default_device).model, mode),
        rows, classes, shares, "share of the step"));

    // Speedup over the CPU per batch; the series share the batches of the sweep.
    std::vector<double> x;
    std::vector<Series> series;
    for (const WorkloadStudy& ws : st.workloads) {
      const analysis::ModeStudy& m = ws.modes[k];
      if (m.batches.empty() || !m.host) continue;
      Series s{ws.name, {}, std::nullopt};
      for (const analysis::SweepRow& r : m.batches) {
        if (series.empty()) x.push_back(static_cast<double>(r.batch));
        s.y.push_back(r.host_speedup);
        if (m.device_bound_from && r.batch == *m.device_bound_from)
          s.mark = std::make_pair(static_cast<double>(r.batch), r.host_speedup);
      }
      series.push_back(std::move(s));
    }
    if (!series.empty())
      figures.push_back(line_chart(
          "batch_speedup_" + mode,
          fmt::format("Accelerator speedup over the host CPU against the batch ({}; a dot: "
                      "device-bound from that batch on)",
                      mode),
          "batch", "speedup over the host CPU", x, series, true, "1"));
  }

  // Data-parallel training: speedup against the GPU count.
  std::vector<double> gpus;
  std::vector<Series> scaling;
  for (const WorkloadStudy& ws : st.workloads)
    for (const analysis::ModeStudy& m : ws.modes) {
      if (m.scaling.empty()) continue;
      Series s{ws.name, {}, std::nullopt};
      for (const analysis::ScalingPoint& g : m.scaling) {
        if (scaling.empty()) gpus.push_back(g.gpus);
        s.y.push_back(g.scaling.speedup);
      }
      scaling.push_back(std::move(s));
    }
  if (!scaling.empty())
    figures.push_back(
        line_chart("scaling",
                   fmt::format("Data-parallel training on {}: throughput speedup against one GPU",
                               st.system.name),
                   "GPUs", "speedup", gpus, scaling, true, "x"));
  return figures;
}

struct ReportArgs {
  StudyOptions study;
  std::string system = "minsky";
  std::string measured;  // measured-runs CSV of this system (validate --measured)
  std::string models;    // comma-separated
  std::string out_dir;
  bool force = false;
};

void run_report(const ReportArgs& args, const std::string& command_line) {
  OutputDir out(args.out_dir, args.force);
  StudyOptions so = args.study;
  so.workloads = split_list(args.models);
  // The measured runs: --measured, else the system's own (`measured_runs`) when present; read
  // (and any error raised) before the study.
  hw::SystemSpec system = hw::load_system(args.system);
  std::string measured = args.measured;
  std::string missing_runs;
  if (measured.empty()) {
    if (std::filesystem::exists(system.measured_runs))
      measured = system.measured_runs;
    else
      missing_runs = system.measured_runs;
  }
  const std::vector<validate::MeasuredRun> runs = measured.empty()
                                                      ? std::vector<validate::MeasuredRun>{}
                                                      : validate::read_measured_runs(measured);
  Progress bar;
  const Study st = run_study(so, std::move(system),
                             [&bar](std::size_t done, std::size_t total, const std::string& what) {
                               bar.update(done, total, what);
                             });

  Doc doc;
  doc.heading(1, "amdahl report: {}", st.title);
  doc.paragraph("System {} ({}): accelerator {} ({}); produced by {}.", Code{st.system.name},
                st.system.file, st.system.default_device,
                st.system.device(st.system.default_device).model, Code{command_line});
  doc.paragraph(
      "Every number is the model's prediction (docs/architecture.md), at each network's own "
      "batch unless a table varies it; the assumptions behind each are those `amdahl predict` "
      "lists for the same inputs. Each table's numbers are in the CSV of the same name; each "
      "figure's in `figures/`, beside the gnuplot script that draws it.");

  doc.heading(2, "Summary");
  Table summary({"workload", "mode", "batch", "step", "samples/s", "binding", "host CPU step",
                 "accelerator speedup"});
  for (const WorkloadStudy& ws : st.workloads)
    for (const analysis::ModeStudy& m : ws.modes)
      summary.add({ws.name, mode_text(m), std::to_string(m.accel.batch),
                   seconds(m.accel.step_time_s), fmt::format("{:.1f}", m.accel.samples_per_s),
                   std::string(model::binding_name(model::step_binding(m.accel))),
                   m.host ? seconds(m.host->step_time_s) : "-",
                   m.host ? times(m.host->step_time_s / m.accel.step_time_s) : "-"});
  doc.table(summary);

  // A figure drawn into the document and its files into figures/.
  const auto add_figure = [&](const Figure& f) {
    const RenderedFigure r = render(f);
    if (!r.error.empty()) std::cerr << fmt::format("report: figure {}: {}\n", f.name, r.error);
    doc.figure(f, r);
    out.add("figures/" + f.name + ".csv", f.csv);
    out.add("figures/" + f.name + ".gp", f.script);
    if (r.error.empty()) {
      out.add("figures/" + f.name + ".svg", r.svg);
      out.add("figures/" + f.name + ".png", r.png);
    }
  };
  doc.heading(2, "Figures");
  for (const Figure& f : study_figures(st)) add_figure(f);

  if (!missing_runs.empty())
    doc.paragraph("The system's measured runs ({}) were not found: no validation.",
                  Code{missing_runs});
  if (!runs.empty()) {
    const validate::ValidationReport v = validate::compare(
        runs, [&](const validate::MeasuredRun& run) { return predict_run(run, st.system, ""); });
    doc.heading(2, "Validation");
    doc.paragraph(
        "Predicted against the {} measured runs of {} (`amdahl validate --measured` gives "
        "each point): median and 90th percentile of |error|, by group.",
        v.points.size(), Code{measured});
    doc.table(summary_table(v, false));
    add_figure(validation_figure("validation", v, st.system.name));
    Table points({"workload", "batch", "mode", "precision", "op_class", "measured_s", "predicted_s",
                  "error"});
    for (const validate::ValidationPoint& p : v.points)
      points.add({p.run.workload, std::to_string(p.run.batch), p.run.mode, p.run.precision,
                  p.run.op_class, num(p.run.measured_s), num(p.predicted_s), num(p.error)});
    out.add("validation.csv", csv_text(points));
  }

  Csv csv;
  for (const WorkloadStudy& ws : st.workloads) {
    doc.heading(2, "{}", ws.name);
    for (const analysis::ModeStudy& m : ws.modes) write_mode(doc, csv, st, ws.name, m);
  }

  out.add("report.md", doc.markdown());
  out.add("report.html", doc.html("amdahl report: " + st.title));
  out.add("summary.csv", csv_text(csv.summary));
  out.add("classes.csv", csv_text(csv.classes));
  out.add("bounds.csv", csv_text(csv.bounds));
  out.add("accelerability.csv", csv_text(csv.accelerability));
  out.add("batch_sweep.csv", csv_text(csv.batches));
  out.add("host_link.csv", csv_text(csv.link));
  out.add("scaling.csv", csv_text(csv.scaling));
  out.add("whatif.csv", csv_text(csv.whatif));
  out.commit();
}

}  // namespace

void register_report(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "the characterization study of a suite or list of workloads on one system: report.html, "
      "report.md, figures (SVG, PNG, gnuplot scripts) and the CSV behind every table and "
      "figure (docs/report.md)");
  cmd->add_option("--suite", args->study.suite, suites_help());
  cmd->add_option("--models", args->models,
                  "comma-separated zoo names, network YAML or ONNX files (instead of --suite)");
  cmd->add_option("--system", args->system, "catalog system name or system YAML path")
      ->capture_default_str();
  add_allow_path_option(cmd);
  cmd->add_option("--link", args->study.link,
                  "the host link to compare the accelerator's against (catalog link or file)")
      ->capture_default_str();
  cmd->add_option("--whatif-device", args->study.whatif_device,
                  "device file put in the accelerator's place (default: the catalog's "
                  "whatif-accel.yaml)");
  cmd->add_option("--measured", args->measured,
                  "measured-runs CSV of this system (as `validate --measured`): the report "
                  "adds predicted against measured (default: the system file's `measured_runs`)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--threads", args->study.threads, "sweep worker threads (0: all cores)")
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out_dir,
                  "folder for report.html, report.md, the CSVs and figures/ (absent or empty "
                  "unless --force)")
      ->required();
  cmd->add_flag("--force", args->force,
                "let -o replace the files amdahl writes in a non-empty folder");
  cmd->callback([args] {
    std::string line = "amdahl report";
    if (!args->study.suite.empty()) line += " --suite " + args->study.suite;
    if (!args->models.empty()) line += " --models " + args->models;
    line += " --system " + args->system;
    run_report(*args, line);
  });
}

}  // namespace amdahl::cli
