#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "copy_bench.h"
#include "cuda_check.h"
#include "device_buffer.h"

namespace amdahl::cudabench {
namespace {

constexpr std::size_t kMinBytes = std::size_t{4} << 10;
constexpr std::size_t kMaxDeviceCopyBytes = std::size_t{1} << 30;
constexpr std::size_t kMaxHostCopyBytes = std::size_t{256} << 20;

Measurement copy_row(const char* bench, const char* op_class, std::size_t size, std::uint64_t bytes,
                     const Timing& timing) {
  Measurement row;
  row.bench = bench;
  row.op_class = op_class;
  row.precision = "none";
  row.shape = ShapeString().add("bytes", size).str();
  row.flops = 0;
  row.bytes = bytes;
  row.time_s = timing.median_seconds;
  row.reps = timing.reps;
  return row;
}

std::string budget_note(const BenchConfig& config) {
  return "time budget of " + std::to_string(static_cast<int>(config.deadline.seconds())) +
         " s used up";
}

void bench_device_copies(const BenchConfig& config, Reporter& reporter) {
  const std::size_t free_bytes = free_device_memory();
  const std::size_t limit = (free_bytes - free_bytes / 10) / 2;
  std::vector<std::size_t> sizes;
  for (std::size_t size : size_sweep(kMinBytes, kMaxDeviceCopyBytes, config.quick)) {
    if (size <= limit) {
      sizes.push_back(size);
    } else {
      reporter.skip("copy_d2d of " + std::to_string(size) + " bytes",
                    "two buffers do not fit in " + std::to_string(free_bytes) + " free bytes");
    }
  }
  if (sizes.empty()) return;
  const DeviceBuffer source(sizes.back());
  const DeviceBuffer destination(sizes.back());
  AMDAHL_CUDA_CHECK(cudaMemsetAsync(source.data(), 1, source.bytes(), config.stream));
  for (std::size_t size : sizes) {
    if (config.deadline.passed()) {
      reporter.skip("copy_d2d", budget_note(config));
      return;
    }
    const Timing timing = time_on_stream(config.stream, config.timing, [&] {
      AMDAHL_CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), size,
                                        cudaMemcpyDeviceToDevice, config.stream));
    });
    reporter.record(
        copy_row("copy_d2d", "data_movement", size, 2 * static_cast<std::uint64_t>(size), timing));
  }
}

void bench_host_copies(const BenchConfig& config, Reporter& reporter) {
  const std::vector<std::size_t> sizes = size_sweep(kMinBytes, kMaxHostCopyBytes, config.quick);
  const std::size_t max_bytes = sizes.back();
  const DeviceBuffer device(max_bytes);
  const PinnedHostBuffer pinned(max_bytes);
  // Filled so that every page is touched: the benchmark measures copies, not page faults.
  std::vector<unsigned char> pageable(max_bytes, 1);
  std::memset(pinned.data(), 1, max_bytes);

  struct HostCopy {
    const char* bench;
    bool pinned;
    bool to_device;
  };
  const HostCopy copies[] = {
      {"copy_h2d_pinned", true, true},
      {"copy_d2h_pinned", true, false},
      {"copy_h2d_pageable", false, true},
      {"copy_d2h_pageable", false, false},
  };
  for (const HostCopy& copy : copies) {
    void* host = copy.pinned ? pinned.data() : static_cast<void*>(pageable.data());
    void* destination = copy.to_device ? device.data() : host;
    const void* source = copy.to_device ? host : device.data();
    const cudaMemcpyKind kind = copy.to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    for (std::size_t size : sizes) {
      if (config.deadline.passed()) {
        reporter.skip(copy.bench, budget_note(config));
        break;
      }
      Timing timing;
      if (copy.pinned) {
        timing = time_on_stream(config.stream, config.timing, [&] {
          AMDAHL_CUDA_CHECK(cudaMemcpyAsync(destination, source, size, kind, config.stream));
        });
      } else {
        timing = time_on_host(config.timing, [&] {
          AMDAHL_CUDA_CHECK(cudaMemcpyAsync(destination, source, size, kind, config.stream));
          AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));
        });
      }
      reporter.record(copy_row(copy.bench, "transfer", size, size, timing));
    }
  }
}

}  // namespace

void run_copy_bench(const BenchConfig& config, Reporter& reporter) {
  bench_device_copies(config, reporter);
  bench_host_copies(config, reporter);
}

}  // namespace amdahl::cudabench
