// The "# key: value" header of a measurement file: what was measured, on what, with which
// software, when and how.
#pragma once

#include <string>

#include "csv_writer.h"

namespace amdahl::cudabench {

// Keys, in order: format, machine, cpu_model, device, compute_capability, sm_count,
// sm_clock, memory_clock, memory_bus_width, memory, l2_cache, driver, cuda, cublas, cudnn,
// mode, date (ISO 8601 UTC), command. Clocks are the device's peak ratings, not the clock of
// the run. Throws CudaError if the device cannot be queried.
Provenance collect_provenance(int device, bool quick, const std::string& command);

}  // namespace amdahl::cudabench
