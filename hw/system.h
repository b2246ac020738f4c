#pragma once
// SystemSpec: devices, links, runtime and topology of one machine, in SI units, validated.
// Built by load_system() from YAML; immutable plain structs afterwards.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/class_efficiency.h"
#include "hw/efficiency_key.h"
#include "util/assumption.h"
#include "util/op_class.h"
#include "util/precision.h"

namespace amdahl::hw {

enum class DeviceKind { kCpu, kGpu, kAccelerator };
enum class ComputeUnit { kFma, kTensor, kSimd, kMatrix };

std::string_view device_kind_name(DeviceKind k);
std::string_view compute_unit_name(ComputeUnit u);

struct PeakRate {
  double flops_per_s = 0;
  ComputeUnit unit = ComputeUnit::kFma;
};

struct MemorySpec {
  double capacity_bytes = 0;
  double bandwidth_bytes_per_s = 0;
  double l2_bytes = 0;  // 0 when not given
};

// Fresh host allocations (a CPU run through a framework): an op whose output is larger than
// `above_bytes` gets it from the OS (glibc serves such sizes with mmap, 32 MiB at most), whose
// pages fault in as the op first writes them: time += output bytes / bytes_per_s
// (model/roofline.cpp). 0: none (GPUs; frameworks that cache their allocations).
struct AllocationSpec {
  double above_bytes = 0;
  double bytes_per_s = 0;
};

struct DeviceSpec {
  std::string name;   // instance name in the system ("gpu0")
  std::string model;  // "Tesla P100 SXM2 16GB"
  std::string file;   // where it was read
  DeviceKind kind = DeviceKind::kGpu;
  int parallel_units = 1;  // SMs or cores
  double clock_hz = 0;
  std::map<Precision, PeakRate> peak;
  MemorySpec memory;
  AllocationSpec allocation;
  double launch_latency_s = 0;
  int copy_engines = 1;
  bool calibrated = false;
  std::string calibration_source;
  std::map<EfficiencyKey, ClassEfficiency> efficiency;  // by entry, `default` included
  std::vector<Assumption> assumptions;                  // defaults applied while loading

  // The peak for `p`, falling back to fp32 for tf32 when the device has no TF32 unit.
  // nullopt when the device has no rate at that precision.
  std::optional<PeakRate> peak_for(Precision p) const;
  // The class entry of `op_class`, or the `default` entry.
  const ClassEfficiency& efficiency_for(OpClass op_class) const;
  // The `default` entry (every loaded device has one).
  const ClassEfficiency& default_efficiency() const;
};

struct LinkSpec {
  std::string name;
  std::string from;
  std::string to;
  std::string model;
  double bandwidth_bytes_per_s = 0;  // nominal, per direction
  double latency_s = 0;
  double h2d_pinned = 0;  // achieved bandwidths (B/s), host to device / device to host
  double d2h_pinned = 0;
  double h2d_pageable = 0;
  double d2h_pageable = 0;
  // Achieved device-to-device bandwidth per direction (B/s, CUDA p2pBandwidthLatencyTest);
  // nullopt when not measured.
  std::optional<double> p2p_bytes_per_s;
  bool calibrated = false;
  std::vector<Assumption> assumptions;

  // What a device-to-device transfer (a collective's step) gets per direction: `p2p` when
  // measured, else the nominal bandwidth (hw::Topology says so in its assumptions).
  double p2p_bandwidth() const { return p2p_bytes_per_s.value_or(bandwidth_bytes_per_s); }
};

// The network between the nodes of a multi-node system: one NIC link (`link`, the network
// file) from each `attach` device or switch of every node to one non-blocking fabric switch.
struct NetworkSpec {
  LinkSpec link;
  std::vector<std::string> attach;  // device or switch names of one node; twice: two NICs
};

enum class SyncPoint { kEndOfStep, kAfterLoss, kNone };

// The framework's host runtime (docs/architecture.md "Host runtime"): what the host thread
// spends issuing each op, beyond the device's own time for it.

// One op class's framework call: host time of one forward call and of one backward op (the
// call's argument checks, dispatch, library descriptor and heuristic work, allocations and
// launches), and the kernels one call launches (each beyond the first adds the device's launch
// latency to the op's device time).
struct OpHostCost {
  double host_s = 0;
  double backward_s = 0;
  int kernels = 1;
  std::string source;
};

// Host costs outside the operators, one per key of the runtime's `engine` map.
enum class EngineCost {
  kBackwardNode,      // autograd engine, per layer's backward node
  kAccumulateGrad,    // per parameter tensor whose gradient the backward pass produces
  kZeroGradPerParam,  // optimizer.zero_grad(), per parameter tensor, at the step's start
  kAutocastCast,      // one cast op inserted by autocast (instead of its class's host cost)
  kGraphReplay,       // launching a captured graph, per step (graph_capture)
  // Recording a layer's forward call under autograd (training): its node, saved tensors and
  // edges. `ops.<class>.host` is the call without it (inference runs eval + no_grad).
  kAutogradRecord,
  // A training step's host time per layer call that no profiler row records: the Python
  // around the module call under autograd, the teardown of the graph it builds.
  kModuleCall,
};
inline constexpr int kEngineCostCount = 7;
struct EngineCostSpec {
  EngineCost cost;
  std::string_view key;
  std::string_view description;
  std::string_view fallback;  // what is used when the file does not give it
};
// The table the schema, loader and `describe hw` read.
const std::vector<EngineCostSpec>& engine_cost_specs();

// How the optimizer's update runs: one call per parameter tensor (PyTorch's for-loop
// implementation, TensorFlow's per-variable ApplyMomentum), multi-tensor calls over all of them
// (`foreach`, PyTorch's default on CUDA), or one fused kernel per chunk (`fused=True`).
enum class OptimizerImpl { kLoop, kForeach, kFused };
std::string_view optimizer_impl_name(OptimizerImpl i);
struct OptimizerRuntime {
  OptimizerImpl impl = OptimizerImpl::kLoop;
  std::optional<double> step_s;       // host per optimizer.step() call
  std::optional<double> per_param_s;  // host per parameter tensor (loop: its update call)
  int kernels = 1;  // per update op (loop: per tensor; foreach and fused: per step)
  std::string source;
};

// How the framework's collective library runs (the runtime's `collectives` map;
// model/collective.h costs them). Absent keys take the schema's defaults, each listed in
// `assumptions` (not in RuntimeSpec::assumptions: a single-device prediction uses none).
enum class CollectiveAlgorithmChoice { kAuto, kRing, kTree };
std::string_view collective_algorithm_choice_name(CollectiveAlgorithmChoice c);
// How data-parallel training exchanges its gradients (graphs::GradientExchange lowers them,
// model/collective.h costs them): PyTorch DDP's bucketed all-reduce; TensorFlow 1.x's
// replicated variables (one NCCL all-reduce per variable); TensorFlow 1.x's parameter server
// with the variables on the host CPU or spread over the GPUs (--local_parameter_device).
enum class VariableUpdate { kDdp, kReplicated, kParameterServerCpu, kParameterServerGpu };
// The names, in the enum's order: "ddp", "replicated", "parameter-server-cpu",
// "parameter-server-gpu".
const std::vector<std::string>& variable_update_names();
std::string_view variable_update_name(VariableUpdate v);
// nullopt for a name not in variable_update_names().
std::optional<VariableUpdate> parse_variable_update(std::string_view name);

struct CollectiveSpec {
  std::string library;  // "nccl-2"; empty when not given
  CollectiveAlgorithmChoice algorithm = CollectiveAlgorithmChoice::kAuto;
  VariableUpdate variable_update = VariableUpdate::kDdp;
  double step_latency_s = 0;    // time of one ring or tree step, its hop included
  double bucket_cap_bytes = 0;  // gradient bucket of data-parallel training
  // Whether the library moves data over links that join two accelerators directly (NVLink);
  // false: only through the host's tree (PCIe switches, root complexes, the sockets' link), as
  // NCCL 1.x on the DGX-1 (P100) did (Tartan, shared/data/published/dgx1-p100-tartan).
  bool peer_links = true;
  // The library's achieved bandwidth per direction of a hop over links of a model, in place of
  // the link file's p2p (hw::Topology's collective view); each model one a link of the system
  // has (load_system checks).
  struct LinkBandwidth {
    std::string link_model;
    double bytes_per_s = 0;
  };
  std::vector<LinkBandwidth> link_bandwidth;
  std::string source;
  std::vector<Assumption> assumptions;  // defaults applied while loading
};

// Values absent from the file resolve through the accessors (the fallbacks they name), so a
// what-if that changes dispatch_per_op changes everything that falls back on it.
struct RuntimeSpec {
  std::string name;
  double dispatch_per_op_s = 0;  // host time of an op whose class has no `ops` entry
  std::vector<std::optional<OpHostCost>> ops =
      std::vector<std::optional<OpHostCost>>(kOpClassCount);  // by OpClass
  std::vector<std::optional<double>> engine =
      std::vector<std::optional<double>>(kEngineCostCount);  // by EngineCost
  std::vector<std::string> engine_sources = std::vector<std::string>(kEngineCostCount);
  OptimizerRuntime optimizer;
  double sync_latency_s = 0;  // host<->device round trip at a synchronization point
  SyncPoint sync = SyncPoint::kEndOfStep;
  bool graph_capture = false;  // the step replayed from a captured graph
  bool compile = false;        // elementwise chains fused into one kernel each
  bool pinned_inputs = true;
  bool calibrated = false;
  CollectiveSpec collectives;
  std::vector<Assumption> assumptions;

  // Host time of one op of class `c` (a backward op when `backward`): its `ops` entry, else
  // dispatch_per_op.
  double op_host_s(OpClass c, bool backward) const;
  int op_kernels(OpClass c) const;
  bool op_given(OpClass c) const { return ops[static_cast<std::size_t>(c)].has_value(); }
  // The engine cost, or its fallback (engine_cost_specs).
  double cost(EngineCost c) const;
  bool cost_given(EngineCost c) const { return engine[static_cast<std::size_t>(c)].has_value(); }
  // optimizer.step / per_param, or their fallbacks (0 or dispatch_per_op by implementation).
  double optimizer_step_s() const;
  double optimizer_per_param_s() const;
};

// A vertex of the topology that forwards and computes nothing: a PCIe switch (a DGX-1's PLX
// switches, two GPUs behind each). Links join it to devices and to other switches; transfers
// pass through it (hw::Topology), so the links beyond it are shared by the devices behind it.
struct SwitchSpec {
  std::string name;   // "plx0"
  std::string model;  // "PLX PEX 8764 PCIe 3.0 switch"
};

// How an accelerator's copies reach the CPU that drives it (SystemSpec::host_route).
struct HostRoute {
  const DeviceSpec* host = nullptr;  // the CPU
  const LinkSpec* link = nullptr;    // the accelerator's own link on the way (nullptr: none)
};

struct SystemSpec {
  std::string name;
  std::string description;
  std::string file;
  std::vector<DeviceSpec> devices;
  std::vector<SwitchSpec> switches;  // per node, like devices
  std::vector<LinkSpec> links;
  RuntimeSpec runtime;
  std::string default_device;
  // The measured runs validating this system (`measured_runs`, resolved against the file's
  // folder; it may not exist); empty when not given.
  std::string measured_runs;
  // Identical nodes (`nodes: N`), each with `devices` and `links`, joined by `network`
  // (present exactly when nodes > 1). hw::Topology names node k's devices "n<k>.<device>".
  int nodes = 1;
  std::optional<NetworkSpec> network;

  // Throws UserError listing the valid names when `name` is not a device.
  const DeviceSpec& device(const std::string& name) const;
  // The CPU that drives `accelerator` and the accelerator's own link toward it: a CPU linked to
  // it directly (the first in device order, by the first link between them); else, through
  // PCIe switches, the first of its links in file order that leads to a switch from which a
  // chain of switches reaches a CPU, and the first CPU a breadth-first walk from that switch
  // meets. {first CPU, nullptr} when no CPU is reached; {nullptr, nullptr} without a CPU.
  HostRoute host_route(const std::string& accelerator) const;
  // host_route(accelerator).host.
  const DeviceSpec* host_of(const std::string& accelerator) const;
  // The link joining a and b in either direction, or nullptr.
  const LinkSpec* link_between(const std::string& a, const std::string& b) const;
  // Whether `name` is one of `switches`.
  bool is_switch(const std::string& name) const;
  // By device name, the index in `links` of host_route(d).link, for every device that is not
  // a CPU and has one. O((devices + links) log devices) without switches, where asking
  // host_route per device is O(devices x links).
  std::map<std::string, std::size_t, std::less<>> host_links() const;
  // Every link whose model is `from.model` (the network's NIC link too) takes `to`'s model
  // and numbers (bandwidths, latency, p2p, calibration), keeping its name and its ends. Returns
  // the names of the links replaced ("network" for the NIC link); none is not an error here.
  std::vector<std::string> replace_links(const LinkSpec& from, const LinkSpec& to);
  // Whether any number used from this system is uncalibrated.
  std::vector<std::string> uncalibrated_parts() const;
};

}  // namespace amdahl::hw
