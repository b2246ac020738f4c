#pragma once
// Shared by the fuzz targets: the loaders read files (and check them: util/input_file.h), so
// each input is written to a file of the process's own scratch folder first, and the
// targets tell an expected rejection (UserError: a located message) from a bug (anything else
// escapes, and libFuzzer or the replay driver reports it as a crash).

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/error.h"

namespace amdahl::fuzz {

// Writes `data` to NAME in the scratch folder (made once per process, removed at exit) and
// returns its path. `subfolder` puts it one level down, for files that include siblings by
// relative path.
std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& name,
                        const std::string& subfolder = "");

// The scratch folder.
const std::string& scratch_dir();

// Runs `body`; a UserError (bad input, reported as it should be) is swallowed, anything else
// propagates.
template <class Body>
void expect_clean(Body&& body) {
  try {
    body();
  } catch (const UserError&) {
  }
}

}  // namespace amdahl::fuzz
