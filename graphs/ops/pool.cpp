// Pooling over NCHW. Each output reads an R x S window: FLOPs N*C*P*Q*R*S (compares or
// adds). The backward pass scatters the output gradient back to the input (max pooling
// also reads the input to find the argmax).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

struct PoolGeometry {
  std::int64_t n, c, h, w, r, s, p, q;
};

PoolGeometry geometry(const Layer& layer, const TensorInfo& x) {
  expect_rank(layer, x, 4, "[N, C, H, W]");
  PoolGeometry g{x.shape[0], x.shape[1], x.shape[2], x.shape[3], 0, 0, 0, 0};
  if (layer.get_bool("global")) {
    g.r = g.h;
    g.s = g.w;
    g.p = g.q = 1;
    return g;
  }
  const auto kernel = layer.get_ints("kernel", 2);
  const auto stride = layer.has("stride") ? layer.get_ints("stride", 2) : kernel;
  const auto pad = layer.get_ints("padding", 2);
  const std::string& mode = layer.get_string("padding_mode");
  const bool ceil_mode = layer.get_bool("ceil_mode");
  g.r = kernel[0];
  g.s = kernel[1];
  auto out = [&](std::int64_t in, std::int64_t k, std::int64_t st, std::int64_t pd) {
    if (mode == "same") return checked_size(layer, "output size", (CheckedInt(in) + st - 1) / st);
    const std::int64_t padded = checked_size(
        layer, "padded input", CheckedInt(in) + (mode == "valid" ? 0 : CheckedInt(2) * pd));
    check(padded >= k, layer,
          [&] { return fmt::format("window {} is larger than the padded input {}", k, padded); });
    return checked_size(layer, "output size",
                        (CheckedInt(padded) - k + (ceil_mode ? st - 1 : 0)) / st + 1);
  };
  g.p = out(g.h, g.r, stride[0], pad[0]);
  g.q = out(g.w, g.s, stride[1], pad[1]);
  return g;
}

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const PoolGeometry g = geometry(layer, in.front());
  return {TensorInfo{{g.n, g.c, g.p, g.q}, in.front().dtype}};
}

LayerKind pool(std::string name, std::string summary, bool reads_input_in_backward) {
  return LayerKind{
      .name = std::move(name),
      .summary = std::move(summary),
      .op_class = OpClass::kPooling,
      .params = {ParamDecl{"kernel", ParamType::kInts, false, "", "window R x S", {}}.at_least(1),
                 ParamDecl{
                     "stride", ParamType::kInts, false, "", "stride (default: the window)", {}}
                     .at_least(1),
                 ints_param("padding", "padding per side", "0").at_least(0),
                 choice_param("padding_mode", {"explicit", "same", "valid"},
                              "explicit uses `padding`; same/valid as TensorFlow", "explicit"),
                 bool_param("ceil_mode", "round the output size up", "false"),
                 bool_param("global", "pool the whole H x W (kernel ignored)", "false")},
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            check(layer.get_bool("global") || layer.has("kernel"), layer,
                  "needs `kernel` unless global: true");
            return infer(layer, in);
          },
      .forward =
          [](ForwardContext& ctx) {
            const PoolGeometry g = geometry(ctx.layer, ctx.in());
            ctx.emit(ctx.make("fwd", OpClass::kPooling, dprod(g.n, g.c, g.p, g.q, g.r, g.s),
                              ctx.in().bytes(), ctx.out().bytes()));
          },
      .backward =
          [reads_input_in_backward](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            const PoolGeometry g = geometry(ctx.layer, ctx.in());
            ctx.emit(
                ctx.make("bwd", OpClass::kPooling, Phase::kBackwardData,
                         dprod(g.n, g.c, g.p, g.q, g.r, g.s),
                         ctx.out().bytes() + (reads_input_in_backward ? ctx.in().bytes() : 0.0),
                         ctx.in().bytes()),
                0);
          },
  };
}

}  // namespace

void register_pool_ops(LayerRegistry& r) {
  r.add(pool("maxpool2d", "max pooling over R x S windows, NCHW", true));
  r.add(pool("avgpool2d", "average pooling over R x S windows, NCHW (global: true for H x W)",
             false));
}

}  // namespace amdahl::graphs
