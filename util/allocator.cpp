// The allocator's configuration, compiled into each executable that links amdahl::allocator
// (util/CMakeLists.txt). jemalloc reads `malloc_conf` at its first allocation: its arenas are
// advised onto transparent huge pages (one fault per 2 MiB instead of one per 4 KiB), which
// halves the time of a 1,000,000-op step whose ~1 GB of ops, names and edges is written once
// (docs/performance.md, "The allocator"). MALLOC_CONF in the environment still overrides it.
#include "util/allocator.h"

#if defined(AMDAHL_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>

#include <cstddef>
#include <string>

extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's interface
const char* malloc_conf = "thp:always,metadata_thp:auto";
}

namespace amdahl {

std::string allocator_description() {
  const char* thp = nullptr;
  std::size_t size = sizeof(thp);
  if (mallctl("opt.thp", static_cast<void*>(&thp), &size, nullptr, 0) != 0 || thp == nullptr)
    return "jemalloc";
  return std::string("jemalloc, thp:") + thp;
}

}  // namespace amdahl

#else

namespace amdahl {

std::string allocator_description() { return "system malloc"; }

}  // namespace amdahl

#endif
