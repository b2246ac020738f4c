#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cuda_check.h"
#include "provenance.h"

#ifdef AMDAHL_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace amdahl::cudabench {
namespace {

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return text;
}

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

// The kernel module's version ("580.95.05") from the NVIDIA driver's proc file, if present.
std::string kernel_driver_version() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(file, line)) return "";
  const std::string marker = "Kernel Module";
  const std::size_t at = line.find(marker);
  if (at == std::string::npos) return "";
  std::istringstream rest(line.substr(at + marker.size()));
  std::string version;
  rest >> version;
  return version;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  AMDAHL_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

Provenance collect_provenance(int device, bool quick, const std::string& command) {
  cudaDeviceProp properties{};
  AMDAHL_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  const int sm_clock_khz = attribute(cudaDevAttrClockRate, device);
  const int memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  const int bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  const int l2_bytes = attribute(cudaDevAttrL2CacheSize, device);

  int driver_api = 0;
  int runtime_api = 0;
  AMDAHL_CUDA_CHECK(cudaDriverGetVersion(&driver_api));
  AMDAHL_CUDA_CHECK(cudaRuntimeGetVersion(&runtime_api));
  std::string driver = "CUDA " + cuda_version_text(driver_api) + " driver API";
  const std::string module = kernel_driver_version();
  if (!module.empty()) driver = module + " (" + driver + ")";

  int cublas_major = 0;
  int cublas_minor = 0;
  int cublas_patch = 0;
  AMDAHL_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &cublas_major));
  AMDAHL_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &cublas_minor));
  AMDAHL_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &cublas_patch));

#ifdef AMDAHL_HAVE_CUDNN
  // cudnnGetVersion(): 10000 * major + 100 * minor + patch from cuDNN 9 on (1000 * major +
  // 100 * minor + patch before).
  const std::size_t cudnn = cudnnGetVersion();
  const std::size_t cudnn_major = cudnn >= 90000 ? cudnn / 10000 : cudnn / 1000;
  const std::size_t cudnn_rest = cudnn >= 90000 ? cudnn % 10000 : cudnn % 1000;
  const std::string cudnn_text =
      std::to_string(cudnn_major) + "." + std::to_string(cudnn_rest / 100) + "." +
      std::to_string(cudnn_rest % 100) + " (built against " + std::to_string(CUDNN_MAJOR) + "." +
      std::to_string(CUDNN_MINOR) + "." + std::to_string(CUDNN_PATCHLEVEL) + ")";
#else
  const std::string cudnn_text = "none (built without cuDNN: no conv benchmarks)";
#endif

  const double memory_bytes = static_cast<double>(properties.totalGlobalMem);
  return Provenance{
      {"format", "amdahl measurements v1 (amdahl-cudabench)"},
      {"machine", host_name()},
      {"cpu_model", cpu_model()},
      {"device", std::string(properties.name) + " (index " + std::to_string(device) + ")"},
      {"compute_capability",
       std::to_string(properties.major) + "." + std::to_string(properties.minor)},
      {"sm_count", std::to_string(properties.multiProcessorCount)},
      {"sm_clock", fixed(sm_clock_khz / 1e3, 0) + " MHz (peak)"},
      {"memory_clock", fixed(memory_clock_khz / 1e3, 0) + " MHz (peak)"},
      {"memory_bus_width", std::to_string(bus_width_bits) + " bit"},
      {"memory", std::to_string(properties.totalGlobalMem) + " bytes (" +
                     fixed(memory_bytes / (1ull << 30), 1) + " GiB)"},
      {"l2_cache", std::to_string(l2_bytes) + " bytes"},
      {"driver", driver},
      {"cuda", "runtime " + cuda_version_text(runtime_api) + ", built with " +
                   cuda_version_text(CUDART_VERSION)},
      {"cublas", std::to_string(cublas_major) + "." + std::to_string(cublas_minor) + "." +
                     std::to_string(cublas_patch)},
      {"cudnn", cudnn_text},
      {"mode", quick ? "quick" : "full"},
      {"date", utc_now()},
      {"command", command},
  };
}

}  // namespace amdahl::cudabench
