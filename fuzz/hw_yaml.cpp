// Fuzz target: the system, device and link YAML loaders (hw/system_loader.h) on the same input.
// The input is written as systems/input.yaml beside links to the catalog's devices/ and links/,
// so a system that includes "../devices/p100-sxm2.yaml" loads as a catalog system does.

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "fuzz/fuzz_input.h"
#include "hw/system_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amdahl;
  static const bool linked = [] {
    namespace fs = std::filesystem;
    std::error_code ignored;
    for (const char* sub : {"devices", "links"})
      fs::create_directory_symlink(fs::path(hw::catalog_dir()) / sub,
                                   fs::path(fuzz::scratch_dir()) / sub, ignored);
    return true;
  }();
  (void)linked;
  const std::string path = fuzz::write_input(data, size, "input.yaml", "systems");
  fuzz::expect_clean([&] { hw::load_system(path); });
  fuzz::expect_clean([&] { hw::load_device_file(path); });
  fuzz::expect_clean([&] { hw::load_link_file(path); });
  return 0;
}
