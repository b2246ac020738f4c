// Fuzz target: the CSV readers, each on the same input: measured runs
// (validate/measured_runs.h), torch.profiler kernel profiles (validate/kernel_profile.h) and
// kernel measurements (calibrate/measurement.h). Each checks its header first.

#include <cstddef>
#include <cstdint>

#include "calibrate/measurement.h"
#include "fuzz/fuzz_input.h"
#include "validate/kernel_profile.h"
#include "validate/measured_runs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amdahl;
  const std::string path = fuzz::write_input(data, size, "input.csv");
  fuzz::expect_clean([&] { validate::read_measured_runs(path); });
  fuzz::expect_clean([&] { validate::read_kernel_profile(path); });
  fuzz::expect_clean([&] { calibrate::read_measurements(path); });
  return 0;
}
