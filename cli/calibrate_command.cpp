// amdahl calibrate SOURCE: fit a device's efficiency models to kernel measurements and write
// the calibrated device (calibrate/calibration_run.h does the work; this file declares the
// options and prints the summary). Sources, one sub-command each:
//   deepbench --dir DIR --dataset NAME   published DeepBench kernel results
//   measurements FILE                    an amdahl measurements v1 CSV (amdahl-cudabench, ...)
//   torch DIR                            kernels timed through PyTorch (shared/data/h200 layout)
//   cpu                                  this machine's CPU, measured now (calibrate/cpu)
//   check DEVICE deepbench|measurements|torch  a device file's errors on a source, nothing fitted
//   allreduce --dir DIR [-o CATALOG]     collectives' step latency, hop and network bandwidth
//                                        from DeepBench's all-reduce runs
//                                        (calibrate/allreduce_fit.h); -o writes the fitted
//                                        boxes as systems (calibrate/allreduce_catalog.h)

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>

#include "calibrate/allreduce_catalog.h"
#include "calibrate/allreduce_fit.h"
#include "calibrate/calibration_run.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/progress.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/path_policy.h"
#include "util/suggest.h"
#include "util/table.h"

namespace amdahl::cli {
namespace {

struct CalibrateOptions {
  calibrate::CalibrationRequest fit;
  calibrate::DeepBenchSource deepbench;
  calibrate::MeasurementsSource measurements;
  calibrate::TorchKernelsSource torch;
  calibrate::CpuSource cpu;
  calibrate::CheckRequest check;
};

// The options of each kind, declared once and added to every sub-command that takes them.
void add_deepbench_source(CLI::App* cmd, calibrate::DeepBenchSource& s) {
  cmd->add_option("--dir", s.dir, "DeepBench data folder (shared/data/deepbench)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--dataset", s.dataset, "DeepBench dataset, e.g. P100_baidu_2018")->required();
  cmd->add_option("--precision", s.precision, "DeepBench precision column to fit")
      ->capture_default_str();
  cmd->add_option("--measured-device", s.measured_device,
                  "device file of the card DeepBench measured (default: the catalog device file "
                  "listing the dataset under deepbench_datasets)")
      ->check(CLI::ExistingFile);
}

void add_measurements_source(CLI::App* cmd, calibrate::MeasurementsSource& s) {
  cmd->add_option("file", s.file, "an amdahl measurements v1 CSV (e.g. from amdahl-cudabench)")
      ->required()
      ->check(CLI::ExistingFile);
}

void add_torch_source(CLI::App* cmd, calibrate::TorchKernelsSource& s) {
  cmd->add_option("dir", s.dir,
                  "folder with kernels/{gemm,conv,rnn,micro}.csv and info.json (the layout of "
                  "shared/data/h200)")
      ->required()
      ->check(CLI::ExistingDirectory);
}

// The link a fit of copy rows may calibrate.
template <class Source>
void add_link_outputs(CLI::App* cmd, Source& s) {
  auto* link_base =
      cmd->add_option("--link-base", s.link_base,
                      "link file to calibrate from the copy rows (its nominal bandwidth is kept)")
          ->check(CLI::ExistingFile);
  cmd->add_option("--link-out", s.link_out,
                  "write the calibrated link (per-copy latency, achieved bandwidths) here")
      ->needs(link_base);
}

// --residuals, with the --force every writing sub-command has.
void add_residuals(CLI::App* cmd, std::string& residuals, bool& force) {
  cmd->add_option("--residuals", residuals,
                  "also write every measurement with its prediction, error and the kernel the "
                  "prediction assumes (CSV; split train, held_out or check)");
  cmd->add_flag("--force", force,
                "let the files written replace existing files (never a pipe, a device or a file "
                "the run reads)");
}

// A fit of given measurements to a base device file.
void add_fit_outputs(CLI::App* cmd, calibrate::CalibrationRequest& r) {
  cmd->add_option("--base", r.base, "device file to calibrate (its peaks and memory are kept)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", r.out, "the calibrated device file")->required();
  cmd->add_flag("--cross-validate", r.cross_validate,
                "also fit once per fold of shapes and report the error of every shape predicted "
                "without it (5x the fitting time)");
  add_residuals(cmd, r.residuals, r.force);
}

void run(calibrate::CalibrationRequest request) {
  Progress bar;  // on a terminal: the entry being fitted
  if (bar.shown())
    request.progress = [&bar](std::size_t done, std::size_t total, const std::string& entry) {
      bar.update(done, total, "fitting " + entry);
    };
  calibrate::check_outputs(request);  // before the measurements are read or fitted
  const calibrate::CalibrationSummary s = calibrate::run_calibration(request, std::cerr);
  std::cout << s.full_report();
}

// The old flag forms, each with its sub-command.
const std::map<std::string, std::string>& old_forms() {
  static const std::map<std::string, std::string> kForms{
      {"--from-deepbench", "amdahl calibrate deepbench --dir DIR --dataset NAME ..."},
      {"--measurements", "amdahl calibrate measurements FILE ..."},
      {"--target", "amdahl calibrate cpu ..."},
      {"--check", "amdahl calibrate check FILE deepbench|measurements ..."}};
  return kForms;
}

// `amdahl calibrate` without a (known) sub-command: what to type instead.
[[noreturn]] void no_source(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  const std::vector<std::string> extras = cmd.remaining();
  for (const auto& arg : extras) {
    const auto old = old_forms().find(arg.substr(0, arg.find('=')));
    if (old != old_forms().end())
      throw UserError(fmt::format(
          "calibrate: unknown option {}: the sources are sub-commands; use `{}` (amdahl calibrate "
          "--help)",
          old->first, old->second));
  }
  if (!extras.empty() && extras.front().rfind('-', 0) != 0)
    throw UserError(fmt::format("calibrate: unknown sub-command '{}'; {}", extras.front(),
                                suggestion(extras.front(), names)));
  if (!extras.empty())
    throw UserError(fmt::format("calibrate: unknown option {}; a sub-command comes first: {}",
                                extras.front(), join(names)));
  throw UserError(
      fmt::format("calibrate needs a sub-command: {} (amdahl calibrate --help)", join(names)));
}

struct AllReduceOptions {
  std::string dir;
  std::string tartan;
  bool rows = false;
  std::string out_dir;
  bool force = false;
};

void print_allreduce_rows(const AllReduceOptions& o,
                          const std::vector<calibrate::AllReduceFit>& fits);

// calibrate allreduce: one row per DeepBench dataset; with `rows`, every fitted row too; with
// -o, the fitted boxes as catalog systems.
void run_allreduce(const AllReduceOptions& o) {
  OutputDir out(o.out_dir, o.force);  // checked before the fit
  const std::string path = o.tartan.empty() ? o.dir + "/deepbench_allreduce.csv"
                                            : o.tartan + "/nccl-v1-{bandwidth,latency,packet}.txt";
  const std::vector<calibrate::AllReduceFit> fits = calibrate::fit_allreduce(
      o.tartan.empty() ? calibrate::read_deepbench_allreduce(path)
                       : calibrate::read_tartan_allreduce(o.tartan, "v1",
                                                          std::string(calibrate::kTartanDataset)));
  if (out) {
    const calibrate::AllReduceCatalog catalog =
        calibrate::allreduce_catalog(fits, o.dir, hw::catalog_dir(), o.out_dir);
    for (const auto& f : catalog.files) out.add(f.path, f.text);
    if (!catalog.without_device.empty())
      std::cerr << fmt::format(
          "no system written for {} (no catalog device file lists the dataset under "
          "deepbench_datasets)\n",
          join(catalog.without_device));
    out.commit();
  }
  std::cout << fmt::format(
      "ring all-reduce 2(p-1)(a + S/(pB)) fitted per dataset to {} (one-node NCCL rows; every "
      "fifth held out);\nB: the slowest level of the PCIe box the ring crosses (GPUs in pairs "
      "behind a switch, two switches a socket, two sockets):\n",
      path);
  auto errors = [](const calibrate::ErrorStats& e) -> std::string {
    if (e.count == 0) return "-";
    return calibrate::percent(e.median_abs) + " / " + calibrate::percent(e.p90_abs);
  };
  auto us = [](double s) { return fmt::format("{:.1f} us", s * 1e6); };
  auto gbs = [](double b) { return fmt::format("{:.2f} GB/s", b / 1e9); };
  std::vector<std::string> header = {"dataset",  "gpu",        "fitted",
                                     "held out", "not fitted", "a (step)"};
  for (int l = 0; l < calibrate::kBoxLevels; ++l)
    header.push_back(
        fmt::format("B ({})", calibrate::box_level_name(static_cast<calibrate::BoxLevel>(l))));
  for (const char* h : {"train median/p90", "held-out median/p90", "bias"}) header.push_back(h);
  Table t(header);
  for (const auto& f : fits) {
    std::vector<std::string> row = {f.dataset,
                                    f.gpu,
                                    std::to_string(f.train.count),
                                    std::to_string(f.held_out.count),
                                    std::to_string(f.rows_not_fitted),
                                    us(f.step_latency_s)};
    for (const double b : f.level_bytes_per_s) row.push_back(gbs(b));
    row.push_back(errors(f.train));
    row.push_back(errors(f.held_out));
    row.push_back(calibrate::percent(f.train.mean_signed));
    t.add(row);
  }
  t.print(std::cout);
  if (!o.tartan.empty()) {  // one node: Tartan ran on one DGX-1
    print_allreduce_rows(o, fits);
    return;
  }
  std::cout << "\nover several nodes, 2(p-1)(a + S/(p min(B, N))) with the levels above fixed "
               "(multi-node NCCL rows; every fifth held out):\n";
  Table n({"dataset", "fitted", "held out", "a (step)", "N (network)", "train median/p90",
           "held-out median/p90", "bias"});
  std::vector<std::string> without;
  for (const auto& f : fits)
    if (f.network)
      n.add({f.dataset, std::to_string(f.network->train.count),
             std::to_string(f.network->held_out.count), us(f.network->step_latency_s),
             gbs(f.network->bytes_per_s), errors(f.network->train), errors(f.network->held_out),
             calibrate::percent(f.network->train.mean_signed)});
    else
      without.push_back(f.dataset);
  n.print(std::cout);
  if (!without.empty())
    std::cout << fmt::format(
        "no network fit (fewer than {} multi-node NCCL rows to train on; counted as not "
        "fitted): {}\n",
        calibrate::kMinTrainingRows, join(without, ", "));
  print_allreduce_rows(o, fits);
}

// With `rows`, every fitted row of `fits` with its prediction.
void print_allreduce_rows(const AllReduceOptions& o,
                          const std::vector<calibrate::AllReduceFit>& fits) {
  if (!o.rows) return;
  auto us = [](double s) { return fmt::format("{:.1f} us", s * 1e6); };
  std::cout << "\nrows:\n";
  Table r({"where", "dataset", "algorithm", "gpus", "nodes", "bytes", "measured", "predicted",
           "error", "split"});
  for (const auto& f : fits)
    for (const auto& x : f.residuals)
      r.add({x.row.where, x.row.dataset, x.row.algorithm, std::to_string(x.row.gpus),
             std::to_string(x.row.nodes), fmt::format("{:.0f}", x.row.bytes), us(x.row.measured_s),
             us(x.predicted_s),
             calibrate::percent((x.predicted_s - x.row.measured_s) / x.row.measured_s),
             x.held_out ? "held_out" : "train"});
  r.print(std::cout);
}

}  // namespace

void register_calibrate(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "fit a device's efficiency models to kernel measurements (docs/calibration.md)");
  cmd->callback([o, cmd] {
    if (cmd->get_subcommands().empty()) no_source(*cmd);
  });

  CLI::App* db = cmd->add_subcommand("deepbench", "fit to published DeepBench kernel results");
  add_deepbench_source(db, o->deepbench);
  db->add_option("--csv", o->deepbench.csv, "also write the imported measurements here");
  add_fit_outputs(db, o->fit);
  db->callback([o] {
    o->fit.source = o->deepbench;
    run(o->fit);
  });

  CLI::App* ms = cmd->add_subcommand(
      "measurements", "fit to an amdahl measurements v1 CSV (e.g. from amdahl-cudabench)");
  add_measurements_source(ms, o->measurements);
  add_link_outputs(ms, o->measurements);
  add_fit_outputs(ms, o->fit);
  ms->callback([o] {
    o->fit.source = o->measurements;
    run(o->fit);
  });

  CLI::App* torch = cmd->add_subcommand(
      "torch",
      "fit to kernels timed through PyTorch, each with the framework's call overhead "
      "(shared/data/h200; calibrate/torch_kernels.h)");
  add_torch_source(torch, o->torch);
  torch->add_option("--csv", o->torch.csv, "also write the imported measurements here");
  add_link_outputs(torch, o->torch);
  add_fit_outputs(torch, o->fit);
  torch->callback([o] {
    o->fit.source = o->torch;
    run(o->fit);
  });

  CLI::App* cpu = cmd->add_subcommand(
      "cpu",
      "measure this machine's CPU now (oneDNN GEMM/conv, memory, elementwise, reduction; the "
      "same through PyTorch, and its dispatch) and write a system around it");
  cpu->add_flag("--quick", o->cpu.quick, "a small grid (under 2 minutes)");
  cpu->add_option("--out", o->fit.out,
                  "the system file; the device and the raw CSV are written beside it")
      ->required();
  add_residuals(cpu, o->fit.residuals, o->fit.force);
  cpu->callback([o] {
    o->fit.source = o->cpu;
    run(o->fit);
  });

  auto ar_options = std::make_shared<AllReduceOptions>();
  CLI::App* ar = cmd->add_subcommand(
      "allreduce",
      "fit the collectives' ring step latency, hop and network bandwidth to DeepBench's "
      "all-reduce runs and report held-out errors per dataset (calibrate/allreduce_fit.h); with "
      "-o, write each fitted box as catalog systems and links");
  CLI::Option* ar_dir =
      ar->add_option("--dir", ar_options->dir, "DeepBench data folder (shared/data/deepbench)")
          ->check(CLI::ExistingDirectory);
  CLI::Option* ar_tartan =
      ar->add_option("--tartan", ar_options->tartan,
                     "instead: the Tartan suite's DGX-1 folder (shared/data/published/"
                     "dgx1-p100-tartan), its NCCL 1.x all-reduce rows fitted on the DGX-1's PCIe "
                     "tree (NCCL 1.x moved no data over NVLink there); the DGX-1's system file "
                     "holds the result (docs/calibration-collectives.md)")
          ->check(CLI::ExistingDirectory)
          ->excludes(ar_dir);
  ar_dir->excludes(ar_tartan);
  ar->add_flag("--rows", ar_options->rows, "also print every fitted row with its prediction");
  ar->add_option("-o,--out", ar_options->out_dir,
                 "catalog folder to write systems/deepbench-*.yaml and links/deepbench-*.yaml "
                 "into, beside its devices/ (the shipped ones: -o hw/catalog --force)");
  ar->add_flag("--force", ar_options->force, "write into a folder that is not empty");
  ar->callback([ar_options] {
    if (ar_options->dir.empty() == ar_options->tartan.empty())
      throw UserError("calibrate allreduce: give --dir (DeepBench) or --tartan (the DGX-1)");
    if (!ar_options->tartan.empty() && !ar_options->out_dir.empty())
      throw UserError(
          "calibrate allreduce: -o writes DeepBench's boxes; the Tartan fit is the DGX-1 "
          "system's own (hw/catalog/systems/dgx1-p100.yaml, runtime.collectives)");
    run_allreduce(*ar_options);
  });

  CLI::App* check = cmd->add_subcommand(
      "check",
      "predict every measurement of a source with a device file as it is and report the errors "
      "per entry; nothing is fitted or written (but --residuals)");
  check->add_option("device", o->check.device, "the device file to check")
      ->required()
      ->check(CLI::ExistingFile);
  add_residuals(check, o->check.residuals, o->check.force);
  CLI::App* check_db = check->add_subcommand("deepbench", "against DeepBench kernel results");
  add_deepbench_source(check_db, o->deepbench);
  CLI::App* check_ms = check->add_subcommand("measurements", "against a measurements CSV");
  add_measurements_source(check_ms, o->measurements);
  CLI::App* check_torch = check->add_subcommand("torch", "against kernels timed through PyTorch");
  add_torch_source(check_torch, o->torch);
  for (CLI::App* source : {check_db, check_ms, check_torch})
    source->fallthrough();  // --residuals after it
  check->callback([o, check, check_db, check_torch] {
    if (check->get_subcommands().empty())
      throw UserError(
          "calibrate check needs a source after the device file: deepbench --dir DIR --dataset "
          "NAME, measurements FILE, or torch DIR");
    if (check_db->parsed())
      o->check.source = o->deepbench;
    else if (check_torch->parsed())
      o->check.source = o->torch;
    else
      o->check.source = o->measurements;
    if (!o->check.residuals.empty())
      check_output_file(o->check.residuals, o->check.force, "--residuals");
    std::cout << calibrate::run_check(o->check).full_report();
  });
  // Last: the sub-commands above inherit it otherwise. Extras of `calibrate` itself are the
  // old flag forms and typos that no_source names.
  cmd->allow_extras();
}

}  // namespace amdahl::cli
