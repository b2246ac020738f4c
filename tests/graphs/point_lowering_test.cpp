// graphs::PointLowering: the numbers re-evaluated on a kept structure equal a fresh bind +
// lower at the same point, exactly: the numeric pass runs the same rules on the same
// integers in the same order, so not even the floating-point rounding may differ.

#include "graphs/point_lowering.h"

#include <catch2/catch.hpp>

#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "model/prediction.h"

#ifdef AMDAHL_WITH_ONNX_IMPORT
#include "graphs/onnx/onnx_import.h"
#endif

using namespace amdahl;
using namespace amdahl::graphs;

namespace {

// Every field of every op, every edge with its bytes, the weights and the memory.
void require_same(const LoweredNetwork& got, const LoweredNetwork& want) {
  REQUIRE(got.graph.size() == want.graph.size());
  REQUIRE(got.graph.edge_count() == want.graph.edge_count());
  auto& got_graph = const_cast<OpGraph&>(got.graph);
  auto& want_graph = const_cast<OpGraph&>(want.graph);
  for (OpId id = 0; id < want.graph.size(); ++id) {
    const Operator& a = got.graph.op(id);
    const Operator& b = want.graph.op(id);
    INFO("op " << id << " " << b.name);
    CHECK(a.name == b.name);
    CHECK(a.layer == b.layer);
    CHECK(a.kind == b.kind);
    CHECK(a.op_class == b.op_class);
    CHECK(a.phase == b.phase);
    CHECK(a.precision == b.precision);
    CHECK(a.dtype == b.dtype);
    CHECK(a.input_elements == b.input_elements);
    CHECK(a.output_shape == b.output_shape);
    CHECK(a.flops == b.flops);
    CHECK(a.bytes_read == b.bytes_read);
    CHECK(a.bytes_written == b.bytes_written);
    CHECK(a.in_place == b.in_place);
    CHECK(a.gemm.m == b.gemm.m);
    CHECK(a.gemm.n == b.gemm.n);
    CHECK(a.gemm.k == b.gemm.k);
    CHECK(a.gemm.batch == b.gemm.batch);
    CHECK(a.conv_kernel == b.conv_kernel);
    CHECK(a.conv_stride == b.conv_stride);
    CHECK(a.conv_batch == b.conv_batch);
    CHECK(a.conv_groups == b.conv_groups);
    CHECK(a.conv_input_elements == b.conv_input_elements);
    CHECK(a.conv_output_elements == b.conv_output_elements);
    const auto preds = want.graph.predecessors(id);
    CHECK(got.graph.predecessors(id) == preds);
    for (OpId p : preds) CHECK(got_graph.edge_bytes(p, id) == want_graph.edge_bytes(p, id));
  }
  REQUIRE(got.weights.size() == want.weights.size());
  for (std::size_t w = 0; w < want.weights.size(); ++w) {
    CHECK(got.weights[w].name == want.weights[w].name);
    CHECK(got.weights[w].elements == want.weights[w].elements);
  }
  CHECK(got.parameters == want.parameters);
  CHECK(got.replicas == want.replicas);
  CHECK(got.exchange == want.exchange);
  REQUIRE(got.buckets.size() == want.buckets.size());
  for (std::size_t b = 0; b < want.buckets.size(); ++b) {
    CHECK(got.buckets[b].weights == want.buckets[b].weights);
    CHECK(got.buckets[b].bytes == want.buckets[b].bytes);
    CHECK(got.buckets[b].op == want.buckets[b].op);
  }
  CHECK(got.input_bytes == want.input_bytes);
  CHECK(got.micro_batch_end == want.micro_batch_end);
  CHECK(got.memory.weights_bytes == want.memory.weights_bytes);
  CHECK(got.memory.gradients_bytes == want.memory.gradients_bytes);
  CHECK(got.memory.optimizer_state_bytes == want.memory.optimizer_state_bytes);
  CHECK(got.memory.activations_bytes == want.memory.activations_bytes);
  CHECK(got.memory.workspace_bytes == want.memory.workspace_bytes);
  CHECK(got.memory.peak_bytes == want.memory.peak_bytes);
}

double step_time(const LoweredNetwork& net, std::int64_t batch) {
  static const hw::SystemSpec system = hw::load_system("minsky");
  model::PredictOptions o;
  o.batch = batch;
  return model::predict(net, system, o).step_time_s;
}

// Sizes that set a sequence or memory length in the zoo, varied besides the batch.
const std::vector<std::string> kLengths = {"seq_len", "enc_len",  "dec_len",  "frames",
                                           "memory",  "sentence", "label_len"};

// The points of a zoo network's sweep: the batch, then each length halved and back.
std::vector<Bindings> points_of(const Network& net) {
  std::vector<Bindings> points = {{{"batch", 2}}, {{"batch", 3}}, {{"batch", 8}}};
  for (const auto& s : net.sizes)
    if (std::find(kLengths.begin(), kLengths.end(), s.name) != kLengths.end() &&
        s.default_value >= 4) {
      points.push_back({{"batch", 3}, {s.name, s.default_value / 2}});
      points.push_back({{"batch", 3}, {s.name, s.default_value}});
    }
  return points;
}

}  // namespace

TEST_CASE("PointLowering: every zoo network re-evaluated equals a fresh bind + lower",
          "[graphs][point_lowering]") {
  const std::string name = GENERATE(from_range(zoo_names()));
  const auto net = std::make_shared<const Network>(load_zoo_network(name));
  LoweringOptions options;
  options.mode = GENERATE(Mode::kTrain, Mode::kInfer);
  INFO(name << " " << mode_name(options.mode));
  PointLowering points(net, options);
  for (const Bindings& point : points_of(*net)) {
    INFO("batch " << point.at("batch") << ", " << point.size() << " sizes set");
    const LoweredNetwork fresh = lower(bind_sizes(*net, point), options);
    const LoweredNetwork& got = points.at(point);
    require_same(got, fresh);
    CHECK(step_time(got, point.at("batch")) == step_time(fresh, point.at("batch")));
  }
  // The batch sets no structure: only the first point was lowered from the description
  // (lengths may unroll recurrent layers: those re-lower, see below).
  if (points_of(*net).size() == 3) CHECK(points.full_lowerings() == 1);
}

TEST_CASE("PointLowering: mixed precision, accumulation and a fused optimizer re-evaluate too",
          "[graphs][point_lowering]") {
  const std::string name = GENERATE("resnet18", "bert-base", "seq2seq");
  const auto net = std::make_shared<const Network>(load_zoo_network(name));
  LoweringOptions options;
  options.precision = GENERATE(Precision::kFp16, Precision::kBf16);
  options.accumulation_steps = 2;
  options.fused_optimizer = GENERATE(false, true);
  options.data_parallel.replicas = GENERATE(1, 4);
  INFO(name << ", " << options.data_parallel.replicas << " replicas");
  PointLowering points(net, options);
  for (std::int64_t batch : {4, 5, 16}) {
    const Bindings point{{"batch", batch}};
    require_same(points.at(point), lower(bind_sizes(*net, point), options));
  }
  CHECK(points.full_lowerings() == 1);
}

TEST_CASE("PointLowering: one exchange per variable re-evaluates too", "[graphs][point_lowering]") {
  // The variables' exchanges launch as their gradients complete, not in bucket order.
  const auto net = std::make_shared<const Network>(load_zoo_network("resnet18"));
  LoweringOptions options;
  options.data_parallel.replicas = 4;
  options.data_parallel.exchange =
      GENERATE(GradientExchange::kAllReduce, GradientExchange::kParameterServer);
  PointLowering points(net, options);
  for (std::int64_t batch : {4, 16}) {
    const Bindings point{{"batch", batch}};
    require_same(points.at(point), lower(bind_sizes(*net, point), options));
  }
  CHECK(points.full_lowerings() == 1);
}

TEST_CASE("PointLowering: a size that changes the structure lowers afresh",
          "[graphs][point_lowering]") {
  SECTION("a repeat count (bert-base layers)") {
    const auto net = std::make_shared<const Network>(load_zoo_network("bert-base"));
    PointLowering points(net, LoweringOptions{});
    const Bindings two{{"batch", 2}, {"layers", 2}}, three{{"batch", 2}, {"layers", 3}};
    const std::size_t ops_two = points.at(two).graph.size();
    CHECK(points.full_lowerings() == 1);
    require_same(points.at(three), lower(bind_sizes(*net, three), LoweringOptions{}));
    CHECK(points.full_lowerings() == 2);
    CHECK(points.at(three).graph.size() > ops_two);
    // Back to two layers: the structure changes again; another batch at two does not.
    require_same(points.at(two), lower(bind_sizes(*net, two), LoweringOptions{}));
    CHECK(points.full_lowerings() == 3);
    const Bindings wider{{"batch", 7}, {"layers", 2}};
    require_same(points.at(wider), lower(bind_sizes(*net, wider), LoweringOptions{}));
    CHECK(points.full_lowerings() == 3);
  }
  SECTION("a switch (vgg's vgg16 variant)") {
    const auto net = std::make_shared<const Network>(load_zoo_network("vgg"));
    PointLowering points(net, LoweringOptions{});
    for (std::int64_t v : {0, 1}) {
      const Bindings point{{"batch", 2}, {"vgg16", v}};
      require_same(points.at(point), lower(bind_sizes(*net, point), LoweringOptions{}));
    }
    CHECK(points.full_lowerings() == 2);
  }
  SECTION("a sequence length that unrolls a recurrent layer over more steps (seq2seq)") {
    const auto net = std::make_shared<const Network>(load_zoo_network("seq2seq"));
    PointLowering points(net, LoweringOptions{});
    const Bindings short_seq{{"batch", 2}, {"enc_len", 5}}, long_seq{{"batch", 2}, {"enc_len", 6}};
    const std::size_t ops_short = points.at(short_seq).graph.size();
    require_same(points.at(long_seq), lower(bind_sizes(*net, long_seq), LoweringOptions{}));
    CHECK(points.at(long_seq).graph.size() > ops_short);
    CHECK(points.full_lowerings() == 2);
  }
}

TEST_CASE("PointLowering: an error at a point is the error a fresh lowering reports",
          "[graphs][point_lowering]") {
  const auto net = std::make_shared<const Network>(load_zoo_network("alexnet"));
  PointLowering points(net, LoweringOptions{});
  points.at({{"batch", 2}});
  const Bindings tiny{{"batch", 2}, {"image", 16}};
  std::string fresh_error;
  try {
    lower(bind_sizes(*net, tiny), LoweringOptions{});
  } catch (const std::exception& e) {
    fresh_error = e.what();
  }
  REQUIRE(!fresh_error.empty());
  CHECK_THROWS_WITH(points.at(tiny), fresh_error);
  // The next point (image 224 again) is lowered correctly after the failure.
  require_same(points.at({{"batch", 4}}),
               lower(bind_sizes(*net, {{"batch", 4}}), LoweringOptions{}));
}

#ifdef AMDAHL_WITH_ONNX_IMPORT
TEST_CASE("PointLowering: an ONNX export re-imported per point re-evaluates on one structure",
          "[graphs][point_lowering][onnx]") {
  const std::string path = std::string(AMDAHL_TESTDATA) + "/resnet50.onnx";
  INFO("missing " << path << ": run scripts/make-testdata " << AMDAHL_TESTDATA);
  PointLowering points(
      [&](const Bindings& b) { return amdahl::graphs::onnx::import_onnx(path, b); },
      LoweringOptions{});
  for (std::int64_t batch : {1, 4, 32}) {
    const Bindings point{{"batch", batch}};
    const LoweredNetwork fresh =
        lower(amdahl::graphs::onnx::import_onnx(path, point), LoweringOptions{});
    require_same(points.at(point), fresh);
    CHECK(step_time(points.at(point), batch) == step_time(fresh, batch));
  }
  CHECK(points.full_lowerings() == 1);
}
#endif
