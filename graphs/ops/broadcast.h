#pragma once
// Numpy broadcasting of shapes (ONNX's multidirectional broadcasting, the rule PyTorch and
// NumPy follow): align trailing dims; each pair must be equal or contain a 1.

#include <fmt/format.h>

#include <optional>

#include "graphs/ops/common.h"

namespace amdahl::graphs::ops {

// The broadcast shape of `shapes`, or nullopt when two dims differ and neither is 1; then
// `conflict`, when given, is the index of the first shape that does not broadcast with those
// before it. The one statement of the rule: layers, ONNX folding and Expand use it.
inline std::optional<Shape> broadcast(const std::vector<Shape>& shapes,
                                      std::size_t* conflict = nullptr) {
  std::size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const Shape& s = shapes[k];
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[rank - s.size() + i];
      const std::int64_t v = s[i];
      if (v == o || v == 1) continue;
      if (o != 1) {
        if (conflict) *conflict = k;
        return std::nullopt;
      }
      o = v;
    }
  }
  return out;
}

// The broadcast shape of `shapes`. Throws UserError located at `layer` when two dims differ
// and neither is 1.
inline Shape broadcast_shapes(const Layer& layer, const std::vector<Shape>& shapes) {
  std::optional<Shape> out = broadcast(shapes);
  check(out.has_value(), layer, [&] {
    std::string all;
    for (const Shape& t : shapes) all += (all.empty() ? "" : " and ") + shape_str(t);
    return fmt::format("shapes do not broadcast: {}", all);
  });
  return std::move(*out);
}

// Input dims an axis list refers to, with negative axes counted from the end (ONNX).
// Throws UserError for an axis outside [-rank, rank).
inline std::vector<std::size_t> normalize_axes(const Layer& layer, const IntList& axes,
                                               std::size_t rank) {
  std::vector<std::size_t> out;
  for (std::int64_t a : axes) {
    const std::int64_t r = static_cast<std::int64_t>(rank);
    check(a >= -r && a < r, layer, [&] {
      return fmt::format("axis {} is outside a rank-{} tensor's [-{}, {})", a, rank, rank, rank);
    });
    out.push_back(static_cast<std::size_t>(a < 0 ? a + r : a));
  }
  return out;
}

}  // namespace amdahl::graphs::ops
