// What-if and accelerability on the zoo AlexNet on Minsky: speedup 1 reproduces the
// baseline exactly, and the Amdahl bound is the re-simulated time with the class at zero
// cost.

#include "analysis/whatif.h"

#include <catch2/catch.hpp>
#include <limits>

#include "analysis/accelerability.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;
using namespace amdahl::analysis;

namespace {

struct Alexnet {
  hw::SystemSpec system = hw::load_system("minsky");
  graphs::LoweredNetwork net;
  PredictOptions options;
  explicit Alexnet(std::int64_t batch, graphs::Mode mode = graphs::Mode::kTrain) {
    graphs::LoweringOptions lo;
    lo.mode = mode;
    net = graphs::lower(graphs::bind_sizes(graphs::load_zoo_network("alexnet"), {{"batch", batch}}),
                        lo);
    options.batch = batch;
    options.mode = mode;
  }
};

}  // namespace

TEST_CASE("parse_speedups", "[model][whatif]") {
  const ClassSpeedups s = parse_speedups("conv=10,gemm=4");
  CHECK(s.factor[static_cast<int>(OpClass::kConv)] == 10);
  CHECK(s.factor[static_cast<int>(OpClass::kGemm)] == 4);
  CHECK(s.factor[static_cast<int>(OpClass::kPooling)] == 1);
  CHECK(speedups_text(s) == "gemm=4,conv=10");
  CHECK(std::isinf(parse_speedups("conv=inf").factor[static_cast<int>(OpClass::kConv)]));
  CHECK_THROWS_WITH(parse_speedups("convv=2"), Catch::Contains("did you mean 'conv'"));
  CHECK_THROWS_AS(parse_speedups("conv=0"), UserError);
  CHECK_THROWS_AS(parse_speedups("conv=fast"), UserError);
}

TEST_CASE("a speed-up factor lies from 1e-6 to 1e6, or is inf", "[model][whatif]") {
  // The range's ends are factors; 'inf' (zero cost) only where allowed and only as written.
  CHECK(speedup_factor_error(kMinSpeedupFactor, false).empty());
  CHECK(speedup_factor_error(kMaxSpeedupFactor, false).empty());
  CHECK(speedup_factor_error(std::numeric_limits<double>::infinity(), true).empty());
  CHECK_FALSE(speedup_factor_error(std::numeric_limits<double>::infinity(), false).empty());
  CHECK_THAT(speedup_factor_error(1e-300, true),
             Catch::Contains("must be from 1e-06 to 1e+06, or inf for zero cost (got 1e-300)"));
  CHECK(parse_speedups("conv=1e-6,gemm=1e6").factor[static_cast<int>(OpClass::kGemm)] == 1e6);
  for (const char* text : {"conv=1e-300", "conv=1e300", "conv=nan", "conv=infinity", "conv=1e-320",
                           "conv=-0", "conv=0x1p-1000", "conv=-inf"}) {
    INFO(text);
    CHECK_THROWS_WITH(parse_speedups(text),
                      Catch::StartsWith(std::string("--speedup ") + text + ": the factor"));
  }
}

TEST_CASE("a what-if step beyond kMaxStepSeconds is an error, not a time", "[model][whatif]") {
  // Baseline x 1e6 (every class a million times slower) passes the cap when the baseline is
  // above 1e3 s: alexnet at batch 1e8 trains for far longer than that on Minsky.
  const Alexnet a(100000000);
  const CostedStep step = cost_step(a.net, a.system, a.options);
  REQUIRE(predict(step).step_time_s > 1e3);
  CHECK_THROWS_WITH(whatif(step, parse_speedups("conv=1e-6,gemm=1e-6")),
                    Catch::Contains("beyond the 1e+09 s amdahl reports"));
  CHECK_THROWS_AS(check_step_time(std::numeric_limits<double>::quiet_NaN(), "x"), UserError);
  CHECK_NOTHROW(check_step_time(kMaxStepSeconds, "x"));
}

TEST_CASE("whatif with speedup 1 reproduces the baseline exactly", "[model][whatif]") {
  const Alexnet a(64);
  const CostedStep step = cost_step(a.net, a.system, a.options);
  const Prediction base = predict(a.net, a.system, a.options);
  const WhatIf w = whatif(step, parse_speedups("conv=1,gemm=1"));
  CHECK(w.baseline_s == base.step_time_s);
  CHECK(w.new_s == base.step_time_s);
  CHECK(w.speedup == 1.0);
}

TEST_CASE("the Amdahl bound equals the re-simulated time with the class at zero cost",
          "[model][whatif]") {
  const Alexnet a(64);
  const CostedStep step = cost_step(a.net, a.system, a.options);
  const WhatIf w = whatif(step, parse_speedups("conv=10"));
  // Zero the conv ops by hand and simulate.
  std::vector<OpCost> zero = step.input.costs;
  for (graphs::OpId id = 0; id < zero.size(); ++id)
    if (a.net.graph.op(id).op_class == OpClass::kConv) zero[id].time_s = 0;
  const double by_hand = simulate(step.input, zero).makespan_s;
  CHECK(w.bound_s == by_hand);
  CHECK(w.bound_s < w.new_s);
  CHECK(w.new_s < w.baseline_s);
  CHECK(w.bound_speedup == Approx(w.baseline_s / by_hand));
  // Overlap only helps: the simulated speedup is at most the formula's (every conv op is on
  // the device's in-order stream behind host dispatch).
  CHECK(w.speedup <= w.amdahl_formula_speedup * (1 + 1e-9));
}

TEST_CASE("a class hidden behind host dispatch is not accelerable", "[model][whatif]") {
  // Inference at batch 1 behind a slow runtime (1 ms to dispatch an op, far above any
  // kernel's time): the host binds, so faster kernels barely help.
  Alexnet a(1, graphs::Mode::kInfer);
  a.system.runtime.dispatch_per_op_s = 1e-3;
  const CostedStep step = cost_step(a.net, a.system, a.options);
  const Accelerability acc = accelerability(step, 10);
  REQUIRE_FALSE(acc.classes.empty());
  CHECK(acc.host_share > 0.5);
  for (const auto& c : acc.classes) {
    CHECK(c.bound_s <= acc.baseline_s);
    CHECK(c.at_k_s >= c.bound_s);
    // Whatever the class, the host still dispatches every op: the step cannot beat that.
    CHECK(c.bound_speedup <= 1.0 / acc.host_share);
  }
}

TEST_CASE("accelerability bound matches whatif per class", "[model][whatif]") {
  const Alexnet a(64);
  const CostedStep step = cost_step(a.net, a.system, a.options);
  const Accelerability acc = accelerability(step, 10);
  double shares = acc.host_share;
  for (const auto& c : acc.classes) {
    shares += c.share;
    ClassSpeedups s;
    s.factor[static_cast<int>(c.op_class)] = 10;
    const WhatIf w = whatif(step, s);
    CHECK(c.bound_s == w.bound_s);
    CHECK(c.at_k_s == w.new_s);
  }
  CHECK(shares == Approx(1.0));  // the critical path covers the step
}

TEST_CASE("whatif --device: a faster accelerator helps, bounded by the host", "[model][whatif]") {
  const Alexnet a(64);
  hw::DeviceSpec faster = a.system.device("gpu0");
  for (auto& [p, rate] : faster.peak) rate.flops_per_s *= 4;
  faster.memory.bandwidth_bytes_per_s *= 4;
  faster.model = "P100 x4";
  const DeviceWhatIf w = whatif_device(a.net, a.system, a.options, faster);
  CHECK(w.changed.device_model == "P100 x4");
  CHECK(w.speedup > 1);
  CHECK(w.speedup < 4);
  CHECK(w.bound_s <= w.changed.step_time_s);
  CHECK_THROWS_AS(replace_device(a.system, "gpu9", faster), UserError);
}

TEST_CASE("runtime what-if: every mode predicted, the chosen one compared", "[model][whatif]") {
  const Alexnet a(1);
  const RuntimeMode& graph = kRuntimeModes[1];
  REQUIRE(graph.name == "graph");
  const RuntimeWhatIf w = whatif_runtime(a.net, a.system, a.options, graph);
  REQUIRE(w.modes.size() == kRuntimeModes.size());
  // The baseline is the system's own mode, and that mode's row predicts exactly the baseline.
  CHECK(w.baseline_mode == &runtime_mode_of(a.system.runtime));
  for (const auto& r : w.modes)
    if (r.mode == w.baseline_mode) CHECK(r.prediction.step_time_s == w.baseline.step_time_s);
  CHECK(&w.changed() == &w.modes[1].prediction);
  CHECK(w.speedup == Approx(w.baseline.step_time_s / w.changed().step_time_s));
  // A captured graph replays the step without issuing each op: never slower than eager.
  CHECK(w.modes[1].prediction.step_time_s <= w.modes[0].prediction.step_time_s);
}

TEST_CASE("link what-if replaces every link of a model, and names the ones it has",
          "[model][whatif]") {
  const Alexnet a(32);
  const LinkWhatIf w = whatif_link(a.net, a.system, a.options, hw::load_link("nvlink1-x2"),
                                   hw::load_link("pcie3-x16"));
  CHECK_FALSE(w.replaced.empty());
  // A narrower host link cannot make the step faster.
  CHECK(w.changed.step_time_s >= w.baseline.step_time_s);
  CHECK(w.speedup == Approx(w.baseline.step_time_s / w.changed.step_time_s));
  CHECK_THROWS_WITH(
      whatif_link(a.net, a.system, a.options, hw::load_link("pcie4-x16"),
                  hw::load_link("pcie3-x16")),
      Catch::Contains("has no PCIe 4.0 x16 link; its links: NVLink 1.0 x2, POWER8 SMP X-bus"));
}
