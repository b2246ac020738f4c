// Which allocator an executable runs with (util/allocator.h). jemalloc is linked for its
// speed (a 1,000,000-op step spends about 0.3 s less user time in it than in glibc's malloc)
// and left on the kernel's transparent-huge-page policy (`thp:default`): no configuration is
// compiled in, because whether huge pages pay depends on how the machine backs fresh memory
// (on the development VM a 1,000,000-op step took 1.5 s on 4 KiB pages and 8-10 s on huge
// pages in one spell, the reverse in another; docs/performance.md, "The allocator").
// MALLOC_CONF in the environment configures it (MALLOC_CONF=thp:always where huge pages pay).
#include "util/allocator.h"

#if defined(AMDAHL_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>

#include <cstddef>
#include <string>

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
