#pragma once
// The `bytes` column of amdahl-cudabench's convolution rows (../measurement_format.md): X as
// the windows read it, N x C x min(H, P x R) x min(W, Q x S), for conv_fwd and conv_bwd_filter,
// all of dX for conv_bwd_data, plus W and Y (dY). The rule is the layer registry's
// (graphs/ops/conv.cpp, graphs/conv_traffic.h), which this standalone target cannot include;
// the main test suite checks that the two agree (tests/calibrate/cudabench_conv_bytes_test.cpp).
// Host-only C++.

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace amdahl::cudabench {

struct ConvBytesShape {
  std::uint64_t n, c, h, w, k, r, s, p, q;  // batch, input, filters, window, output
  std::uint64_t groups = 1;                 // W is K x (C / groups) x R x S
};

inline std::uint64_t conv_bench_bytes(std::string_view bench, const ConvBytesShape& g,
                                      std::uint64_t element_bytes) {
  const std::uint64_t x = bench == "conv_bwd_data"
                              ? g.n * g.c * g.h * g.w
                              : g.n * g.c * std::min(g.h, g.p * g.r) * std::min(g.w, g.q * g.s);
  return (x + g.k * (g.c / g.groups) * g.r * g.s + g.n * g.k * g.p * g.q) * element_bytes;
}

}  // namespace amdahl::cudabench
