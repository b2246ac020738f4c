#pragma once
// The hardware fixtures (tests/fixtures/hw) and the errors loading them gives.

#include <string>

#include "hw/system_loader.h"
#include "util/error.h"

namespace amdahl::hw::test {

inline std::string fixture(const std::string& name) {
  return std::string(AMDAHL_FIXTURES) + "/hw/" + name;
}

// The message `load` (load_device_file, load_system) gives for the fixture `name`; "no error"
// if it loads.
template <class Load>
std::string load_error(Load load, const std::string& name) {
  try {
    load(fixture(name));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

inline std::string device_error(const std::string& name) {
  return load_error(load_device_file, name);
}

inline std::string system_error(const std::string& name) { return load_error(load_system, name); }

}  // namespace amdahl::hw::test
