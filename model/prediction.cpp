#include "model/prediction.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>

#include "graphs/layer_kind.h"
#include "hw/topology.h"
#include "hw/units.h"
#include "model/collective.h"
#include "model/host_runtime.h"
#include "model/roofline.h"
#include "util/error.h"
#include "util/prefault.h"
#include "util/suggest.h"

namespace amdahl::model {
namespace {

void note_efficiency_defaults(const Roofline& r, const std::array<bool, kOpClassCount>& used,
                              const std::string& instance, std::vector<Assumption>& out) {
  const hw::DeviceSpec& d = r.device();
  for (int i = 0; i < kOpClassCount; ++i) {
    const auto c = static_cast<OpClass>(i);
    if (!used[i] || !r.uses_default_efficiency(c) || c == OpClass::kTransfer) continue;
    const hw::ClassEfficiency& e = r.efficiency(c);
    out.push_back({AssumptionKind::kClassDefaultEntry,
                   {instance, d.model, std::string(op_class_name(c))},
                   {e.compute, e.memory}});
  }
}

void note_uncalibrated(const hw::DeviceSpec& d, std::vector<Assumption>& out) {
  if (!d.calibrated) out.push_back({AssumptionKind::kUncalibratedDevice, {d.name, d.model}, {}});
  out.insert(out.end(), d.assumptions.begin(), d.assumptions.end());
}

bool is_loss_op(const graphs::Operator& op) {
  if (op.phase != Phase::kForward) return false;
  const graphs::LayerKind* k = graphs::layer_registry().find(op.kind);
  return k && k->is_loss;
}

// Ops with equal numbers cost the same on one device (Roofline::estimate reads only an op's
// OpNumbers), so repeated blocks (ResNet's bottlenecks, a deep MLP's units) are costed once
// per step: a direct-mapped table keyed by the numbers, sized from the op count.
class CostMemo {
 public:
  CostMemo(const Roofline& roofline, std::size_t ops)
      : roofline_(roofline), slots_(std::bit_ceil(std::clamp<std::size_t>(ops / 8, 16, 4096))) {}

  const OpCost& estimate(const graphs::Operator& op) {
    const graphs::OpNumbers& key = op;
    Slot& s = slots_[hash(key) & (slots_.size() - 1)];
    if (!s.used || !(s.key == key)) {
      s.used = true;
      s.key = key;
      s.cost = roofline_.estimate(op);
    }
    return s.cost;
  }

 private:
  struct Slot {
    bool used = false;
    graphs::OpNumbers key;
    OpCost cost;
  };
  // Over the fields that tell ops apart most often (equality checks them all): FNV-1a over
  // their 64-bit words, folded so that the table's low bits see the high ones.
  static std::size_t hash(const graphs::OpNumbers& k) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    const auto mix = [&h](std::uint64_t word) { h = (h ^ word) * 0x100000001b3ULL; };
    mix(static_cast<std::uint64_t>(k.op_class) << 16 | static_cast<std::uint64_t>(k.phase) << 8 |
        static_cast<std::uint64_t>(k.precision));
    mix(std::bit_cast<std::uint64_t>(k.flops));
    mix(std::bit_cast<std::uint64_t>(k.bytes_read));
    mix(std::bit_cast<std::uint64_t>(k.bytes_written));
    mix(static_cast<std::uint64_t>(k.gemm.m));
    mix(static_cast<std::uint64_t>(k.gemm.n));
    return static_cast<std::size_t>(h ^ (h >> 29) ^ (h >> 47));
  }
  const Roofline& roofline_;
  std::vector<Slot> slots_;
};

}  // namespace

graphs::GradientExchange gradient_exchange(hw::VariableUpdate update) {
  switch (update) {
    case hw::VariableUpdate::kDdp:
      return graphs::GradientExchange::kBucketedAllReduce;
    case hw::VariableUpdate::kReplicated:
      return graphs::GradientExchange::kAllReduce;
    case hw::VariableUpdate::kParameterServerCpu:
    case hw::VariableUpdate::kParameterServerGpu:
      return graphs::GradientExchange::kParameterServer;
  }
  throw InternalError("unknown variable update");
}

hw::VariableUpdate variable_update_of(graphs::GradientExchange exchange,
                                      hw::VariableUpdate preferred) {
  if (gradient_exchange(preferred) == exchange) return preferred;
  for (std::size_t i = 0; i < hw::variable_update_names().size(); ++i) {
    const auto update = static_cast<hw::VariableUpdate>(i);
    if (gradient_exchange(update) == exchange) return update;
  }
  throw InternalError("no variable update lowers to this gradient exchange");
}

struct DataParallelGroup {
  hw::Topology topology;             // copies and the parameter server
  hw::Topology collective_topology;  // the collective library's links (hw::LinkUse)
  CollectiveGroup group;
  std::optional<ParameterServer> parameter_server;                // when the step's exchange is one
  hw::VariableUpdate variable_update = hw::VariableUpdate::kDdp;  // as the step was lowered
  // Per algorithm, the directions (kLinkToDevice | kLinkFromDevice) in which its exchanges cross
  // a replica's link to its CPU, the link its copies take.
  std::array<std::uint8_t, kCollectiveAlgorithmCount> host_link_use{};
  DataParallelGroup(const hw::SystemSpec& system, const graphs::LoweredNetwork& net)
      : topology(system),
        collective_topology(system, hw::LinkUse::kCollectives),
        group(collective_topology, hw::data_parallel_devices(system, net.replicas),
              system.runtime.collectives) {
    variable_update = variable_update_of(net.exchange, system.runtime.collectives.variable_update);
    if (net.exchange == graphs::GradientExchange::kParameterServer)
      parameter_server.emplace(topology, system, group.devices(),
                               variable_update == hw::VariableUpdate::kParameterServerGpu);
    // Each replica's copies take the link to its CPU (SystemSpec::host_links), in its node.
    const auto host_links = system.host_links();
    for (const std::string& device : group.devices()) {
      const hw::TopologyVertex& v = topology.vertex(device);
      const auto j = host_links.find(v.device);
      if (j == host_links.end()) continue;
      const std::size_t link = topology.link_index(std::max(v.node, 0), j->second);
      // The link's direction from the CPU to the device.
      const bool forward = system.links[j->second].to == v.device;
      for (int a = 0; a < kCollectiveAlgorithmCount; ++a) {
        const auto algorithm = static_cast<CollectiveAlgorithm>(a);
        auto crosses = [&](bool direction) {
          const std::size_t d = link_direction(link, direction);
          return algorithm == CollectiveAlgorithm::kParameterServer
                     ? parameter_server && parameter_server->crosses(d)
                     : group.crosses(algorithm, d);
        };
        std::uint8_t& use = host_link_use[static_cast<std::size_t>(a)];
        if (crosses(forward)) use |= kLinkToDevice;
        if (crosses(!forward)) use |= kLinkFromDevice;
      }
    }
  }
  // "the ring (both ways), the tree (to the device)" for the algorithms the step used that cross
  // a host link; empty when none does.
  std::string host_link_text(const std::array<int, kCollectiveAlgorithmCount>& used) const {
    std::vector<std::string> parts;
    for (int a = 0; a < kCollectiveAlgorithmCount; ++a) {
      const std::uint8_t use = host_link_use[static_cast<std::size_t>(a)];
      if (use == 0 || used[static_cast<std::size_t>(a)] == 0) continue;
      parts.push_back(fmt::format("the {} ({})",
                                  algorithm_name(static_cast<CollectiveAlgorithm>(a)),
                                  use == (kLinkToDevice | kLinkFromDevice) ? "both ways"
                                  : use == kLinkToDevice                   ? "toward the device"
                                                                           : "from the device"));
    }
    return join(parts, ", ");
  }
  // One exchange op's cost (graphs::kAllReduceKind or graphs::kParameterServerKind).
  CollectiveCost cost(const graphs::Operator& op) const {
    if (op.kind == graphs::kParameterServerKind) {
      if (!parameter_server)
        throw InternalError(
            fmt::format("op '{}': a parameter server exchange in a step lowered "
                        "for all-reduces",
                        op.name));
      return parameter_server->cost(op.bytes_written);
    }
    return group.cost(Collective::kAllReduce, op.bytes_written);
  }
  std::string route() const { return parameter_server ? parameter_server->route() : group.route(); }
};

namespace {

// What a step's ops used, for the assumptions their costs rest on.
struct StepUse {
  std::array<bool, kOpClassCount> accel{}, host{};  // op classes costed on each side
  // (non-matrix, matrix) x precision costed on each side, for the rate notes.
  std::array<std::array<bool, kPrecisionCount>, 2> rate_accel{}, rate_host{};
  bool copied_inputs = false;  // an input copy costed on the link
  bool unlinked_copy = false;  // an input copy with no link to take
  bool crossing = false;       // a tensor crossing between host and accelerator
  static bool any(const std::array<bool, kOpClassCount>& a) {
    return std::any_of(a.begin(), a.end(), [](bool b) { return b; });
  }
};

// The two sides' rooflines, each with its memo of costs (one when there is no separate host).
class SideCosts {
 public:
  SideCosts(const Placement& pl, std::size_t ops)
      : accel_(*pl.accelerator), accel_memo_(accel_, ops) {
    if (pl.host && pl.host != pl.accelerator) {
      host_.emplace(*pl.host);
      host_memo_.emplace(*host_, ops);
    }
  }
  const Roofline& accel() const { return accel_; }
  const Roofline* host() const { return host_ ? &*host_ : nullptr; }
  CostMemo& memo(bool on_host) { return on_host && host_memo_ ? *host_memo_ : accel_memo_; }

 private:
  Roofline accel_;
  CostMemo accel_memo_;
  std::optional<Roofline> host_;
  std::optional<CostMemo> host_memo_;
};

void start_input(ScheduleInput& in, const graphs::LoweredNetwork& net, const Placement& pl,
                 const hw::RuntimeSpec& rt, HostRuntime& runtime) {
  const std::size_t n = net.graph.size();
  in.graph = &net.graph;
  in.issue_s = std::move(runtime.issue_s);
  in.step_start_s = runtime.step_start_s;
  in.sync_latency_s = rt.sync_latency_s;
  in.copy_engines = pl.accelerator->copy_engines;
  in.sync_at_end = rt.sync != hw::SyncPoint::kNone;
  if (pl.link) {
    in.link_latency_s = pl.link->latency_s;
    in.h2d_bytes_per_s = link_bandwidth(*pl.link, Direction::kHostToDevice, rt.pinned_inputs);
    in.d2h_bytes_per_s = link_bandwidth(*pl.link, Direction::kDeviceToHost, rt.pinned_inputs);
  }
  resize_prefaulted(in.costs, n);
  in.resources.resize(n);
}

// A host <-> device copy: on the link, free when the input starts on the device or there is no
// link, on the host's own thread when both ends are there.
void cost_copy(const CostedStep& st, graphs::OpId id, bool on_host, ScheduleInput& in,
               StepUse& use) {
  const graphs::Operator& op = st.net->graph.op(id);
  const Placement& pl = st.placement;
  in.costs[id] = OpCost{.bound = Bound::kTransfer};
  in.resources[id] = on_host ? Resource::kHost : Resource::kCopy;
  if (on_host) return;
  if (st.options.inputs_on_device && op.layer == "input") {
    in.issue_s[id] = 0;  // already there: no time and no copy call
  } else if (pl.link) {
    in.costs[id] = estimate_transfer(op.bytes_written, *pl.link, Direction::kHostToDevice,
                                     st.system->runtime.pinned_inputs);
    use.copied_inputs = true;
  } else {
    use.unlinked_copy = true;
  }
}

// A gradient exchange on the collective stream.
void cost_exchange(CostedStep& st, graphs::OpId id, ScheduleInput& in) {
  const graphs::Operator& op = st.net->graph.op(id);
  if (!st.data_parallel)
    throw InternalError(fmt::format("op '{}': a collective in a step of one replica", op.name));
  const CollectiveCost c = st.data_parallel->cost(op);
  ++st.exchanges_by_algorithm[static_cast<std::size_t>(c.algorithm)];
  OpCost& cost = in.costs[id];
  cost.time_s = c.time_s;
  cost.latency_s = c.steps * c.step_latency_s;
  cost.transfer_s = c.time_s - cost.latency_s;
  cost.bandwidth_bytes_per_s = c.bandwidth_bytes_per_s;
  cost.bound = Bound::kInterconnect;
  in.resources[id] = Resource::kCollective;
  if (const std::uint8_t link_use =
          st.data_parallel->host_link_use[static_cast<std::size_t>(c.algorithm)];
      link_use != 0) {
    in.host_link_use.resize(st.net->graph.size());
    in.host_link_use[id] = link_use;
  }
}

// A kernel on its side's roofline: fused into its producer's when compiled, with a launch per
// further kernel the call starts.
void cost_kernel(const CostedStep& st, graphs::OpId id, bool on_host, const HostRuntime& runtime,
                 SideCosts& sides, ScheduleInput& in) {
  const graphs::Operator& op = st.net->graph.op(id);
  CostMemo& memo = sides.memo(on_host);
  if (!runtime.fused_into.empty() && runtime.fused_into[id] != graphs::kNoOp) {
    // Compiled: joins its producer's kernel, reading the intermediate from registers.
    graphs::Operator fused = op;
    fused.bytes_read =
        std::max(0.0, op.bytes_read - st.net->graph.edge_bytes(runtime.fused_into[id], id));
    in.costs[id] = memo.estimate(fused);
    OpCost& c = in.costs[id];
    c.time_s -= c.latency_s;
    c.latency_s = 0;
    if (c.bound == Bound::kLatency)
      c.bound = c.compute_s >= c.memory_s ? Bound::kCompute : Bound::kMemory;
  } else {
    in.costs[id] = memo.estimate(op);
  }
  if (const int extra = runtime.kernels[id] - 1; extra > 0) {
    // Each further kernel the call launches adds the device's launch latency.
    const Placement& pl = st.placement;
    const double launch = (on_host ? *pl.host : *pl.accelerator).launch_latency_s * extra;
    in.costs[id].time_s += launch;
    in.costs[id].latency_s += launch;
  }
  in.resources[id] = on_host ? Resource::kHost : Resource::kCompute;
}

void note_kernel_use(const CostedStep& st, graphs::OpId id, bool on_host, StepUse& use) {
  const graphs::OpGraph& g = st.net->graph;
  const graphs::Operator& op = g.op(id);
  (on_host ? use.host : use.accel)[static_cast<int>(op.op_class)] = true;
  (on_host ? use.rate_host
           : use.rate_accel)[is_matrix_class(op.op_class) ? 1 : 0][static_cast<int>(op.precision)] =
      true;
  const std::vector<Side>& side = st.placement.side;
  for (auto [it, end] = boost::in_edges(id, g.graph()); it != end && !use.crossing; ++it) {
    const graphs::OpId from = boost::source(*it, g.graph());
    use.crossing = side[from] != side[id] && g.op(from).op_class != OpClass::kTransfer;
  }
}

// How the step's replicas exchange gradients, as modelled.
Assumption data_parallel_assumption(const CostedStep& st) {
  const graphs::LoweredNetwork& net = *st.net;
  const DataParallelGroup& dp = *st.data_parallel;
  const double replicas = net.replicas;
  const double exchanges = static_cast<double>(net.buckets.size());
  switch (net.exchange) {
    case graphs::GradientExchange::kBucketedAllReduce:
      return {AssumptionKind::kDdpBuckets,
              {dp.route()},
              {replicas, exchanges, net.buckets.empty() ? 0 : net.buckets.front().bytes,
               st.system->runtime.collectives.bucket_cap_bytes}};
    case graphs::GradientExchange::kAllReduce:
      return {AssumptionKind::kPerVariableAllReduce, {dp.route()}, {replicas, exchanges}};
    case graphs::GradientExchange::kParameterServer:
      break;
  }
  return {AssumptionKind::kParameterServer,
          {dp.route(), dp.parameter_server->server()},
          {replicas, exchanges}};
}

// Everything the costs relied on that was not measured, each once.
std::vector<Assumption> step_assumptions(const CostedStep& st, const StepUse& use,
                                         const SideCosts& sides, const HostRuntime& runtime) {
  const Placement& pl = st.placement;
  const hw::RuntimeSpec& rt = st.system->runtime;
  std::vector<Assumption> a;
  const auto append = [&a](const std::vector<Assumption>& more) {
    a.insert(a.end(), more.begin(), more.end());
  };
  const bool any_accel = StepUse::any(use.accel), any_host = StepUse::any(use.host);
  if (any_accel || use.copied_inputs) {
    note_uncalibrated(*pl.accelerator, a);
    note_efficiency_defaults(sides.accel(), use.accel, pl.accelerator->name, a);
  }
  if (any_host && sides.host()) {
    note_uncalibrated(*pl.host, a);
    note_efficiency_defaults(*sides.host(), use.host, pl.host->name, a);
  }
  constexpr std::array<OpClass, 2> kRateClass{OpClass::kElementwise, OpClass::kGemm};
  for (int m = 0; m < 2; ++m)
    for (int p = 0; p < kPrecisionCount; ++p) {
      const auto precision = static_cast<Precision>(p);
      if (use.rate_accel[m][p])
        if (auto note = sides.accel().rate_note(kRateClass[m], precision)) a.push_back(*note);
      if (use.rate_host[m][p] && sides.host())
        if (auto note = sides.host()->rate_note(kRateClass[m], precision)) a.push_back(*note);
    }
  if (pl.link && (use.copied_inputs || use.crossing)) {
    if (!pl.link->calibrated)
      a.push_back({AssumptionKind::kUncalibratedLink, {pl.link->name, pl.link->model}, {}});
    append(pl.link->assumptions);
  }
  if (st.data_parallel) {
    a.push_back(data_parallel_assumption(st));
    const DataParallelGroup& dp = *st.data_parallel;
    append(dp.parameter_server ? dp.parameter_server->assumptions() : dp.group.assumptions());
  }
  if (!rt.calibrated)
    a.push_back({AssumptionKind::kUncalibratedRuntime, {rt.name}, {rt.dispatch_per_op_s}});
  append(rt.assumptions);
  append(runtime.assumptions);
  append(st.net->assumptions);
  if (pl.all_on_host)
    a.push_back({AssumptionKind::kAllOnHost, {pl.host->name, pl.host->model}, {}});
  else if (st.options.inputs_on_device)
    a.push_back({AssumptionKind::kResidentOnDevice, {pl.accelerator->name}, {}});
  else
    a.push_back({AssumptionKind::kInputsCopied,
                 {pl.accelerator->name, rt.pinned_inputs ? "pinned" : "pageable"},
                 {}});
  if (any_host && any_accel)
    a.push_back({AssumptionKind::kPlacementCrossing,
                 {placement_text(st.options.placement), pl.host->name, pl.accelerator->name,
                  pl.link ? "" : "no link"},
                 {}});
  if (use.unlinked_copy) a.push_back({AssumptionKind::kUnlinkedCopies, {pl.accelerator->name}, {}});
  std::vector<Assumption> once;
  for (Assumption& each : a)
    if (std::find(once.begin(), once.end(), each) == once.end()) once.push_back(std::move(each));
  return once;
}

}  // namespace

CostedStep cost_step(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                     const PredictOptions& options) {
  CostedStep st;
  st.net = &net;
  st.system = &system;
  st.options = options;
  st.placement = place(net.graph, system, options.device, options.placement);
  const Placement& pl = st.placement;
  const hw::RuntimeSpec& rt = system.runtime;
  const std::size_t n = net.graph.size();
  if (net.replicas > 1) {
    if (pl.all_on_host)
      throw UserError(fmt::format(
          "data parallelism (--gpus {}) runs on accelerators; placement '{}' puts every op on "
          "the host",
          net.replicas, placement_text(options.placement)));
    st.data_parallel = std::make_shared<const DataParallelGroup>(system, net);
  }
  std::vector<bool> on_device(n);
  for (graphs::OpId id = 0; id < n; ++id) on_device[id] = pl.side[id] != Side::kHost;
  HostRuntime runtime = host_runtime(net, rt, on_device);
  ScheduleInput& in = st.input;
  start_input(in, net, pl, rt, runtime);

  SideCosts sides(pl, n);
  StepUse use;
  for (graphs::OpId id = 0; id < n; ++id) {
    const graphs::Operator& op = net.graph.op(id);
    const bool on_host = pl.side[id] == Side::kHost;
    if (op.op_class == OpClass::kTransfer) {
      cost_copy(st, id, on_host, in, use);
    } else if (op.op_class == OpClass::kCommunication) {
      cost_exchange(st, id, in);
    } else {
      cost_kernel(st, id, on_host, runtime, sides, in);
      note_kernel_use(st, id, on_host, use);
      if (rt.sync == hw::SyncPoint::kAfterLoss && in.sync_after == graphs::kNoOp && is_loss_op(op))
        in.sync_after = id;
    }
  }
  st.assumptions = step_assumptions(st, use, sides, runtime);
  return st;
}

const hw::DeviceSpec& memory_device(const Placement& placement) {
  return placement.all_on_host ? *placement.host : *placement.accelerator;
}

bool memory_exceeded(double peak_bytes, double capacity_bytes) {
  return capacity_bytes > 0 && peak_bytes > capacity_bytes;
}

void check_step_time(double step_s, std::string_view what) {
  if (!std::isfinite(step_s) || step_s > kMaxStepSeconds)
    throw UserError(
        fmt::format("{}: the step would take {:.3g} s, beyond the {:.0e} s amdahl "
                    "reports (sizes too large, or rates too small?)",
                    what, step_s, kMaxStepSeconds));
}

namespace {

// What was predicted: the workload, the system and device, the options, the network's sizes.
void describe(Prediction& p, const CostedStep& st) {
  const graphs::LoweredNetwork& net = *st.net;
  const hw::DeviceSpec& shown = memory_device(st.placement);
  p.workload = net.name;
  p.system = st.system->name;
  p.device = shown.name;
  p.device_model = shown.model;
  p.placement = placement_text(st.options.placement);
  p.batch = st.options.batch;
  p.mode = st.options.mode;
  p.precision = st.options.precision;
  p.parameters = net.parameters;
  p.memory = net.memory;
  p.device_memory_bytes = shown.memory.capacity_bytes;
  p.op_count = net.graph.size();
  p.gpus = net.replicas;
}

// Inputs are range-checked where they are read; this catches what their combination can still
// give (a huge op on a slow device): an unusable number is an error, never printed as a time.
void check_finite(const CostedStep& st, const std::vector<OpCost>& costs, double step_s) {
  if (std::isfinite(step_s) && step_s <= kMaxStepSeconds) return;
  const graphs::LoweredNetwork& net = *st.net;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id)
    if (!std::isfinite(costs[id].time_s) || costs[id].time_s > kMaxStepSeconds)
      throw UserError(fmt::format(
          "{} on {}: op '{}' ({}) would take {:.3g} s; beyond what amdahl reports as a step time "
          "(check the sizes and the device's rates and bandwidths)",
          net.name, st.system->name, excerpt(net.graph.op(id).name),
          op_class_name(net.graph.op(id).op_class), costs[id].time_s));
  check_step_time(step_s, fmt::format("{} on {}", net.name, st.system->name));
}

// Work and busy time summed over the ops and copies, whatever the schedule overlapped.
void add_busy(Prediction& p, const CostedStep& st, const std::vector<OpCost>& costs,
              const Schedule& schedule) {
  const graphs::LoweredNetwork& net = *st.net;
  for (graphs::OpId id = 0; id < p.op_count; ++id) {
    const graphs::Operator& op = net.graph.op(id);
    p.total_flops += op.flops;
    if (op.op_class != OpClass::kTransfer) p.total_bytes += op.bytes();
    p.busy_by_class[op.op_class] += costs[id].time_s;
    p.host_by_class[op.op_class] += st.input.issue_s[id];
    p.host_by_phase[op.phase] += st.input.issue_s[id];
    if (st.input.resources[id] != Resource::kHost) p.device_by_phase[op.phase] += costs[id].time_s;
  }
  for (const ScheduledCopy& c : schedule.copies) {
    p.busy_by_class[OpClass::kTransfer] += c.end_s - c.start_s;
    p.device_by_phase[net.graph.op(c.to).phase] += c.end_s - c.start_s;
  }
  p.host_by_class[HostSlot::kStepStart] = std::max(0.0, st.input.step_start_s);
  p.host_by_phase[HostSlot::kStepStart] = std::max(0.0, st.input.step_start_s);
}

// One host interval of the critical path by phase: host time issuing ops counts to each op's
// phase (the ops issued within the interval, back from the one the host was issuing); the rest
// (step start, the tail) to "dispatch".
void add_host_interval(Prediction& p, const CostedStep& st, const Schedule& schedule,
                       const PathInterval& iv) {
  const double dt = iv.end_s - iv.start_s;
  double attributed = 0;
  if (iv.issued != graphs::kNoOp && !schedule.ops.empty())
    for (graphs::OpId j = iv.issued + 1; j-- > 0;) {
      const double end = schedule.ops[j].issue_s;
      if (end <= iv.start_s) break;
      const double part =
          std::max(0.0, std::min(end, iv.end_s) - std::max(end - st.input.issue_s[j], iv.start_s));
      p.by_phase[st.net->graph.op(j).phase] += part;
      attributed += part;
    }
  const double start = std::max(0.0, std::min(iv.end_s, st.input.step_start_s) - iv.start_s);
  p.by_phase[HostSlot::kStepStart] += start;
  p.by_phase[HostSlot::kDispatch] += std::max(0.0, dt - attributed - start);
}

// The critical path by binding resource, by class and by phase.
void add_critical_path(Prediction& p, const CostedStep& st, const Schedule& schedule) {
  const std::array<double, kBoundCount> bound = bound_times(schedule);
  for (int i = 0; i < kBoundCount; ++i) p.by_bound[static_cast<Bound>(i)] = bound[i];
  for (const PathInterval& iv : schedule.critical_path) {
    const double dt = iv.end_s - iv.start_s;
    if (iv.op == graphs::kNoOp) {
      p.by_class[HostSlot::kDispatch] += dt;
      add_host_interval(p, st, schedule, iv);
      continue;
    }
    const graphs::Operator& op = st.net->graph.op(iv.op);
    p.by_class[iv.copy >= 0 ? OpClass::kTransfer : op.op_class] += dt;
    p.by_phase[op.phase] += dt;
  }
}

// The data-parallel exchange: its group, its bytes and busy time, its algorithms, what of it
// the critical path exposes. Needs by_class.
void add_communication(Prediction& p, const CostedStep& st, const std::vector<OpCost>& costs,
                       const Schedule& schedule) {
  const graphs::LoweredNetwork& net = *st.net;
  Communication& c = p.communication;
  c.devices = st.data_parallel->group.devices();
  c.variable_update = st.data_parallel->variable_update;
  c.route = st.data_parallel->route();
  c.buckets = net.buckets.size();
  for (const graphs::GradientBucket& b : net.buckets) {
    c.bytes += b.bytes;
    c.busy_s += costs[b.op].time_s;
  }
  std::map<std::string, int> algorithms;  // by name
  for (int a = 0; a < kCollectiveAlgorithmCount; ++a)
    if (const int count = st.exchanges_by_algorithm[static_cast<std::size_t>(a)]; count > 0)
      algorithms[std::string(algorithm_name(static_cast<CollectiveAlgorithm>(a)))] = count;
  for (const auto& [name, count] : algorithms)
    c.algorithms += fmt::format("{}{} ({})", c.algorithms.empty() ? "" : ", ", name, count);
  c.exposed_s = p.by_class[OpClass::kCommunication];
  c.host_link = st.data_parallel->host_link_text(st.exchanges_by_algorithm);
  c.link_wait_s = schedule.link_wait_s;
}

}  // namespace

Prediction account(const CostedStep& st, std::vector<OpCost> costs, Schedule schedule) {
  Prediction p;
  describe(p, st);
  p.step_time_s = schedule.makespan_s;
  check_finite(st, costs, p.step_time_s);
  p.samples_per_s =
      p.step_time_s > 0 && p.batch > 0 ? static_cast<double>(p.batch) * p.gpus / p.step_time_s : 0;
  add_busy(p, st, costs, schedule);
  add_critical_path(p, st, schedule);
  if (st.data_parallel) add_communication(p, st, costs, schedule);
  p.costs = std::move(costs);
  p.resources = st.input.resources;
  p.schedule = std::move(schedule);
  p.assumptions = st.assumptions;
  return p;
}

Prediction predict(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                   const PredictOptions& options) {
  CostedStep st = cost_step(net, system, options);
  Schedule s = simulate(st.input);
  std::vector<OpCost> costs = std::move(st.input.costs);
  return account(st, std::move(costs), std::move(s));
}

Prediction predict(const CostedStep& step) {
  return account(step, step.input.costs, simulate(step.input));
}

std::string_view binding_name(StepBinding b) {
  static constexpr std::array<std::string_view, 3> kNames{"host-bound", "device-bound", "mixed"};
  return kNames[static_cast<std::size_t>(b)];
}

std::string_view binding_name(PhaseBinding b) {
  return b == PhaseBinding::kHost ? "host" : "device";
}

StepBinding host_binding(double share) {
  return share >= 2.0 / 3 ? StepBinding::kHostBound
                          : (share <= 1.0 / 3 ? StepBinding::kDeviceBound : StepBinding::kMixed);
}

StepBinding step_binding(const Prediction& p) {
  if (p.step_time_s <= 0) return StepBinding::kDeviceBound;
  return host_binding(p.by_bound[Bound::kDispatch] / p.step_time_s);
}

PhaseBinding phase_binding(const Prediction& p, int phase_slot) {
  return p.host_by_phase.at_slot(phase_slot) > p.device_by_phase.at_slot(phase_slot)
             ? PhaseBinding::kHost
             : PhaseBinding::kDevice;
}

std::array<double, kBoundCount> bound_times(const Schedule& schedule) {
  std::array<double, kBoundCount> bound{};
  for (const PathInterval& iv : schedule.critical_path)
    bound[static_cast<int>(iv.bound)] += iv.end_s - iv.start_s;
  return bound;
}

double step_time(const CostedStep& step, const std::vector<OpCost>& costs) {
  return makespan(step.input, costs);
}

}  // namespace amdahl::model
