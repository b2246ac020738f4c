// A DeepBench RNN row is costed over its timesteps as predict lowers a recurrent layer: per
// step the recurrent GEMM and the pointwise cell, each one launch, taken from the lowering of
// the one-layer network (calibrate/measured_op.h, graphs/ops/recurrent.cpp).

#include <catch2/catch.hpp>

#include "calibrate/calibration.h"
#include "calibrate/measured_op.h"
#include "synthetic_gpu.h"

using namespace amdahl;
using namespace amdahl::calibrate;

namespace {
// DeepBench's LSTM, hidden 512, batch 64, 25 steps: 2 G H H N T FLOPs (deepbench.cpp).
constexpr double kG = 4, kH = 512, kN = 64, kT = 25, kE = 4;  // gates, fp32 elements
Measurement lstm_row(const std::string& bench) {
  const double flops = 2.0 * kG * kH * kH * kN * kT;
  return Measurement{
      bench,  "rnn",
      "fp32", {{"type", "lstm"}, {"hidden", "512"}, {"batch", "64"}, {"timesteps", "25"}},
      flops,  1e7,
      2.7e-3, 1};
}
}  // namespace

TEST_CASE("an RNN row runs its timesteps as a recurrent GEMM and a pointwise cell each",
          "[calibrate][rnn]") {
  const std::vector<Sample> samples =
      to_samples({lstm_row("rnn_fwd"), lstm_row("rnn_bwd_data"), lstm_row("rnn_bwd_filter")});
  const double nh = kN * kH, gates = kN * kG * kH;  // per step: hidden units, gate values

  // Forward (training, as DeepBench times it), per step: h W_hh^T (N x GH x H, reads h and
  // W_hh, writes the gates), then the cell (LSTM, two bias vectors: 4 (1 + 2) + 24 FLOPs a
  // unit; reads both projections, the biases and c; writes h, c and the gates it keeps for
  // the backward pass).
  const Sample& fwd = samples[0];
  REQUIRE(fwd.parts.size() == 2);
  const SamplePart &gemm = fwd.parts[0], &cell = fwd.parts[1];
  CHECK(gemm.count == kT);
  CHECK(cell.count == kT);
  CHECK(gemm.op.flops == 2 * nh * kG * kH);
  CHECK(gemm.op.gemm.m == 64);
  CHECK(gemm.op.gemm.n == 4 * 512);
  CHECK(gemm.op.gemm.k == 512);
  CHECK(gemm.op.bytes_read == kE * (nh + kG * kH * kH));
  CHECK(gemm.op.bytes_written == kE * gates);
  CHECK(fwd.op.gemm.n == gemm.op.gemm.n);  // the step's GEMM stands for the row
  CHECK(cell.op.gemm.empty());
  CHECK(cell.op.flops == (4 * (1 + 2) + 24) * nh);
  CHECK(cell.op.bytes_read == kE * (2 * gates + 2 * kG * kH + nh));
  CHECK(cell.op.bytes_written == kE * (2 * nh + gates));

  // Data gradient, per step: the cell's gradient (27 FLOPs a unit), then d(gates) W_hh
  // (N x H x GH), which the first step does not need (no initial-state gradient).
  const Sample& data = samples[1];
  REQUIRE(data.parts.size() == 2);
  CHECK(data.parts[0].count == kT);
  CHECK(data.parts[0].op.gemm.empty());
  CHECK(data.parts[0].op.flops == 27 * nh);
  CHECK(data.parts[1].count == kT - 1);
  CHECK(data.parts[1].op.gemm.m == 64);
  CHECK(data.parts[1].op.gemm.n == 512);
  CHECK(data.parts[1].op.gemm.k == 4 * 512);
  CHECK(data.op.phase == Phase::kBackwardData);
  CHECK(data.op.gemm.k == 4 * 512);

  // The weight gradient: one GEMM over every step, dW_hh = d(gates)^T h (GH x H x N T), the
  // row's FLOPs.
  const Sample& filter = samples[2];
  CHECK(filter.parts.empty());
  CHECK(filter.op.gemm.m == 4 * 512);
  CHECK(filter.op.gemm.n == 512);
  CHECK(filter.op.gemm.k == 64 * 25);
  CHECK(filter.op.flops == lstm_row("rnn_bwd_filter").flops);

  // Each step pays two launches and two class latencies, as predict's per-step ops do.
  hw::DeviceSpec device = test::synthetic_gpu();
  device.efficiency[hw::entry("rnn")] = hw::ClassEfficiency{0.9, 0.8};
  const double without = predict_time(fwd, device);
  const double filter_without = predict_time(filter, device);
  device.efficiency[hw::entry("rnn")].latency_s = 10e-6;
  CHECK(predict_time(fwd, device) - without == Approx(2 * kT * 10e-6));
  CHECK(predict_time(filter, device) - filter_without == Approx(10e-6));  // one op
}

TEST_CASE("RNN gates and cell types come from the registry's recurrent layers",
          "[calibrate][rnn]") {
  CHECK(rnn_gates("vanilla") == 1);
  CHECK(rnn_gates("lstm") == 4);
  CHECK(rnn_gates("gru") == 3);
  CHECK_THROWS_WITH(rnn_gates("mgu"), Catch::Contains("unknown RNN type 'mgu'") &&
                                          Catch::Contains("vanilla, lstm, gru"));
  Measurement no_type = lstm_row("rnn_fwd");
  no_type.shape.erase("type");
  CHECK_THROWS_WITH(to_operator(no_type), Catch::Contains("no 'type'"));
}
