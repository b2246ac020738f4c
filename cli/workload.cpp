#include "cli/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "analysis/whatif.h"
#include "graphs/point_lowering.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/path_policy.h"
#include "util/precision.h"
#include "util/suggest.h"

#ifdef AMDAHL_WITH_ONNX_IMPORT
#include "graphs/onnx/onnx_import.h"
#endif

namespace amdahl::cli {

const CLI::Validator& at_least_one() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec == std::errc::result_out_of_range)
          return fmt::format("must be an integer below 2^63 (got {})", excerpt(text));
        if (ec != std::errc() || end != text.data() + text.size())
          return fmt::format("expected an integer (got '{}')", excerpt(text));
        return n >= 1 ? std::string() : fmt::format("must be >= 1 (got {})", n);
      },
      "INT >= 1");
  return v;
}

namespace {

// A validator of a number option: "expected a number" unless `text` is one (strtod, whole),
// else `rule`'s verdict on it (empty when it holds).
template <class Rule>
std::string check_number(const std::string& text, Rule rule) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0')
    return fmt::format("expected a number (got '{}')", excerpt(text));
  return rule(x);
}

}  // namespace

const CLI::Validator& finite_positive() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        return check_number(text, [&](double x) {
          return std::isfinite(x) && x > 0
                     ? std::string()
                     : fmt::format("must be a finite number > 0 (got {})", excerpt(text));
        });
      },
      "NUMBER > 0");
  return v;
}

CLI::Validator positive_at_most(double most) {
  return CLI::Validator(
      [most](std::string& text) -> std::string {
        return check_number(text, [&](double x) {
          return std::isfinite(x) && x > 0 && x <= most
                     ? std::string()
                     : fmt::format("must be a number above 0 and at most {:g} (got {})", most,
                                   excerpt(text));
        });
      },
      fmt::format("NUMBER in (0, {:g}]", most));
}

const CLI::Validator& speedup_factor() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        return check_number(text,
                            [](double x) { return analysis::speedup_factor_error(x, false); });
      },
      fmt::format("NUMBER {:g}..{:g}", analysis::kMinSpeedupFactor, analysis::kMaxSpeedupFactor));
  return v;
}

const CLI::Validator& workload_precision() {
  static const CLI::Validator v([](std::string& text) { return workload_precision_error(text); },
                                join(workload_precision_names(), "|"));
  return v;
}

void add_workload_options(CLI::App* cmd, WorkloadOptions& o, bool with_system,
                          const std::vector<std::string>& formats) {
  auto* model = cmd->add_option("--model", o.model, "zoo network name (amdahl describe models)");
  auto* onnx = cmd->add_option("--onnx", o.onnx, "ONNX model file")->check(CLI::ExistingFile);
  auto* graph =
      cmd->add_option("--graph", o.graph_file, "network YAML file")->check(CLI::ExistingFile);
  model->excludes(onnx)->excludes(graph);
  onnx->excludes(graph);
  if (with_system) {
    cmd->add_option("--system", o.system, "catalog system name or system YAML path")
        ->capture_default_str();
    cmd->add_option("--device", o.device, "device that runs the ops (default: the system's)");
    add_allow_path_option(cmd);
  }
  auto* batch = cmd->add_option("--batch", o.batch,
                                "samples per step (binds the size 'batch'); per GPU with --gpus")
                    ->check(at_least_one());
  if (with_system) {
    cmd->add_option("--gpus", o.gpus,
                    "data-parallel training on N GPUs of the default device's model (PyTorch "
                    "DDP: gradients all-reduced in buckets during the backward pass); --batch "
                    "is per GPU (weak scaling)")
        ->check(at_least_one())
        ->capture_default_str();
    cmd->add_option("--global-batch", o.global_batch,
                    "samples per step over all GPUs (strong scaling: each GPU's batch is this "
                    "divided by --gpus)")
        ->check(at_least_one())
        ->excludes(batch);
    cmd->add_option("--variable-update", o.variable_update,
                    "how --gpus exchange gradients (default: the system runtime's "
                    "`collectives.variable_update`, else ddp)")
        ->check(CLI::IsMember(hw::variable_update_names()));
  }
  cmd->add_option("--set", o.sets, "bind a symbolic size, NAME=VALUE (repeatable)");
  cmd->add_option("--mode", o.mode, "training step or inference pass")
      ->check(CLI::IsMember({"train", "infer"}))
      ->capture_default_str();
  cmd->add_option("--precision", o.precision, "math precision")
      ->check(workload_precision())
      ->capture_default_str();
  cmd->add_option("--accumulate", o.accumulate,
                  "micro-batches per optimizer step (gradient accumulation; train mode)")
      ->check(at_least_one())
      ->capture_default_str();
  cmd->add_option_function<std::int64_t>(
         "--max-ops", [](std::int64_t n) { graphs::set_max_ops(n); },
         fmt::format("the most layers and ops a network may lower to (default {}; a guard "
                     "against a runaway repeat or import)",
                     graphs::kDefaultMaxOps))
      ->check(at_least_one());
  cmd->add_option("--format", o.format, "output format")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  cmd->add_option("-o,--out", o.out_dir,
                  "folder for the output files (absent or empty unless --force)");
  cmd->add_flag("--force", o.force, "let -o replace the files amdahl writes in a non-empty folder");
  if (with_system)
    cmd->add_option("--place", o.place,
                    "op placement: accelerator (default), host/cpu, or CLASS=TARGET[,...] "
                    "(e.g. embedding=host)");
  if (with_system)
    cmd->add_flag("--inputs-on-device", o.inputs_on_device,
                  "the step's inputs are already on the accelerator (no input copy), as when a "
                  "harness makes them there");
}

void add_allow_path_option(CLI::App* cmd) {
  cmd->add_option_function<std::vector<std::string>>(
      "--allow-path",
      [](const std::vector<std::string>& dirs) {
        for (const auto& d : dirs) allow_path(d);
      },
      "a folder the files named by input files (includes, measured runs, ONNX external data) "
      "may resolve into, besides the named file's own folder and the catalog (repeatable)");
}

graphs::Bindings size_overrides(const WorkloadOptions& o) {
  graphs::Bindings b;
  if (o.batch) b["batch"] = *o.batch;
  if (o.global_batch) {
    if (*o.global_batch % o.gpus != 0)
      throw UserError(fmt::format(
          "--global-batch {}: not a multiple of --gpus {} (each GPU takes an equal batch)",
          *o.global_batch, o.gpus));
    b["batch"] = *o.global_batch / o.gpus;
  }
  for (const auto& s : o.sets) {
    try {
      auto [name, value] = graphs::parse_size_binding(s);
      b[std::move(name)] = value;
    } catch (const UserError& e) {
      throw UserError(fmt::format("--set {}", e.what()));
    }
  }
  return b;
}

graphs::BoundNetwork load_bound_network(const WorkloadOptions& o, const graphs::Bindings& sizes) {
  if (!o.onnx.empty()) {
#ifdef AMDAHL_WITH_ONNX_IMPORT
    return graphs::onnx::import_onnx(o.onnx, sizes);
#else
    throw UserError(
        "this amdahl was built without ONNX support (configure with AMDAHL_WITH_ONNX=ON)");
#endif
  }
  if (!o.graph_file.empty()) return graphs::bind_sizes(graphs::load_network(o.graph_file), sizes);
  if (!o.model.empty()) return graphs::bind_sizes(graphs::load_zoo_network(o.model), sizes);
  throw UserError("give the network with --model NAME, --onnx FILE or --graph FILE");
}

graphs::LoweringOptions lowering_options(const WorkloadOptions& o, const hw::SystemSpec& system) {
  graphs::LoweringOptions lo;
  lo.mode = o.mode == "train" ? graphs::Mode::kTrain : graphs::Mode::kInfer;
  lo.precision = parse_workload_precision(o.precision, "--precision");
  lo.fused_optimizer = system.runtime.optimizer.impl != hw::OptimizerImpl::kLoop;
  // Eager frameworks add a convolution's bias in a kernel of its own on a GPU (cuDNN), in the
  // convolution's on a CPU (oneDNN): the device that runs the step decides.
  // Without a system (`amdahl graph`) no device decides: the bias stays in the convolution.
  const std::string& device = o.device.empty() ? system.default_device : o.device;
  lo.conv_bias_kernel = !device.empty() && system.device(device).kind != hw::DeviceKind::kCpu;
  lo.accumulation_steps = o.accumulate;
  lo.data_parallel.replicas = o.gpus;
  lo.data_parallel.exchange = model::gradient_exchange(system.runtime.collectives.variable_update);
  lo.data_parallel.bucket_cap_bytes = system.runtime.collectives.bucket_cap_bytes;
  return lo;
}

Workload load_workload(const WorkloadOptions& o, const graphs::Bindings& sizes,
                       const hw::SystemSpec& system) {
  Workload w;
  w.system = system;
  w.network = load_bound_network(o, sizes);
  const graphs::LoweringOptions lo = lowering_options(o, system);
  w.lowered = graphs::lower(w.network, lo);
  w.predict.device = o.device;
  w.predict.mode = lo.mode;
  w.predict.precision = lo.precision;
  const auto it = w.network.sizes.find("batch");
  const std::int64_t micro_batch =
      it != w.network.sizes.end() ? it->second
      : !w.network.inputs.empty() && !w.network.inputs.front().tensor.shape.empty()
          ? w.network.inputs.front().tensor.shape.front()
          : 1;
  // A step with gradient accumulation processes every micro-batch.
  w.predict.batch = micro_batch * lo.accumulation_steps;
  if (!o.device.empty()) system.device(o.device);  // validates the name
  if (!o.place.empty()) w.predict.placement = model::parse_placement(o.place);
  w.predict.inputs_on_device = o.inputs_on_device;
  return w;
}

// Lowers the network at each point (graphs/point_lowering.h): the network file is parsed
// once, each worker lowers its structure once and re-evaluates the numbers per point; an
// ONNX model is imported per point (the importer binds its symbolic dims) and its numbers
// re-evaluated the same way.
analysis::MakeLowerAt lower_at(const WorkloadOptions& o, const hw::SystemSpec& system) {
  const graphs::LoweringOptions lo = lowering_options(o, system);
  std::function<std::shared_ptr<graphs::PointLowering>()> make;
  if (!o.onnx.empty()) {
    make = [o, lo] {
      return std::make_shared<graphs::PointLowering>(
          [o](const graphs::Bindings& sizes) { return load_bound_network(o, sizes); }, lo);
    };
  } else {
    auto network = std::make_shared<const graphs::Network>(
        !o.graph_file.empty() ? graphs::load_network(o.graph_file)
        : !o.model.empty()
            ? graphs::load_zoo_network(o.model)
            : throw UserError("give the network with --model NAME, --onnx FILE or --graph FILE"));
    make = [network, lo] { return std::make_shared<graphs::PointLowering>(network, lo); };
  }
  return [make]() -> analysis::LowerAt {
    auto points = make();
    return [points](const graphs::Bindings& sizes) -> const graphs::LoweredNetwork& {
      return points->at(sizes);
    };
  };
}

hw::SystemSpec load_workload_system(const WorkloadOptions& o) {
  hw::SystemSpec system = hw::load_system(o.system);
  if (!o.variable_update.empty())  // CLI11 checked the name
    system.runtime.collectives.variable_update = *hw::parse_variable_update(o.variable_update);
  return system;
}

Workload load_workload(const WorkloadOptions& o) {
  return load_workload(o, size_overrides(o), load_workload_system(o));
}

Format parse_format(const std::string& text) {
  if (text == "csv") return Format::kCsv;
  if (text == "json") return Format::kJson;
  return Format::kTable;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::vector<std::string> select_workloads(const std::string& suite,
                                          const std::vector<std::string>& models) {
  if (!suite.empty() && !models.empty())
    throw UserError("give --suite NAME or --models LIST, not both");
  if (!suite.empty()) return graphs::zoo_suite(suite);
  if (models.empty()) {
    std::vector<std::string> names;
    for (const auto& [n, m] : graphs::zoo_suites()) names.push_back(n);
    throw UserError(fmt::format("give --suite NAME ({}) or --models LIST", join(names)));
  }
  return models;
}

std::string suites_help() {
  std::string suites;
  for (const auto& [name, members] : graphs::zoo_suites())
    suites += fmt::format("{}{} ({})", suites.empty() ? "" : "; ", name, join(members));
  return "a suite of zoo networks: " + suites;
}

WorkloadOptions workload_entry(const std::string& entry) {
  WorkloadOptions w;
  const std::string ext = std::filesystem::path(entry).extension().string();
  if (ext == ".onnx")
    w.onnx = entry;
  else if (ext == ".yaml" || ext == ".yml")
    w.graph_file = entry;
  else
    w.model = entry;
  return w;
}

}  // namespace amdahl::cli
