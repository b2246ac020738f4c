#include "util/allocator.h"

#include <catch2/catch.hpp>
#include <vector>

// The test binary links amdahl::allocator like the tool: jemalloc must have read the
// configuration util/allocator.cpp compiles in (a misspelt or dropped `malloc_conf` leaves
// jemalloc's default, "thp:default"), and allocations must work through it.
TEST_CASE("allocator: the configured allocator is the one running", "[util]") {
#if defined(AMDAHL_WITH_JEMALLOC)
  CHECK(amdahl::allocator_description() == "jemalloc, thp:always");
#else
  CHECK(amdahl::allocator_description() == "system malloc");
#endif
  std::vector<double> large(std::size_t{8} << 20, 1.0);  // 64 MiB: huge-page arena extents
  large.back() = 2.0;
  CHECK(large.front() + large.back() == 3.0);
}
