// The importer of kernels timed through PyTorch (calibrate/torch_kernels.h), the call overhead
// those rows carry (calibrate/call_overhead.h) and the tensor-core alignment rule
// (model/efficiency.h) that their GEMMs showed.
#include "calibrate/torch_kernels.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "calibrate/calibration.h"
#include "calibrate/call_overhead.h"
#include "model/efficiency.h"
#include "scratch_dir.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;
namespace fs = std::filesystem;

using amdahl::test::scratch_file;

namespace {
const std::string kH200 = std::string(AMDAHL_SHARED_DIR) + "/data/h200";

const Measurement& find(const MeasurementSet& set, const std::string& bench,
                        const std::map<std::string, std::string>& keys) {
  for (const auto& m : set.rows) {
    if (m.bench != bench) continue;
    bool all = true;
    for (const auto& [k, v] : keys) all = all && m.shape.count(k) && m.shape.at(k) == v;
    if (all) return m;
  }
  FAIL("no row " << bench);
  throw 0;
}

// A copy of shared/data/h200 with `file` replaced by `text`, in a fresh folder.
std::string altered(const std::string& name, const std::string& file, const std::string& text) {
  const fs::path dir = scratch_file("torch_kernels_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "kernels");
  fs::copy_file(kH200 + "/info.json", dir / "info.json");
  for (const char* f : {"gemm.csv", "conv.csv", "rnn.csv", "micro.csv"})
    fs::copy_file(kH200 + "/kernels/" + f, dir / "kernels" / f);
  std::ofstream(dir / file, std::ios::trunc) << text;
  return dir.string();
}
}  // namespace

TEST_CASE("PyTorch kernel timings become measurements counted by the registry",
          "[calibrate][torch]") {
  const MeasurementSet set = read_torch_kernels(kH200);
  // README.md of the data: 116 GEMM rows, 72 convolutions x 3 directions, 14 RNN calls x 2,
  // 78 micro rows.
  CHECK(set.rows.size() == 116 + 72 * 3 + 14 * 2 + 78);
  CHECK(set.provenance.at("framework") == "pytorch 2.11.0+cu130");
  CHECK(set.provenance.at("driver") == "580.159.04");

  const Measurement& bf = find(set, "gemm", {{"m", "1760"}, {"n", "7133"}, {"k", "1760"}});
  CHECK(bf.flops == 2.0 * 1760 * 7133 * 1760);
  CHECK(bf.shape.at("ta") == "T");
  CHECK(bf.shape.at("timing") == "event");

  // The first conv row: N 32, C 3, 224x224, K 64, 7x7 stride 2 pad 3: P = Q = 112.
  const Measurement& c = find(set, "conv_bwd_filter", {{"c", "3"}, {"r", "7"}});
  CHECK(c.flops == 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7);
  CHECK(c.time_s == Approx(548.5759973526001e-6));

  // Memory-bound micro rows: an add reads two fp32 operands and writes one, a ReLU reads and
  // writes one; a device copy reads and writes every byte.
  const Measurement& add = find(set, "elementwise_add", {{"elements", "1048576"}});
  CHECK(add.bytes == 12.0 * 1048576);
  const Measurement& relu = find(set, "elementwise_relu", {{"elements", "1048576"}});
  CHECK(relu.bytes == 8.0 * 1048576);
  const Measurement& copy = find(set, "copy_d2d", {{"bytes", "1048576"}});
  CHECK(copy.bytes == 2.0 * 1048576);
  const Measurement& pageable = find(set, "copy_h2d_pageable", {{"bytes", "4096"}});
  CHECK(pageable.shape.at("timing") == "wall");
  // 1000 replayed kernels in 1096.06 us: one row per kernel.
  const Measurement& graph = find(set, "graph_launch", {});
  CHECK(graph.time_s == Approx(1096.0639715194702e-9));
  CHECK(graph.shape.at("kernels") == "1000");
}

TEST_CASE("a malformed PyTorch kernel file is a located error", "[calibrate][torch][errors]") {
  const std::string header = "precision,m,n,k,transA,transB,median_us,min_us,tflops\n";
  CHECK_THROWS_WITH(
      read_torch_kernels(altered("time", "kernels/gemm.csv",
                                 header + "fp32,128,128,128,N,N,31.8,30,0.1\n"
                                          "fp32,256,256,256,N,N,-3,35,0.9\n")),
      Catch::Contains("gemm.csv:3: column median_us: expected a time from 1 ns to 1e+04 s (got "
                      "'-3')"));
  CHECK_THROWS_WITH(read_torch_kernels(altered("text", "kernels/gemm.csv",
                                               header + "fp32,128,128,128,N,N,fast,30,0.1\n")),
                    Catch::Contains("gemm.csv:2: column median_us") && Catch::Contains("'fast'"));
  CHECK_THROWS_WITH(read_torch_kernels(altered("precision", "kernels/gemm.csv",
                                               header + "fp8,128,128,128,N,N,31.8,30,0.1\n")),
                    Catch::Contains("gemm.csv:2: column precision: unknown precision 'fp8'") &&
                        Catch::Contains("fp32, tf32, fp16, bf16"));
  CHECK_THROWS_WITH(
      read_torch_kernels(altered("column", "kernels/gemm.csv",
                                 "precision,m,n,transA,transB,median_us\nfp32,1,1,N,N,3\n")),
      Catch::Contains("gemm.csv") && Catch::Contains("k"));
  CHECK_THROWS_WITH(
      read_torch_kernels(altered("bench", "kernels/micro.csv",
                                 "bench,bytes_or_elems,median_us,min_us\nad_fp32,1024,22,20\n")),
      Catch::Contains("micro.csv:2: column bench: unknown benchmark 'ad_fp32'") &&
          Catch::Contains("add_fp32"));
  CHECK_THROWS_WITH(
      read_torch_kernels(altered("cell", "kernels/rnn.csv",
                                 "cell,hidden,batch,timesteps,layers,fwd_us,fwd_bwd_us\n"
                                 "lsmt,512,16,25,1,494,1904\n")),
      Catch::Contains("rnn.csv:2: column cell: unknown cell 'lsmt'"));
  // Dims are whole numbers in decimal digits (parse_whole), as in every other measurement file:
  // no fraction, no exponent, nothing past 2^53.
  CHECK_THROWS_WITH(read_torch_kernels(altered("dim", "kernels/gemm.csv",
                                               header + "fp32,128.0,128,128,N,N,31.8,30,0.1\n")),
                    Catch::Contains("gemm.csv:2: column m: expected a whole number from 1 to "
                                    "9007199254740992 (got '128.0')"));
  CHECK_THROWS_WITH(
      read_torch_kernels(
          altered("exponent", "kernels/gemm.csv", header + "fp32,128,1e3,128,N,N,31.8,30,0.1\n")),
      Catch::Contains("gemm.csv:2: column n: expected a whole number") && Catch::Contains("'1e3'"));
  const std::string conv = "precision,N,C,H,W,K,R,S,stride,pad,fwd_us,bwd_data_us,bwd_filter_us\n";
  CHECK_THROWS_WITH(
      read_torch_kernels(
          altered("pad", "kernels/conv.csv", conv + "fp32,32,3,224,224,64,7,7,2,-1,435,579,548\n")),
      Catch::Contains("conv.csv:2: column pad: expected a whole number from 0 to"));
  CHECK_NOTHROW(read_torch_kernels(
      altered("pad0", "kernels/conv.csv", conv + "fp32,32,64,56,56,64,1,1,1,0,74,127,165\n")));
  CHECK_THROWS_WITH(read_torch_kernels("/nonexistent-folder"),
                    Catch::Contains("info.json: no such file"));
}

TEST_CASE("the call overhead of event-timed rows is separated from the kernel",
          "[calibrate][torch][call_overhead]") {
  // Synthetic rows of one elementwise bench: the host takes 20 us per call, 8 of them before the
  // kernel starts; the kernel takes the 1 us launch latency plus bytes at 4 TB/s.
  constexpr double kHost = 20e-6, kBefore = 8e-6, kLaunch = 1e-6, kBandwidth = 4e12;
  std::vector<Measurement> rows;
  for (double bytes : {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 4e9}) {
    Measurement m;
    m.bench = "elementwise_add";
    m.op_class = "elementwise";
    m.precision = "fp32";
    m.shape = {{"timing", "event"}, {"elements", "1"}};
    m.bytes = bytes;
    m.time_s = std::max(kHost, kBefore + kLaunch + bytes / kBandwidth);
    rows.push_back(m);
  }
  const CallOverheads o = estimate_call_overheads(rows, kLaunch);
  REQUIRE(o.by_bench.count("elementwise_add"));
  CHECK(o.by_bench.at("elementwise_add").host_s == Approx(kHost).epsilon(1e-9));
  CHECK(o.by_bench.at("elementwise_add").before_kernel_s == Approx(kBefore).epsilon(1e-6));
  // A row not timed around a call has none.
  Measurement alone = rows.front();
  alone.shape.erase("timing");
  CHECK(o.of(alone).host_s == 0);

  // Without a size sweep that leaves the host floor, the tail cannot be told: an error.
  rows.resize(3);
  CHECK_THROWS_WITH(estimate_call_overheads(rows, kLaunch),
                    Catch::Contains("need an elementwise size sweep"));
}

TEST_CASE("tensor-core ops off 16-byte alignment are told apart", "[calibrate][torch][model]") {
  graphs::Operator op;
  op.op_class = OpClass::kGemm;
  op.gemm = {5124, 9124, 2560, 1};
  op.precision = Precision::kBf16;
  op.dtype = graphs::DType::kBf16;
  CHECK_FALSE(model::tensor_core_aligned(op));  // 5124 and 9124 are not multiples of 8
  op.precision = Precision::kTf32;
  op.dtype = graphs::DType::kF32;
  CHECK(model::tensor_core_aligned(op));  // multiples of 4 four-byte elements
  op.gemm.n = 7133;
  CHECK_FALSE(model::tensor_core_aligned(op));
  op.precision = Precision::kFp32;  // SIMT kernels: no alignment term
  CHECK(model::tensor_core_aligned(op));
}
