// amdahl-cudabench: runs the CUDA microbenchmarks and writes amdahl measurements v1 CSV.
//
// Exit status: 0 when every selected group ran, 1 when a group failed or there is no usable
// CUDA device (the rows measured so far are still written), 2 on a usage error.

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench_config.h"
#include "conv_bench.h"
#include "copy_bench.h"
#include "csv_writer.h"
#include "cuda_check.h"
#include "cuda_stream.h"
#include "elementwise_bench.h"
#include "gemm_bench.h"
#include "gpu_warmup.h"
#include "launch_bench.h"
#include "options.h"
#include "provenance.h"
#include "reduction_bench.h"
#include "reporter.h"

namespace amdahl::cudabench {
namespace {

constexpr const char* kProgram = "amdahl-cudabench";

// No CUDA device is visible (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them).
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A benchmark group, registered once in kGroups. The time budgets keep a full run under
// about 5 minutes and a quick run under a minute on an H200; they are soft (checked between
// shapes) and rarely reached.
struct BenchGroup {
  const char* name;
  const char* description;
  void (*run)(const BenchConfig&, Reporter&);
  double full_budget_seconds;
  double quick_budget_seconds;
};

// Launch first, on a quiet GPU; the heavy GEMM and convolution sweeps last.
const BenchGroup kGroups[] = {
    {"launch", "kernel launch and CUDA graph launch latency", run_launch_bench, 15, 4},
    {"copy", "device, host-to-device and device-to-host copies", run_copy_bench, 30, 6},
    {"elementwise", "elementwise add and relu (fp32, fp16, bf16)", run_elementwise_bench, 30, 6},
    {"reduction", "sum reduction (fp32, fp16, bf16)", run_reduction_bench, 15, 3},
    {"gemm", "cuBLAS GEMM (fp32, tf32, fp16, bf16)", run_gemm_bench, 70, 12},
    {"conv", "cuDNN convolution forward and backward", run_conv_bench, 100, 18},
};

bool group_available(const BenchGroup& group) {
  return std::string(group.name) != "conv" || conv_bench_available();
}

std::vector<std::string> group_lines() {
  std::vector<std::string> lines;
  for (const BenchGroup& group : kGroups) {
    std::string line = std::string(group.name) + ": " + group.description;
    if (!group_available(group)) line += " (not in this build: no cuDNN)";
    lines.push_back(line);
  }
  return lines;
}

std::vector<const BenchGroup*> select_groups(const std::vector<std::string>& only) {
  std::vector<const BenchGroup*> selected;
  if (only.empty()) {
    for (const BenchGroup& group : kGroups) selected.push_back(&group);
    return selected;
  }
  std::string known;
  for (const BenchGroup& group : kGroups)
    known += std::string(known.empty() ? "" : ", ") + group.name;
  for (const std::string& name : only) {
    const BenchGroup* match = nullptr;
    for (const BenchGroup& group : kGroups) {
      if (name == group.name) match = &group;
    }
    if (match == nullptr)
      throw UsageError("--only: unknown group '" + name + "' (known: " + known + ")");
    if (!group_available(*match)) {
      throw UsageError("--only: group '" + name +
                       "' is not in this build (no cuDNN found at configure time)");
    }
    selected.push_back(match);
  }
  return selected;
}

std::string command_line(int argc, const char* const* argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += std::string(i == 0 ? "" : " ") + argv[i];
  return text;
}

int select_device(int requested) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    throw NoDeviceError(std::string("no CUDA device found (cudaGetDeviceCount: ") +
                        cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")");
  }
  if (count == 0) throw NoDeviceError("no CUDA device found (cudaGetDeviceCount returned 0)");
  if (requested >= count) {
    throw UsageError("--device " + std::to_string(requested) + ": only " + std::to_string(count) +
                     " CUDA device(s) present");
  }
  AMDAHL_CUDA_CHECK(cudaSetDevice(requested));
  return requested;
}

int run(int argc, const char* const* argv) {
  const Options options = parse_options(argc, argv);
  if (options.help) {
    std::cout << usage_text(kProgram, group_lines());
    return 0;
  }
  const std::vector<const BenchGroup*> groups = select_groups(options.only);
  const int device = select_device(options.device);

  std::ofstream file;
  if (!options.out_path.empty()) {
    file.open(options.out_path);
    if (!file)
      throw std::runtime_error("cannot open --out file '" + options.out_path + "' for writing");
  }
  std::ostream& out = options.out_path.empty() ? std::cout : file;
  CsvWriter writer(out);
  writer.write_preamble(collect_provenance(device, options.quick, command_line(argc, argv)));
  Reporter reporter(writer, std::cerr);

  const CudaStream stream;
  BenchConfig config;
  config.quick = options.quick;
  AMDAHL_CUDA_CHECK(
      cudaDeviceGetAttribute(&config.sm_count, cudaDevAttrMultiProcessorCount, device));
  config.stream = stream.get();
  config.timing = default_timing(options.quick);

  const auto start = std::chrono::steady_clock::now();
  warm_up_gpu(config.stream, config.sm_count, options.quick ? 0.1 : 0.3);
  int failures = 0;
  for (const BenchGroup* group : groups) {
    config.deadline =
        Deadline(options.quick ? group->quick_budget_seconds : group->full_budget_seconds);
    reporter.begin_group(group->name, group->description);
    try {
      group->run(config, reporter);
    } catch (const std::exception& error) {
      ++failures;
      std::cerr << "[" << group->name << "] error: " << error.what() << std::endl;
      // Let queued work drain (or fail) before the next group starts.
      cudaDeviceSynchronize();
      cudaGetLastError();
    }
    reporter.end_group();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%s: %d measurements in %.1f s%s%s\n", kProgram, reporter.rows_written(),
               seconds, options.out_path.empty() ? "" : ", written to ", options.out_path.c_str());
  if (failures > 0) {
    std::fprintf(stderr, "%s: error: %d group(s) failed (see above)\n", kProgram, failures);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace amdahl::cudabench

int main(int argc, char** argv) {
  using amdahl::cudabench::kProgram;
  try {
    return amdahl::cudabench::run(argc, argv);
  } catch (const amdahl::cudabench::UsageError& error) {
    std::cerr << kProgram << ": " << error.what() << std::endl;
    return 2;
  } catch (const std::exception& error) {
    std::cerr << kProgram << ": error: " << error.what() << std::endl;
    return 1;
  }
}
