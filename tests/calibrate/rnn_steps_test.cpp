// A DeepBench RNN row is costed over its timesteps as predict lowers a recurrent layer: per
// step the recurrent GEMM and the pointwise cell, each one launch (calibrate/calibration.h).

#include <catch2/catch.hpp>

#include "calibrate/calibration.h"
#include "synthetic_gpu.h"

using namespace amdahl;
using namespace amdahl::calibrate;

namespace {
// DeepBench's LSTM, hidden 512, batch 64, 25 steps: 2 G H H N T FLOPs (deepbench.cpp).
Measurement lstm_row(const std::string& bench) {
  const double flops = 2.0 * 4 * 512 * 512 * 64 * 25;
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
  for (int i : {0, 1}) {
    const Sample& s = samples[static_cast<std::size_t>(i)];
    REQUIRE(s.parts.size() == 2);
    const SamplePart &gemm = s.parts[0], &cell = s.parts[1];
    CHECK(gemm.count == 25);
    CHECK(cell.count == 25);
    CHECK(gemm.op.flops == Approx(2.0 * 4 * 512 * 512 * 64));  // one step's
    CHECK(gemm.op.gemm.m == 64);
    CHECK(gemm.op.gemm.n == 4 * 512);
    CHECK(gemm.op.gemm.k == 512);
    CHECK(cell.op.gemm.empty());
    CHECK(cell.op.bytes_read == Approx(4.0 * 2 * 64 * 4 * 512));  // both projections' gates
    CHECK(cell.op.bytes_written == Approx(4.0 * 64 * 512));       // the new state
  }
  CHECK(samples[2].parts.empty());  // the weight gradient: one GEMM over every step

  // Each step pays two launches and two class latencies, as predict's per-step ops do.
  hw::DeviceSpec device = test::synthetic_gpu();
  device.efficiency[hw::entry("rnn")] = hw::ClassEfficiency{0.9, 0.8};
  const double without = predict_time(samples[0], device);
  const double filter_without = predict_time(samples[2], device);
  device.efficiency[hw::entry("rnn")].latency_s = 10e-6;
  CHECK(predict_time(samples[0], device) - without == Approx(2 * 25 * 10e-6));
  CHECK(predict_time(samples[2], device) - filter_without == Approx(10e-6));  // one op
}
