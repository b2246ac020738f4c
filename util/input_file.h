#pragma once
// What amdahl reads: regular files only (not a device such as /dev/zero, a pipe or a
// directory), below a size limit per kind, so that a wrong path is an error at once instead of
// a hang or gigabytes of memory.

#include <cstdint>
#include <string>
#include <string_view>

namespace amdahl {

inline constexpr std::uintmax_t kMaxTextInputBytes = std::uintmax_t{64} << 20;  // YAML, CSV
inline constexpr std::uintmax_t kMaxModelInputBytes = std::uintmax_t{2}
                                                      << 30;  // ONNX (protobuf's limit)

// Throws UserError "PATH: cannot open WHAT (...)" unless `path` is a regular file of at most
// `limit` bytes (a missing file, a directory, a device, or one too large). A file it accepts
// is an input of this run (note_input_file, util/path_policy.h): no output may replace it.
void check_input_file(const std::string& path, std::uintmax_t limit, std::string_view what);

// Whether a name given where either a catalog name or a file is accepted (--system, --device)
// names a file: it has a '/' or ends in .yaml or .yml. Any other name is looked up by name.
bool names_a_file(std::string_view name);

}  // namespace amdahl
