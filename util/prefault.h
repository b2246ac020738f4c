#pragma once
// Mapping the pages of a large array before it is first written. A fresh page costs a page
// fault at its first write, one per 4 KiB; for arrays of hundreds of megabytes (the op graph's
// vertices, the per-op costs of a 1,000,000-op step) those faults are a large part of the
// time. `prefault` maps a range in one system call instead (docs/performance.md).

#include <cstddef>
#include <vector>

namespace amdahl {

// Maps the whole pages inside [begin, begin + bytes) writable, as if each had been written
// (Linux's madvise MADV_POPULATE_WRITE, kernel 5.14 and later); contents are unchanged. The
// page size is the allocator's choice (util/allocator.h), not this function's. Does nothing
// where that is not available or fails (the first writes then fault as usual), and for ranges
// under kPrefaultMinBytes.
void prefault(void* begin, std::size_t bytes) noexcept;
inline constexpr std::size_t kPrefaultMinBytes = std::size_t{1} << 20;

// Resizes `v` to `n` default-constructed elements, the pages of the new ones mapped first.
template <class T>
void resize_prefaulted(std::vector<T>& v, std::size_t n) {
  if (n > v.size()) {
    v.reserve(n);
    prefault(reinterpret_cast<char*>(v.data()) + v.size() * sizeof(T), (n - v.size()) * sizeof(T));
  }
  v.resize(n);
}

}  // namespace amdahl
