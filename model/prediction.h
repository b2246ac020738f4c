#pragma once
// predict(): place every op, cost it, simulate the step, and account for the time.
//
// The pipeline is exposed in two halves so analyses can re-simulate without re-costing:
//   cost_step(net, system, options) -> CostedStep   placement + per-op costs + schedule input
//   account(step, costs, simulate(input)) -> Prediction
// predict() is the two run back to back.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graphs/lower.h"
#include "hw/system.h"
#include "model/breakdown.h"
#include "model/collective.h"
#include "model/op_cost.h"
#include "model/placement.h"
#include "model/schedule.h"

namespace amdahl::model {

struct PredictOptions {
  std::string device;  // empty: the system's default device
  graphs::Mode mode = graphs::Mode::kTrain;
  Precision precision = Precision::kFp32;
  std::int64_t batch = 0;  // samples per step, for throughput
  PlacementSpec placement;
  // The step's inputs start on the accelerator (a harness that makes them there): their copies
  // cost nothing. Otherwise they are copied from host memory, pinned or not as the runtime says.
  bool inputs_on_device = false;
};

// A placed and costed step, ready to simulate. References `net` and `system`, which must
// outlive it.
// The longest step amdahl reports (about 30 years): a longer one comes from sizes or device
// numbers no study means, and is an error naming the op instead of a number.
inline constexpr double kMaxStepSeconds = 1e9;
// Throws UserError "`what`: the step would take X s, beyond the 1e+09 s amdahl reports" when
// `step_s` is not finite or above kMaxStepSeconds: the check every step time passes before it
// is reported (predict, whatif's re-simulations, accelerability, explore's points).
void check_step_time(double step_s, std::string_view what);

// How a framework's variable update exchanges gradients, as the step is lowered: DDP's
// buckets, one all-reduce per gradient (replicated) or a parameter server (on the CPU or GPUs).
// The one mapping between hw::VariableUpdate and graphs::GradientExchange.
graphs::GradientExchange gradient_exchange(hw::VariableUpdate update);
// The variable update a step lowered with `exchange` runs: `preferred` (the system's) when it
// lowers to that exchange, else the first in hw::variable_update_names() order that does.
hw::VariableUpdate variable_update_of(graphs::GradientExchange exchange,
                                      hw::VariableUpdate preferred);

// The devices a data-parallel step runs on and how their collectives go (model/collective.h).
struct DataParallelGroup;

struct CostedStep {
  const graphs::LoweredNetwork* net = nullptr;
  const hw::SystemSpec* system = nullptr;
  PredictOptions options;
  Placement placement;
  ScheduleInput input;  // costs and resources per op
  // Every default the costs relied on, each once (cli/assumption_text.h says them in words).
  std::vector<Assumption> assumptions;
  std::shared_ptr<const DataParallelGroup> data_parallel;  // when net->replicas > 1
  // The step's exchanges per collective algorithm, as costed (data parallel only).
  std::array<int, kCollectiveAlgorithmCount> exchanges_by_algorithm{};
};

// A data-parallel step's communication (graphs::DataParallel): its gradient buckets'
// all-reduces, their time on the collective stream, and how much of it the critical path
// shows (exposed: not hidden behind the backward pass).
// (The replica count is Prediction::gpus.)
struct Communication {
  hw::VariableUpdate variable_update = hw::VariableUpdate::kDdp;
  std::vector<std::string> devices;  // the replicas' devices
  std::string route;                 // the collective's ring or tree, as a line
  std::size_t buckets = 0;           // exchanges: DDP's buckets, or one per variable
  double bytes = 0;                  // exchanged per step (fp32 gradients)
  double busy_s = 0;                 // the exchanges' total time
  double exposed_s = 0;              // their time on the critical path
  std::string algorithms;            // the algorithm of each size class, e.g. "ring (12), tree (1)"
  // The exchanges that cross the replicas' links to their CPUs, which the copies take:
  // "the ring (both ways)"; empty when none does (model/schedule.h: they take turns there).
  std::string host_link;
  double link_wait_s = 0;  // what copies and exchanges waited for each other there
};

struct Prediction {
  std::string workload;
  std::string system;
  std::string device;        // instance name, "gpu0" (the host's when all ops run there)
  std::string device_model;  // "Tesla P100 SXM2 16GB"
  std::string placement;     // placement_text() of the options
  std::int64_t batch = 0;    // per GPU (data parallel: each replica's)
  int gpus = 1;              // data-parallel replicas
  graphs::Mode mode = graphs::Mode::kTrain;
  Precision precision = Precision::kFp32;
  double step_time_s = 0;
  double samples_per_s = 0;  // over all GPUs
  std::int64_t parameters = 0;
  graphs::MemoryFootprint memory;  // on `device` (graphs/memory_footprint.h)
  double device_memory_bytes = 0;  // the capacity of `device`
  double total_flops = 0;
  double total_bytes = 0;
  std::size_t op_count = 0;
  // Critical-path seconds; each sums to step_time_s.
  ClassBreakdown by_class;  // per op class, plus HostSlot::kDispatch for host time
  BoundBreakdown by_bound;  // per binding limit
  PhaseBreakdown by_phase;  // per phase, plus both host slots
  // Busy seconds per op class summed over all ops (ignores overlap).
  ClassBreakdown busy_by_class;
  // The host thread's time issuing ops (model/host_runtime.h), per op class and per phase,
  // plus HostSlot::kStepStart (zero_grad, a graph replay); and the device's busy time per phase
  // (ops on the accelerator's compute stream and copies). Ignore overlap.
  ClassBreakdown host_by_class;
  PhaseBreakdown host_by_phase;
  PhaseBreakdown device_by_phase;
  std::vector<OpCost> costs;  // per op, in program order
  std::vector<Resource> resources;
  Schedule schedule;
  Communication communication;  // gpus > 1
  std::vector<Assumption> assumptions;
};

// Throws UserError for an unknown device name or a placement the system cannot satisfy.
CostedStep cost_step(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                     const PredictOptions& options);

// The prediction for `step` run with `costs` (step.input.costs or scaled ones) whose
// simulated schedule is `schedule`.
Prediction account(const CostedStep& step, std::vector<OpCost> costs, Schedule schedule);

// cost_step + simulate + account. Throws as cost_step.
Prediction predict(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                   const PredictOptions& options);
// simulate + account of a step already costed (kept for other uses, e.g. accelerability).
Prediction predict(const CostedStep& step);

// Whether the host thread or the device binds the step: host-bound when host time is at least
// two thirds of the critical path, device-bound when at most one third, else mixed.
enum class StepBinding : std::uint8_t { kHostBound, kDeviceBound, kMixed };
std::string_view binding_name(StepBinding b);  // "host-bound", "device-bound", "mixed"
StepBinding step_binding(const Prediction& p);
// The same from the host's share of the critical path (by_bound dispatch / step time).
StepBinding host_binding(double share);
// The same per phase (a PhaseBreakdown slot) from host_by_phase and device_by_phase: the host
// when its time issuing the phase's ops exceeds the device's time running them.
enum class PhaseBinding : std::uint8_t { kHost, kDevice };
std::string_view binding_name(PhaseBinding b);  // "host", "device"
PhaseBinding phase_binding(const Prediction& p, int phase_slot);

// The device a step's memory footprint is held on: the accelerator, or the host when every op
// runs there (Prediction::device).
const hw::DeviceSpec& memory_device(const Placement& placement);
// Whether a footprint peaking at `peak_bytes` exceeds the `capacity_bytes` of its device (one
// without a stated capacity, 0, holds any): predict warns, explore makes the point infeasible.
bool memory_exceeded(double peak_bytes, double capacity_bytes);

// The critical path's seconds per bound (Prediction::by_bound, by Bound).
std::array<double, kBoundCount> bound_times(const Schedule& schedule);

// Step time only (no accounting): what sweeps and analyses call in their loops.
double step_time(const CostedStep& step, const std::vector<OpCost>& costs);

}  // namespace amdahl::model
