#pragma once
// Which allocator an executable runs with. Executables link amdahl::allocator
// (util/CMakeLists.txt): jemalloc, on the kernel's transparent-huge-page policy, where
// AMDAHL_WITH_JEMALLOC found it; the system's malloc otherwise (and in sanitizer builds).

#include <string>

namespace amdahl {

// "jemalloc, thp:default" (the option as jemalloc read it) or "system malloc".
std::string allocator_description();

}  // namespace amdahl
