#pragma once
// One network lowered at many points of its sizes (sweeps), the structure lowered once and
// the numbers re-evaluated per point (lower.h relower, network.h rebind).
//
// The rule: a point reuses the ops, names, classes and edges lowered for an earlier point
// and recomputes only their numbers (shapes, GEMM dims, FLOPs, bytes, parameters, memory),
// through the op registry's own rules, unless the point changes the structure:
//   - an `enabled:` or `repeat:` expression (block parameters substituted) that names a size
//     evaluates differently (the layer list differs), or
//   - the bound network has another number of layers or inputs, or a layer of another kind
//     (importers, which bind afresh per point), or
//   - a layer's rules emit a different number of ops, or ops of another class, phase, dtype
//     or gradient role (a sequence length that unrolls an RNN over more steps).
// Then it binds and lowers the point from the description and keeps that structure for
// the points after it (a cache of one: sweeps walk their axes in order, so a structure
// change is rare). Every lowered result equals a fresh bind + lower at the same point
// (tests/graphs/point_lowering_test.cpp).
//
// Not thread-safe: give each worker its own.

#include <functional>
#include <memory>

#include "graphs/lower.h"
#include "graphs/network.h"

namespace amdahl::graphs {

class PointLowering {
 public:
  // A network description: re-bound per point from what binding recorded.
  PointLowering(std::shared_ptr<const Network> network, const LoweringOptions& options);
  // An importer (ONNX) that binds the sizes itself: called per point, its result's numbers
  // re-evaluated on the kept structure.
  using Bind = std::function<BoundNetwork(const Bindings&)>;
  PointLowering(Bind bind, const LoweringOptions& options);

  // The network lowered at `sizes` (overrides of the defaults, as bind_sizes takes them),
  // valid until the next call. Throws what bind_sizes and lower throw at that point.
  const LoweredNetwork& at(const Bindings& sizes);

  // How many points were lowered from the description (structure changes and the first).
  std::size_t full_lowerings() const { return full_lowerings_; }

 private:
  void lower_afresh(const Bindings& sizes);
  bool reevaluate(const Bindings& sizes);

  std::shared_ptr<const Network> network_;
  Bind bind_;
  LoweringOptions options_;
  BoundNetwork bound_;
  SizeDependence dependence_;
  std::shared_ptr<const LoweringPlan> plan_;
  LoweredNetwork lowered_;
  bool valid_ = false;  // lowered_ and bound_ hold a complete point
  std::size_t full_lowerings_ = 0;
};

}  // namespace amdahl::graphs
