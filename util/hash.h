#pragma once
// The 64-bit FNV-1a hash (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/): fast,
// stable across platforms and runs, for fingerprints and checksums, not against an adversary.

#include <cstddef>
#include <cstdint>

namespace amdahl {

inline constexpr std::uint64_t kFnv1aBasis = 14695981039346656037ull;

// The hash of `n` bytes at `data`, continuing from `h` (the basis for a fresh hash).
inline std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = kFnv1aBasis) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

}  // namespace amdahl
