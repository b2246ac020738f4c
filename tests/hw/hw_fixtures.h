#pragma once
// The hardware fixtures (tests/fixtures/hw) and the errors loading them gives.

#include <string>

#include "hw/system_loader.h"
#include "util/error.h"

namespace amdahl::hw::test {

inline std::string fixture(const std::string& name) {
  return std::string(AMDAHL_FIXTURES) + "/hw/" + name;
}

// The message of loading the fixture device (or system) file `name`; "no error" if it loads.
inline std::string device_error(const std::string& name) {
  try {
    load_device_file(fixture(name));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

inline std::string system_error(const std::string& name) {
  try {
    load_system(fixture(name));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace amdahl::hw::test
