#include "util/allocator.h"

#include <catch2/catch.hpp>
#include <vector>

// The test binary links amdahl::allocator like the tool: jemalloc must be the allocator
// running, on the kernel's huge-page policy (no configuration compiled in: a `malloc_conf`
// left in util/allocator.cpp, or MALLOC_CONF in the environment, shows here), and
// allocations must work through it.
TEST_CASE("allocator: the configured allocator is the one running", "[util]") {
#if defined(AMDAHL_WITH_JEMALLOC)
  CHECK(amdahl::allocator_description() == "jemalloc, thp:default");
#else
  CHECK(amdahl::allocator_description() == "system malloc");
#endif
  std::vector<double> large(std::size_t{8} << 20, 1.0);  // 64 MiB: a large extent of its own
  large.back() = 2.0;
  CHECK(large.front() + large.back() == 3.0);
}
