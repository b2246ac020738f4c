#include "model/host_runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "hw/units.h"

namespace amdahl::model {
namespace {

bool is_backward(Phase p) { return p == Phase::kBackwardData || p == Phase::kBackwardWeight; }

// (Casts are data-movement ops and gradient sums elementwise ones: the class is compared first.)
bool is_autocast_cast(const graphs::Operator& op) {
  return op.op_class == OpClass::kDataMovement &&
         (op.kind == "cast" || op.kind == "weight_cast" || op.kind == "grad_cast");
}

// Gradient sums the engine adds itself (a tensor feeding several layers, accumulation over
// micro-batches): a kernel, no autograd node of their own.
bool is_engine_sum(const graphs::Operator& op) {
  return op.op_class == OpClass::kElementwise &&
         (op.kind == "grad_sum" || op.kind == "grad_accumulate");
}

std::uint8_t kernel_count(int k) { return static_cast<std::uint8_t>(std::clamp(k, 1, 255)); }

// The producer an elementwise op `id` fuses into under compile, or kNoOp.
graphs::OpId fusion_producer(const graphs::OpGraph& og, graphs::OpId id,
                             const std::vector<bool>& on_device) {
  const graphs::Graph& g = og.graph();
  if (og.op(id).op_class != OpClass::kElementwise || !on_device[id]) return graphs::kNoOp;
  graphs::OpId producer = graphs::kNoOp;
  for (auto [it, end] = boost::in_edges(id, g); it != end; ++it) {
    const graphs::OpId p = boost::source(*it, g);
    if (og.op(p).op_class != OpClass::kElementwise || !on_device[p] || boost::out_degree(p, g) != 1)
      continue;
    producer = std::max(producer == graphs::kNoOp ? 0 : producer, p);
  }
  return producer;
}

}  // namespace

HostRuntime host_runtime(const graphs::LoweredNetwork& net, const hw::RuntimeSpec& rt,
                         const std::vector<bool>& on_device) {
  const graphs::OpGraph& og = net.graph;
  const std::size_t n = og.size();
  HostRuntime h;
  h.issue_s.assign(n, 0.0);
  h.kernels.assign(n, 1);
  const bool training = net.mode == graphs::Mode::kTrain;
  const std::size_t tensors = net.weights.size();

  // Parameter tensors per layer, for engine.accumulate_grad (only when it costs anything: a
  // sweep costs a step per point).
  const double accumulate_s = rt.cost(hw::EngineCost::kAccumulateGrad);
  std::unordered_map<std::string_view, int> tensors_of_layer;
  if (training && accumulate_s > 0)
    for (const graphs::WeightTensor& w : net.weights) ++tensors_of_layer[w.layer];

  std::array<bool, hw::kEngineCostCount> used{};
  auto engine = [&](hw::EngineCost c) {
    used[static_cast<std::size_t>(c)] = true;
    return rt.cost(c);
  };
  std::array<bool, kOpClassCount> class_used{};
  // Per class, resolved once (the loop below runs per op and per sweep point).
  std::array<double, kOpClassCount> forward_s{}, backward_s{};
  std::array<std::uint8_t, kOpClassCount> kernels{};
  for (int c = 0; c < kOpClassCount; ++c) {
    const auto cls = static_cast<OpClass>(c);
    forward_s[static_cast<std::size_t>(c)] = rt.op_host_s(cls, false);
    backward_s[static_cast<std::size_t>(c)] = rt.op_host_s(cls, true);
    kernels[static_cast<std::size_t>(c)] = kernel_count(rt.op_kernels(cls));
  }
  const double node_s = rt.cost(hw::EngineCost::kBackwardNode);
  // In a training step, per layer call: the host work no profiler row records (module_call)
  // and the autograd recording (autograd_record) of the layers the backward pass
  // differentiates. Inference (eval + no_grad) records nothing and costs the ops' host values.
  const double module_s = rt.cost(hw::EngineCost::kModuleCall);
  const double record_s = rt.cost(hw::EngineCost::kAutogradRecord);
  std::unordered_set<std::string_view> recorded;
  if (training)
    for (graphs::OpId id = 0; id < n; ++id)
      if (is_backward(og.op(id).phase)) recorded.insert(og.op(id).layer);
  auto records = [&](const graphs::Operator& op) {
    if (op.phase != Phase::kForward || !recorded.contains(op.layer)) return false;
    used[static_cast<std::size_t>(hw::EngineCost::kAutogradRecord)] = true;
    return true;
  };

  const hw::OptimizerRuntime& opt = rt.optimizer;
  std::size_t update_ops = 0;
  for (graphs::OpId id = 0; id < n; ++id)
    update_ops += og.op(id).op_class == OpClass::kOptimizer ? 1 : 0;
  bool first_update = true;
  std::string_view backward_layer;  // the layer of the backward node being run
  std::string_view forward_layer;   // the layer whose forward call is being run
  for (graphs::OpId id = 0; id < n; ++id) {
    const graphs::Operator& op = og.op(id);
    const auto cls = static_cast<std::size_t>(op.op_class);
    double t = 0;
    if (op.op_class == OpClass::kOptimizer) {
      // As lowered: one update op per parameter tensor, or one for all of them (foreach and
      // fused runtimes lower so: cli/workload.cpp).
      const bool per_tensor = update_ops > 1 || tensors <= 1;
      t = rt.optimizer_per_param_s() * (per_tensor ? 1.0 : static_cast<double>(tensors));
      if (first_update || !per_tensor) t += rt.optimizer_step_s();
      first_update = false;
      h.kernels[id] = kernel_count(opt.kernels);
    } else if (is_autocast_cast(op)) {
      // A cast is an aten::to call of its own: recorded in training (ToCopyBackward0), and in
      // the backward pass that node runs the cast back.
      t = engine(hw::EngineCost::kAutocastCast);
      if (is_backward(op.phase)) {
        t += node_s;
        used[static_cast<std::size_t>(hw::EngineCost::kBackwardNode)] = true;
      } else if (records(op)) {
        t += record_s;
      }
    } else if (is_backward(op.phase)) {
      t = backward_s[cls];
      class_used[cls] = true;
      if (!is_engine_sum(op) && op.layer != backward_layer) {
        backward_layer = op.layer;
        t += node_s;
        used[static_cast<std::size_t>(hw::EngineCost::kBackwardNode)] = true;
        used[static_cast<std::size_t>(hw::EngineCost::kAccumulateGrad)] = true;
        if (!tensors_of_layer.empty())
          if (auto it = tensors_of_layer.find(op.layer); it != tensors_of_layer.end())
            t += accumulate_s * it->second;
      }
      h.kernels[id] = kernels[cls];
    } else {
      t = forward_s[cls];
      class_used[cls] = true;
      backward_layer = {};
      if (training && op.phase == Phase::kForward && op.layer != forward_layer) {
        forward_layer = op.layer;  // the layer's call in a training step
        t += module_s;
        used[static_cast<std::size_t>(hw::EngineCost::kModuleCall)] = true;
        if (records(op)) t += record_s;
      }
      h.kernels[id] = kernels[cls];
    }
    h.issue_s[id] = t;
  }
  if (training && tensors > 0)
    h.step_start_s = engine(hw::EngineCost::kZeroGradPerParam) * static_cast<double>(tensors);

  if (rt.graph_capture) {
    std::fill(h.issue_s.begin(), h.issue_s.end(), 0.0);
    used = {};
    h.step_start_s = engine(hw::EngineCost::kGraphReplay);
  }
  if (rt.compile) {
    h.fused_into.assign(n, graphs::kNoOp);
    for (graphs::OpId id = 0; id < n; ++id) {
      const graphs::OpId p = fusion_producer(og, id, on_device);
      if (p == graphs::kNoOp) continue;
      h.fused_into[id] = p;
      h.issue_s[id] = 0;
      h.kernels[id] = 0;
    }
  }

  // What the step used that the runtime file does not give.
  // (module_call and autograd_record are an eager runtime's split of an op's host time: a
  // runtime without `ops` entries folds them into dispatch_per_op, and is not told of them.)
  const bool ops_given =
      std::any_of(rt.ops.begin(), rt.ops.end(), [](const auto& c) { return c.has_value(); });
  Assumption missing{AssumptionKind::kHostCostFallback, {rt.name}, {}};
  for (const hw::EngineCostSpec& e : hw::engine_cost_specs()) {
    const bool split =
        e.cost == hw::EngineCost::kModuleCall || e.cost == hw::EngineCost::kAutogradRecord;
    if (used[static_cast<std::size_t>(e.cost)] && !rt.cost_given(e.cost) && (ops_given || !split))
      missing.names.insert(missing.names.end(), {std::string(e.key), std::string(e.fallback)});
  }
  if (missing.names.size() > 1) h.assumptions.push_back(std::move(missing));
  Assumption classes{AssumptionKind::kClassDispatch, {rt.name}, {rt.dispatch_per_op_s}};
  if (!rt.graph_capture)
    for (int c = 0; c < kOpClassCount; ++c)
      if (class_used[static_cast<std::size_t>(c)] && !rt.op_given(static_cast<OpClass>(c)))
        classes.names.push_back(std::string(op_class_name(static_cast<OpClass>(c))));
  const std::size_t without_entry = classes.names.size() - 1;  // after the runtime's name
  if (without_entry > 0 && without_entry < static_cast<std::size_t>(kOpClassCount) && ops_given)
    h.assumptions.push_back(std::move(classes));
  return h;
}

}  // namespace amdahl::model
