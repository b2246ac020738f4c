// ONNX import on small models built in memory: symbolic dims bound by --batch / --set, a
// shape subgraph (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) folded to a constant,
// MatMul + Add fused into one linear, and every bad input a one-line UserError.

#include "graphs/onnx/onnx_import.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "graphs/lower.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;
using Catch::Matchers::Contains;

namespace {

struct ModelBuilder {
  ::onnx::ModelProto model;
  ::onnx::GraphProto* g;

  explicit ModelBuilder(int opset = 14) {
    model.set_ir_version(8);
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = model.mutable_graph();
    g->set_name("test");
  }
  // dims: a number, or a symbolic name.
  void input(const std::string& name, const std::vector<std::string>& dims,
             int type = ::onnx::TensorProto::FLOAT) {
    auto* in = g->add_input();
    in->set_name(name);
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (const auto& d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0])))
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
  }
  void initializer(const std::string& name, const IntList& dims, const IntList& ints = {}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    for (auto d : dims) t->add_dims(d);
    if (ints.empty()) {
      t->set_data_type(::onnx::TensorProto::FLOAT);
      std::int64_t n = 1;
      for (auto d : dims) n *= d;
      for (std::int64_t i = 0; i < n; ++i) t->add_float_data(0.0f);
    } else {
      t->set_data_type(::onnx::TensorProto::INT64);
      for (auto v : ints) t->add_int64_data(v);
    }
  }
  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                          const std::vector<std::string>& out, const std::string& name = {}) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + std::to_string(g->node_size()) : name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  std::string save(const std::string& file) const {
    const auto path = (std::filesystem::temp_directory_path() / file).string();
    std::ofstream f(path, std::ios::binary);
    model.SerializeToOstream(&f);
    return path;
  }
};

void set_ints(::onnx::NodeProto* n, const char* name, const IntList& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}
void set_int(::onnx::NodeProto* n, const char* name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

// x [batch, seq, 64] -> MatMul W [64, 32] + b [32] -> Reshape to [batch, seq*32] computed
// from Shape(x) -> Relu.
ModelBuilder mlp_with_shape_subgraph() {
  ModelBuilder m;
  m.input("x", {"batch", "seq", "64"});
  m.initializer("W", {64, 32});
  m.initializer("b", {32});
  m.initializer("zero", {}, {0});
  m.initializer("minus_one", {1}, {-1});
  m.node("MatMul", {"x", "W"}, {"xw"}, "fc_matmul");
  m.node("Add", {"xw", "b"}, {"y"}, "fc_add");
  m.node("Shape", {"x"}, {"shape"});
  set_int(m.node("Gather", {"shape", "zero"}, {"n"}), "axis", 0);
  m.initializer("axes0", {1}, {0});
  m.node("Unsqueeze", {"n", "axes0"}, {"n1"});
  set_int(m.node("Concat", {"n1", "minus_one"}, {"target"}), "axis", 0);
  m.node("Reshape", {"y", "target"}, {"flat"});
  m.node("Relu", {"flat"}, {"out"});
  m.output("out");
  return m;
}

}  // namespace

TEST_CASE("symbolic dims are bound and a shape subgraph folds to a constant", "[onnx]") {
  const std::string path = mlp_with_shape_subgraph().save("amdahl_onnx_mlp.onnx");
  const BoundNetwork net = graphs::onnx::import_onnx(path, {{"batch", 8}, {"seq", 10}});
  REQUIRE(net.inputs.size() == 2);  // x and the appended labels
  CHECK(net.inputs[0].tensor.shape == Shape{8, 10, 64});
  CHECK(net.sizes.at("batch") == 8);
  // MatMul + Add became one linear with a bias; Reshape a view; Relu; the loss.
  REQUIRE(net.layers.size() == 4);
  CHECK(net.layers[0].kind == "linear");
  CHECK(net.layers[0].get_bool("bias"));
  CHECK(net.layers[1].kind == "reshape");
  CHECK(net.layers[1].get_int_list("shape") == IntList{8, 320});
  CHECK(net.layers[3].kind == "softmax_cross_entropy");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kTrain});
  CHECK(lowered.parameters == 64 * 32 + 32);
  double fc = 0;
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    if (lowered.graph.op(id).kind == "linear" && lowered.graph.op(id).phase == Phase::kForward)
      fc = lowered.graph.op(id).flops;
  // linear's formula: 2*M*in*out + M*out, M = 8*10 rows.
  CHECK(fc == Approx(2.0 * 80 * 64 * 32 + 80 * 32));
}

TEST_CASE("the batch option binds a first dim with another name", "[onnx]") {
  ModelBuilder m;
  m.input("x", {"batch_size", "16"});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_onnx_bs.onnx"), {{"batch", 5}});
  CHECK(net.inputs[0].tensor.shape == Shape{5, 16});
  CHECK(net.sizes.at("batch") == 5);
}

TEST_CASE("bad ONNX input is a one-line error", "[onnx]") {
  auto error_of = [](const std::string& path, const Bindings& sizes) {
    try {
      graphs::onnx::import_onnx(path, sizes);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto dir = std::filesystem::temp_directory_path();

  SECTION("not ONNX") {
    const auto path = (dir / "amdahl_not_onnx.onnx").string();
    std::ofstream(path) << "name: resnet\nlayers: []\n";
    CHECK_THAT(error_of(path, {}), Contains("not an ONNX model"));
  }
  SECTION("truncated") {
    std::string bytes;
    mlp_with_shape_subgraph().model.SerializeToString(&bytes);
    const auto path = (dir / "amdahl_truncated.onnx").string();
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    CHECK_THAT(error_of(path, {{"batch", 1}, {"seq", 1}}), Contains("not an ONNX model"));
  }
  SECTION("unsupported op names the op, the node and the supported ops") {
    ModelBuilder m;
    m.input("x", {"4", "4"});
    m.node("NonMaxSuppression", {"x"}, {"y"}, "nms_1");
    m.output("y");
    const std::string e = error_of(m.save("amdahl_unsupported.onnx"), {});
    CHECK_THAT(e, Contains("unsupported op 'NonMaxSuppression'"));
    CHECK_THAT(e, Contains("node 'nms_1'"));
    CHECK_THAT(e, Contains("Conv, "));
    CHECK(e.find('\n') == std::string::npos);
  }
  SECTION("unbound symbolic dim names it and the option") {
    const std::string path = mlp_with_shape_subgraph().save("amdahl_unbound.onnx");
    CHECK_THAT(error_of(path, {{"batch", 2}}),
               Contains("symbolic size 'seq'") && Contains("--set seq=VALUE"));
    CHECK_THAT(error_of(path, {{"seq", 2}}), Contains("'batch'") && Contains("--batch"));
  }
  SECTION("unknown size") {
    const std::string path = mlp_with_shape_subgraph().save("amdahl_unknown_size.onnx");
    CHECK_THAT(error_of(path, {{"batch", 2}, {"seq", 3}, {"hidden", 4}}),
               Contains("no symbolic size 'hidden'"));
  }
  SECTION("opset outside 9..17") {
    for (int opset : {7, 18}) {
      ModelBuilder m(opset);
      m.input("x", {"4"});
      m.node("Relu", {"x"}, {"y"});
      m.output("y");
      CHECK_THAT(error_of(m.save("amdahl_opset.onnx"), {}),
                 Contains(fmt::format("opset {} is outside the supported range 9 to 17", opset)));
    }
  }
}

TEST_CASE("asymmetric pads become a pad layer before a symmetric conv", "[onnx]") {
  ModelBuilder m(11);
  m.input("x", {"1", "3", "8", "8"});
  m.initializer("W", {4, 3, 3, 3});
  auto* conv = m.node("Conv", {"x", "W"}, {"y"});
  set_ints(conv, "pads", {0, 0, 1, 1});
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_pads.onnx"), {});
  REQUIRE(net.layers.size() == 3);
  CHECK(net.layers[0].kind == "pad");
  CHECK(net.layers[1].kind == "conv2d");
  CHECK_FALSE(net.layers[1].get_bool("bias"));
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  // A 9x9 padded input gives 7x7: conv FLOPs 2*N*K*P*Q*C*R*S.
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    if (lowered.graph.op(id).kind == "conv2d") {
      CHECK(lowered.graph.op(id).output_shape == Shape{1, 4, 7, 7});
      CHECK(lowered.graph.op(id).flops == Approx(2.0 * 4 * 7 * 7 * 3 * 3 * 3));
    }
}

namespace {
// The forward op of the first layer of `kind` in an inference lowering.
const Operator& forward_op(const LoweredNetwork& lowered, const std::string& kind) {
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    if (lowered.graph.op(id).kind == kind && lowered.graph.op(id).phase == Phase::kForward)
      return lowered.graph.op(id);
  FAIL("no forward op of kind " << kind);
  throw;
}
}  // namespace

TEST_CASE("ConvTranspose maps onto conv_transpose2d with the transposed geometry", "[onnx]") {
  ModelBuilder m(13);
  m.input("x", {"2", "8", "5", "5"});
  m.initializer("W", {8, 4, 3, 3});  // [C, K/g, R, S], g = 2: K = 8
  m.initializer("B", {8});
  auto* n = m.node("ConvTranspose", {"x", "W", "B"}, {"y"});
  set_ints(n, "strides", {2, 2});
  set_ints(n, "pads", {1, 1, 1, 1});
  set_ints(n, "output_padding", {1, 1});
  set_ints(n, "kernel_shape", {3, 3});
  set_int(n, "group", 2);
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_convt.onnx"), {});
  REQUIRE(net.layers.size() == 2);  // and the loss appended for training
  CHECK(net.layers[0].kind == "conv_transpose2d");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  const Operator& op = forward_op(lowered, "conv_transpose2d");
  // out = (in-1)*stride - 2*pad + dilation*(k-1) + output_padding + 1 = 8 - 2 + 2 + 1 + 1.
  CHECK(op.output_shape == Shape{2, 8, 10, 10});
  // 2*N*C*H*W*(K/g)*R*S plus one add per output for the bias.
  CHECK(op.flops == Approx(2.0 * 2 * 8 * 5 * 5 * 4 * 3 * 3 + 2 * 8 * 10 * 10));
  CHECK(op.gemm.m * op.gemm.n * op.gemm.k * op.gemm.batch == 2 * 5 * 5 * 4 * 3 * 3 * 4 * 2);
  // Weight C*(K/g)*R*S plus bias K.
  CHECK(lowered.parameters == 8 * 4 * 3 * 3 + 8);

  // Training: dW is a correlation with the forward's MACs.
  const LoweredNetwork train = lower(net, {.mode = Mode::kTrain});
  double bwd_weight = 0;
  for (OpId id = 0; id < train.graph.size(); ++id) {
    const Operator& o = train.graph.op(id);
    if (o.kind != "conv_transpose2d") continue;
    if (o.phase == Phase::kBackwardWeight && o.op_class == OpClass::kConv) bwd_weight += o.flops;
  }
  CHECK(bwd_weight == Approx(2.0 * 2 * 8 * 5 * 5 * 4 * 3 * 3));
}

TEST_CASE("InstanceNormalization maps onto instance_norm", "[onnx]") {
  ModelBuilder m(13);
  m.input("x", {"2", "3", "4", "4"});
  m.initializer("scale", {3});
  m.initializer("bias", {3});
  m.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"});
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_inorm.onnx"), {});
  REQUIRE(net.layers.size() == 2);  // and the loss appended for training
  CHECK(net.layers[0].kind == "instance_norm");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  const Operator& op = forward_op(lowered, "instance_norm");
  CHECK(op.output_shape == Shape{2, 3, 4, 4});
  // Per-instance statistics even in inference: batch norm's training cost, 7 FLOPs/element.
  CHECK(op.flops == Approx(7.0 * 2 * 3 * 4 * 4));
  CHECK(lowered.parameters == 2 * 3);
}

TEST_CASE("Einsum matrix products map onto matmul", "[onnx]") {
  struct Case {
    std::string eq;
    std::vector<std::string> a, b;
    Shape out;
    double flops;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {"3", "5"}, {"5", "7"}, {3, 7}, 2.0 * 3 * 5 * 7},
      {"ik,jk->ij", {"3", "5"}, {"7", "5"}, {3, 7}, 2.0 * 3 * 5 * 7},
      {"ij,jk->ki", {"3", "5"}, {"5", "7"}, {7, 3}, 2.0 * 3 * 5 * 7},
      {"bij,bjk->bik", {"2", "3", "5"}, {"2", "5", "7"}, {2, 3, 7}, 2.0 * 2 * 3 * 5 * 7},
      {"bhid,bhjd->bhij",
       {"2", "4", "8", "16"},
       {"2", "4", "10", "16"},
       {2, 4, 8, 10},
       2.0 * 2 * 4 * 8 * 10 * 16},
      {"bhij,bhjd->bhid",
       {"2", "4", "8", "10"},
       {"2", "4", "10", "16"},
       {2, 4, 8, 16},
       2.0 * 2 * 4 * 8 * 10 * 16},
  };
  for (const Case& c : cases) {
    INFO(c.eq);
    ModelBuilder m(13);
    m.input("a", c.a);
    m.input("b", c.b);
    auto* n = m.node("Einsum", {"a", "b"}, {"y"});
    auto* attr = n->add_attribute();
    attr->set_name("equation");
    attr->set_type(::onnx::AttributeProto::STRING);
    attr->set_s(c.eq);
    m.output("y");
    const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_einsum.onnx"), {});
    REQUIRE(net.layers.size() == 2);  // and the loss appended for training
    CHECK(net.layers[0].kind == "matmul");
    const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
    const Operator& op = forward_op(lowered, "matmul");
    CHECK(op.output_shape == c.out);
    CHECK(op.flops == Approx(c.flops));
  }
}

TEST_CASE("an unsupported Einsum equation names the node, the equation and the forms", "[onnx]") {
  ModelBuilder m(13);
  m.input("a", {"2", "3", "5"});
  m.input("b", {"5", "7"});
  auto* n = m.node("Einsum", {"a", "b"}, {"y"}, "proj_einsum");
  auto* attr = n->add_attribute();
  attr->set_name("equation");
  attr->set_type(::onnx::AttributeProto::STRING);
  attr->set_s("bij,jk->bik");
  m.output("y");
  std::string e = "no error";
  try {
    graphs::onnx::import_onnx(m.save("amdahl_einsum_bad.onnx"), {});
  } catch (const UserError& err) {
    e = err.what();
  }
  CHECK_THAT(e, Contains("node 'proj_einsum'"));
  CHECK_THAT(e, Contains("equation 'bij,jk->bik' is not supported"));
  CHECK_THAT(e, Contains("bhid,bhjd->bhij"));
  CHECK(e.find('\n') == std::string::npos);
}
