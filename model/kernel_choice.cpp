#include "model/kernel_choice.h"

#include <fmt/format.h>

namespace amdahl::model {

std::string kernel_name(const KernelChoice& k) {
  const std::string tile =
      k.tile_m > 0 && k.tile_n > 0 ? fmt::format("{}x{}", k.tile_m, k.tile_n) : std::string();
  const auto with_tile = [&](const char* name) {
    return tile.empty() ? std::string(name) : fmt::format("{} {}", name, tile);
  };
  std::string name;
  switch (k.algorithm) {
    case Algorithm::kNone:
      return "-";
    case Algorithm::kGemm:
      name = with_tile("gemm");
      break;
    case Algorithm::kNarrow:
      name = "narrow";
      break;
    case Algorithm::kWinograd:
      name = with_tile("winograd");
      break;
    case Algorithm::kSplitK:
      name = tile.empty() ? fmt::format("split-K {}", k.split)
                          : fmt::format("split-K {} x {}", k.split, tile);
      break;
    case Algorithm::kDirect:
      name = "direct depthwise";
      break;
    case Algorithm::kFft:
      name = with_tile("fft");
      break;
  }
  switch (k.lowering) {
    case Lowering::kAsForward:
      return "as forward: " + name;
    case Lowering::kIm2colGemm:
      return "im2col + BLAS: " + name;
    case Lowering::kNative:
      break;
  }
  return name;
}

}  // namespace amdahl::model
