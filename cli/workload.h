#pragma once
// The inputs every analysis command shares, declared once: which network (--model,
// --onnx, --graph), its sizes (--batch, --set), the system and device, mode, precision,
// output format and directory.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/sweep.h"
#include "graphs/lower.h"
#include "graphs/network.h"
#include "hw/system.h"
#include "model/prediction.h"

namespace amdahl::cli {

// Option checks with plain messages ("must be >= 1 (got 0)"), for counts and for finite
// positive factors (CLI11's PositiveNumber accepts nan and prints its range as 309 digits).
const CLI::Validator& at_least_one();
const CLI::Validator& finite_positive();
// A finite number above 0 and at most `most` (a threshold whose larger values mean nothing).
CLI::Validator positive_at_most(double most);
// A speed-up factor in analysis::kMinSpeedupFactor..kMaxSpeedupFactor (whatif --k).
const CLI::Validator& speedup_factor();
// --precision: a workload precision (util/precision.h parse_workload_precision), listing them.
const CLI::Validator& workload_precision();

enum class Format { kTable, kCsv, kJson };

struct WorkloadOptions {
  std::string model;
  std::string onnx;
  std::string graph_file;
  std::string system = "minsky";
  std::string device;
  std::optional<std::int64_t> batch;
  std::vector<std::string> sets;  // NAME=VALUE
  std::string mode = "train";
  std::string precision = "fp32";
  int accumulate = 1;  // --accumulate: micro-batches per optimizer step
  std::string format = "table";
  std::string out_dir;
  bool force = false;  // --force: -o may replace files in a non-empty folder
  std::string place;   // --place: accelerator, host, or CLASS=TARGET,... (model/placement.h)
  bool inputs_on_device = false;  // --inputs-on-device
  int gpus = 1;                   // --gpus: data-parallel replicas (graphs::DataParallel)
  std::optional<std::int64_t> global_batch;  // --global-batch: split over the GPUs
  std::string variable_update;               // --variable-update: empty for the system runtime's
};

// Declares the options on `cmd`. `with_system` false for commands without a system
// (graph); `formats` lists the accepted --format values.
void add_workload_options(CLI::App* cmd, WorkloadOptions& o, bool with_system,
                          const std::vector<std::string>& formats);

// --allow-path DIR (repeatable): a folder includes may resolve into (hw::allow_include_root).
void add_allow_path_option(CLI::App* cmd);

// --batch and --set as size bindings. Throws UserError for a malformed --set.
graphs::Bindings size_overrides(const WorkloadOptions& o);

// The network source, bound with the overrides. Throws UserError.
graphs::BoundNetwork load_bound_network(const WorkloadOptions& o, const graphs::Bindings& sizes);

struct Workload {
  graphs::BoundNetwork network;
  graphs::LoweredNetwork lowered;
  hw::SystemSpec system;
  model::PredictOptions predict;
};

// Everything a prediction needs, loaded and validated.
Workload load_workload(const WorkloadOptions& o);
// Lowers the network at each point of a sweep (graphs/point_lowering.h): the network file is
// parsed once, each worker lowers its structure once and re-evaluates the numbers per point; an
// ONNX model is imported per point (the importer binds its symbolic dims).
analysis::MakeLowerAt lower_at(const WorkloadOptions& o, const hw::SystemSpec& system);
// The system of --system with --variable-update applied to its runtime.
hw::SystemSpec load_workload_system(const WorkloadOptions& o);
// Lowering options from --mode, --precision and the system's runtime (sweeps lower per point).
graphs::LoweringOptions lowering_options(const WorkloadOptions& o, const hw::SystemSpec& system);
// Re-lowers with other size bindings (sweeps).
Workload load_workload(const WorkloadOptions& o, const graphs::Bindings& sizes,
                       const hw::SystemSpec& system);

Format parse_format(const std::string& text);

// The items of a comma-separated list ("a,b,,c": a, b, c).
std::vector<std::string> split_list(const std::string& text);
// The workloads of --suite NAME or of --models LIST (its items): the suite's members, or the
// list. Throws UserError for both or neither (listing the suites) and for an unknown suite.
std::vector<std::string> select_workloads(const std::string& suite,
                                          const std::vector<std::string>& models);
// --suite's help: every suite with its members.
std::string suites_help();

// The options of one entry of a workload list (report --models, explore --models): a zoo
// name, or a network YAML or ONNX file (by its extension).
WorkloadOptions workload_entry(const std::string& entry);

}  // namespace amdahl::cli
