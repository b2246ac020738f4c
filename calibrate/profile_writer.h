#pragma once
// Writing calibrated device files.
//
// A calibrated device file is its base file with three top-level parts replaced:
// `calibrated: true`, `calibration:` (the provenance: measurements, date, versions) and the
// `efficiency:` map, in which every fitted class gets a generated entry (its parameters, the
// number of measurements behind it and its held-out error) and every entry of the base that
// was not fitted is kept verbatim. Everything else (peaks, memory, comments) is kept as the
// base has it, so a base that is itself a calibrated file gives the same output again.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/efficiency_fit.h"
#include "util/atomic_file.h"

namespace amdahl::calibrate {

// One efficiency entry in flow style, e.g.
//   gemm: {compute: 0.8412, memory: 0.8, tile_m: 128, ..., source: "..."}
std::string efficiency_entry(const ClassFit& fit, const std::string& source);

// The base file's text with the calibration applied (see above). `entry_sources` gives the
// `source:` text of each fit (same order as `fits`).
std::string render_calibrated_device(const std::string& base_text,
                                     const std::vector<ClassFit>& fits,
                                     const std::vector<std::string>& entry_sources,
                                     const std::string& calibration);

// `text` with each top-level `key: value` line of `keys` set: an existing key's line (and any
// indented block under it) replaced in place, a missing key appended. Values are written as
// given (quote strings with quoted_yaml).
std::string set_top_level_keys(const std::string& text,
                               const std::vector<std::pair<std::string, std::string>>& keys);

// `s` as a double-quoted YAML string.
std::string quoted_yaml(const std::string& s);

// Reads a whole text file; UserError when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace amdahl::calibrate
