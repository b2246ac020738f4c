#pragma once
// Which allocator an executable runs with. Executables link amdahl::allocator
// (util/CMakeLists.txt): jemalloc with its arenas on transparent huge pages where
// AMDAHL_WITH_JEMALLOC found it, the system's malloc otherwise (and in sanitizer builds).

#include <string>

namespace amdahl {

// "jemalloc, thp:always" (the option as jemalloc read it) or "system malloc".
std::string allocator_description();

}  // namespace amdahl
