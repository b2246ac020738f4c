// Every ONNX operator the importer maps (graphs/onnx/onnx_import.h supported_onnx_ops, the list
// `amdahl describe ops` prints) imported from a small in-memory model and lowered: the layer
// kinds it maps onto and the shape of its result. The table has one row per operator; an
// operator mapped without a row fails the first test, so a new mapping lands with its
// expectation. An operator outside the table is the documented error.
//
// Each model feeds the operator's result (output 0) to a Relu named "probe", whose forward op
// records the shape it reads; operators that only compute constants (Shape, Range, ...) feed
// one that needs the constant's values.

#include <catch2/catch.hpp>
#include <functional>

#include "graphs/lower.h"
#include "graphs/onnx/onnx_import.h"
#include "onnx_model_builder.h"

using namespace amdahl;
using namespace amdahl::graphs;
using namespace amdahl::graphs::test;
using Catch::Matchers::Contains;

namespace {

using Proto = ::onnx::TensorProto;

struct OpCase {
  int opset = 14;
  // Builds the graph up to a value named "y" (the operator's result).
  std::function<void(ModelBuilder&)> build;
  std::vector<std::string> kinds;  // the layer kinds the import emits, in order (probe aside)
  Shape out;                       // the shape of "y"
  // Further checks of the mapped layers' parameters, where the operator's attributes set them.
  std::function<void(const BoundNetwork&)> check = {};
  Bindings sizes = {};  // the symbolic dims' values
};

// x [2, 8] fp32, the input most rows read.
void x28(ModelBuilder& m, const std::string& name = "x") { m.input(name, {"2", "8"}); }

// op(x) -> y for a unary operator.
OpCase unary(const std::string& op, const std::string& kind) {
  return {14,
          [op](ModelBuilder& m) {
            x28(m);
            m.node(op, {"x"}, {"y"});
          },
          {kind},
          {2, 8}};
}

// x [2, 8] op b [8] -> y [2, 8]; both runtime inputs of `type`.
OpCase binary(const std::string& op, const std::string& kind, int type = Proto::FLOAT) {
  return {14,
          [op, type](ModelBuilder& m) {
            m.input("x", {"2", "8"}, type);
            m.input("b", {"8"}, type);
            m.node(op, {"x", "b"}, {"y"});
          },
          {kind},
          {2, 8}};
}

// A reduction over axis 1 of x [2, 8] keeping it: y [2, 1]. ReduceSum takes its axes as an
// input from opset 13, the others as an attribute.
OpCase reduction(const std::string& op, const std::string& kind) {
  return {14,
          [op](ModelBuilder& m) {
            x28(m);
            if (op == "ReduceSum") {
              m.initializer("axes", {1}, {1});
              m.node(op, {"x", "axes"}, {"y"});
            } else {
              set_ints(m.node(op, {"x"}, {"y"}), "axes", {1});
            }
          },
          {kind},
          {2, 1},
          [kind](const BoundNetwork& net) {
            CHECK(net.layers.front().get_int_list("axes") == IntList{1});
            CHECK(net.layers.front().get_bool("keepdims"));
          }};
}

// An ONNX recurrent op over X [T=3, N=2, I=4] with hidden 5 and G gates: W [1, G*5, 4],
// R [1, G*5, 5], B [1, 2*G*5]; Y [T, D=1, N, H] is the kind's [T, N, H] output reshaped.
OpCase recurrent(const std::string& op, const std::string& kind, std::int64_t gates) {
  return {14,
          [op, gates](ModelBuilder& m) {
            m.input("x", {"3", "2", "4"});
            m.initializer("W", {1, gates * 5, 4});
            m.initializer("R", {1, gates * 5, 5});
            m.initializer("B", {1, 2 * gates * 5});
            set_int(m.node(op, {"x", "W", "R", "B"}, {"y"}), "hidden_size", 5);
          },
          {kind, "reshape"},
          {3, 1, 2, 5},
          [](const BoundNetwork& net) {
            CHECK(net.layers.front().get_int("hidden_size") == 5);
            CHECK(net.layers.front().get_int("bias_vectors") == 2);
          }};
}

// x4 [2, 3, 8, 8] NCHW.
void x4(ModelBuilder& m) { m.input("x", {"2", "3", "8", "8"}); }

std::map<std::string, OpCase> cases() {
  std::map<std::string, OpCase> c;
  // Unary elementwise (map_elementwise.cpp) onto the kind of the same function.
  const std::vector<std::pair<const char*, const char*>> unaries = {
      {"Relu", "relu"},
      {"Sigmoid", "sigmoid"},
      {"Tanh", "tanh"},
      {"Exp", "exp"},
      {"Log", "log"},
      {"Sqrt", "sqrt"},
      {"Reciprocal", "reciprocal"},
      {"Erf", "erf"},
      {"Neg", "neg"},
      {"Abs", "abs"},
      {"Sin", "sin"},
      {"Cos", "cos"},
      {"Softplus", "softplus"},
      {"Softsign", "softsign"},
      {"Selu", "selu"},
      {"HardSwish", "hard_swish"},
      {"Floor", "floor"},
      {"Ceil", "ceil"},
      {"Round", "round"},
      {"Sign", "sign"},
      {"IsNaN", "is_nan"},
      {"Elu", "elu"},
      {"Softmax", "softmax"},
      {"LogSoftmax", "softmax"},
      {"Dropout", "dropout"},
  };
  for (const auto& [op, kind] : unaries) c[op] = unary(op, kind);
  c["Not"] = {14,
              [](ModelBuilder& m) {
                m.input("x", {"2", "8"}, Proto::BOOL);
                m.node("Not", {"x"}, {"y"});
              },
              {"not"},
              {2, 8}};
  // Attributes become parameters.
  c["LeakyRelu"] = {
      14,
      [](ModelBuilder& m) {
        x28(m);
        auto* n = m.node("LeakyRelu", {"x"}, {"y"});
        auto* a = n->add_attribute();
        a->set_name("alpha");
        a->set_type(::onnx::AttributeProto::FLOAT);
        a->set_f(0.25f);
      },
      {"leaky_relu"},
      {2, 8},
      [](const BoundNetwork& net) { CHECK(net.layers.front().get_float("alpha") == 0.25); }};
  c["HardSigmoid"] = unary("HardSigmoid", "hard_sigmoid");
  c["HardSigmoid"].check = [](const BoundNetwork& net) {  // ONNX's defaults
    CHECK(net.layers.front().get_float("alpha") == Approx(0.2));
    CHECK(net.layers.front().get_float("beta") == Approx(0.5));
  };
  // Clip's bounds are scalar inputs from opset 11.
  c["Clip"] = {14,
               [](ModelBuilder& m) {
                 x28(m);
                 m.floats("lo", {}, {0});
                 m.floats("hi", {}, {6});
                 m.node("Clip", {"x", "lo", "hi"}, {"y"});
               },
               {"clip"},
               {2, 8},
               [](const BoundNetwork& net) {
                 CHECK(net.layers.front().get_float("min") == 0);
                 CHECK(net.layers.front().get_float("max") == 6);
               }};
  c["Cast"] = {
      14,
      [](ModelBuilder& m) {
        x28(m);
        set_int(m.node("Cast", {"x"}, {"y"}), "to", Proto::FLOAT16);
      },
      {"cast"},
      {2, 8},
      [](const BoundNetwork& net) { CHECK(net.layers.front().get_string("to") == "fp16"); }};
  c["Where"] = {
      14,
      [](ModelBuilder& m) {
        m.input("c", {"2", "8"}, Proto::BOOL);
        x28(m);
        m.input("b", {"8"});
        m.node("Where", {"c", "x", "b"}, {"y"});
      },
      {"where"},
      {2, 8},
      [](const BoundNetwork& net) { CHECK(net.layers.front().get_int("condition") == 0); }};
  // Binary elementwise: a broadcast operand maps onto the broadcasting kind (Add of equal
  // shapes onto `add`, below).
  for (const auto& [op, kind] :
       std::vector<std::pair<const char*, const char*>>{{"Sub", "sub"},
                                                        {"Mul", "mul"},
                                                        {"Div", "div"},
                                                        {"Pow", "pow"},
                                                        {"Max", "max"},
                                                        {"Min", "min"},
                                                        {"Mod", "mod"},
                                                        {"Equal", "equal"},
                                                        {"Less", "less"},
                                                        {"Greater", "greater"}})
    c[op] = binary(op, kind);
  c["Add"] = binary("Add", "add_broadcast");
  c["And"] = binary("And", "and", Proto::BOOL);
  c["Or"] = binary("Or", "or", Proto::BOOL);
  // Views and copies (map_movement.cpp).
  c["Reshape"] = {14,
                  [](ModelBuilder& m) {
                    x28(m);
                    m.initializer("s", {2}, {4, -1});
                    m.node("Reshape", {"x", "s"}, {"y"});
                  },
                  {"reshape"},
                  {4, 4}};
  c["Flatten"] = {14,
                  [](ModelBuilder& m) {
                    m.input("x", {"2", "2", "4"});
                    m.node("Flatten", {"x"}, {"y"});
                  },
                  {"flatten"},
                  {2, 8}};
  c["Squeeze"] = {14,
                  [](ModelBuilder& m) {
                    m.input("x", {"2", "1", "8"});
                    m.initializer("axes", {1}, {1});
                    m.node("Squeeze", {"x", "axes"}, {"y"});
                  },
                  {"reshape"},
                  {2, 8}};
  c["Unsqueeze"] = {14,
                    [](ModelBuilder& m) {
                      x28(m);
                      m.initializer("axes", {1}, {1});
                      m.node("Unsqueeze", {"x", "axes"}, {"y"});
                    },
                    {"reshape"},
                    {2, 1, 8}};
  c["Transpose"] = {14,
                    [](ModelBuilder& m) {
                      x28(m);
                      set_ints(m.node("Transpose", {"x"}, {"y"}), "perm", {1, 0});
                    },
                    {"transpose"},
                    {8, 2}};
  c["Concat"] = {14,
                 [](ModelBuilder& m) {
                   x28(m);
                   x28(m, "z");
                   set_int(m.node("Concat", {"x", "z"}, {"y"}), "axis", 1);
                 },
                 {"concat"},
                 {2, 16}};
  c["Slice"] = {14,
                [](ModelBuilder& m) {  // elements 1, 3, 5 of dim 1
                  x28(m);
                  m.initializer("starts", {1}, {1});
                  m.initializer("ends", {1}, {7});
                  m.initializer("axes", {1}, {1});
                  m.initializer("steps", {1}, {2});
                  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
                },
                {"slice"},
                {2, 3}};
  c["Gather"] = {14,
                 [](ModelBuilder& m) {
                   m.input("x", {"n", "8"});
                   m.initializer("idx", {3}, {0, 2, 4});
                   set_int(m.node("Gather", {"x", "idx"}, {"y"}), "axis", 1);
                 },
                 {"gather"},
                 {2, 3}};
  c["Split"] = {14,
                [](ModelBuilder& m) {
                  x28(m);
                  m.initializer("sizes", {2}, {3, 5});
                  set_int(m.node("Split", {"x", "sizes"}, {"y", "rest"}), "axis", 1);
                },
                {"split"},
                {2, 3},
                [](const BoundNetwork& net) {
                  CHECK(net.layers.front().get_int_list("sizes") == IntList{3, 5});
                }};
  c["Expand"] = {14,
                 [](ModelBuilder& m) {
                   m.input("x", {"2", "1"});
                   m.initializer("s", {2}, {2, 8});
                   m.node("Expand", {"x", "s"}, {"y"});
                 },
                 {"expand"},
                 {2, 8}};
  c["Pad"] = {14,
              [](ModelBuilder& m) {
                x28(m);
                m.initializer("pads", {4}, {0, 1, 0, 2});
                m.node("Pad", {"x", "pads"}, {"y"});
              },
              {"pad"},
              {2, 11}};
  c["Tile"] = {14,
               [](ModelBuilder& m) {
                 x28(m);
                 m.initializer("r", {2}, {1, 2});
                 m.node("Tile", {"x", "r"}, {"y"});
               },
               {"tile"},
               {2, 16}};
  c["Identity"] = {14,
                   [](ModelBuilder& m) {
                     x28(m);
                     m.node("Identity", {"x"}, {"y"});
                   },
                   {},
                   {2, 8}};
  // Constants (map_constant.cpp) fold; a Reshape, Add or Gather reads their values.
  c["Constant"] = {14,
                   [](ModelBuilder& m) {
                     x28(m);
                     set_ints(m.node("Constant", {}, {"s"}), "value_ints", {4, 4});
                     m.node("Reshape", {"x", "s"}, {"y"});
                   },
                   {"reshape"},
                   {4, 4}};
  c["Shape"] = {14,
                [](ModelBuilder& m) {  // z [16] reshaped to the shape of x [2, 8]
                  x28(m);
                  m.input("z", {"16"});
                  m.node("Shape", {"x"}, {"s"});
                  m.node("Reshape", {"z", "s"}, {"y"});
                },
                {"reshape"},
                {2, 8}};
  c["Size"] = {14,
               [](ModelBuilder& m) {  // x reshaped to its element count, [16]
                 x28(m);
                 m.node("Size", {"x"}, {"n"});
                 m.initializer("axes", {1}, {0});
                 m.node("Unsqueeze", {"n", "axes"}, {"s"});
                 m.node("Reshape", {"x", "s"}, {"y"});
               },
               {"reshape"},
               {16}};
  c["ConstantOfShape"] = {
      14,
      [](ModelBuilder& m) {  // x + zeros [2, 8]: a constant operand
        x28(m);
        m.initializer("s", {2}, {2, 8});
        m.node("ConstantOfShape", {"s"}, {"zeros"});
        m.node("Add", {"x", "zeros"}, {"y"});
      },
      {"add_broadcast"},
      {2, 8},
      [](const BoundNetwork& net) {
        CHECK(net.layers.front().get_int_list("constant_shape") == IntList{2, 8});
        CHECK_FALSE(net.layers.front().get_bool("trainable"));
      }};
  c["Range"] = {14,
                [](ModelBuilder& m) {  // indices 0, 2, 4, 6 along dim 1
                  m.input("x", {"n", "8"});
                  m.initializer("start", {}, {0});
                  m.initializer("limit", {}, {8});
                  m.initializer("delta", {}, {2});
                  m.node("Range", {"start", "limit", "delta"}, {"idx"});
                  set_int(m.node("Gather", {"x", "idx"}, {"y"}), "axis", 1);
                },
                {"gather"},
                {2, 4}};
  // A fixed-shape float input that feeds only a Gather's data is an embedding table (a weight,
  // onnx_import.h); a symbolic batch makes it a step input.
  c["Gather"].sizes = c["Range"].sizes = {{"n", 2}};
  // Networks (map_nn.cpp).
  c["Conv"] = {14,
               [](ModelBuilder& m) {
                 x4(m);
                 m.initializer("W", {4, 3, 3, 3});
                 m.initializer("B", {4});
                 auto* n = m.node("Conv", {"x", "W", "B"}, {"y"});
                 set_ints(n, "pads", {1, 1, 1, 1});
               },
               {"conv2d"},
               {2, 4, 8, 8},
               [](const BoundNetwork& net) {
                 CHECK(net.layers.front().get_int("out_channels") == 4);
                 CHECK(net.layers.front().get_bool("bias"));
               }};
  c["ConvTranspose"] = {14,
                        [](ModelBuilder& m) {  // 4x4 -> (4 - 1) 2 + 2 = 8
                          m.input("x", {"2", "3", "4", "4"});
                          m.initializer("W", {3, 2, 2, 2});
                          set_ints(m.node("ConvTranspose", {"x", "W"}, {"y"}), "strides", {2, 2});
                        },
                        {"conv_transpose2d"},
                        {2, 2, 8, 8}};
  c["InstanceNormalization"] = {14,
                                [](ModelBuilder& m) {
                                  x4(m);
                                  m.initializer("scale", {3});
                                  m.initializer("B", {3});
                                  m.node("InstanceNormalization", {"x", "scale", "B"}, {"y"});
                                },
                                {"instance_norm"},
                                {2, 3, 8, 8}};
  for (const auto& [op, kind] : std::vector<std::pair<const char*, const char*>>{
           {"MaxPool", "maxpool2d"}, {"AveragePool", "avgpool2d"}})
    c[op] = {14,
             [op = std::string(op)](ModelBuilder& m) {
               x4(m);
               auto* n = m.node(op, {"x"}, {"y"});
               set_ints(n, "kernel_shape", {2, 2});
               set_ints(n, "strides", {2, 2});
             },
             {kind},
             {2, 3, 4, 4}};
  for (const auto& [op, kind] : std::vector<std::pair<const char*, const char*>>{
           {"GlobalMaxPool", "maxpool2d"}, {"GlobalAveragePool", "avgpool2d"}})
    c[op] = {14,
             [op = std::string(op)](ModelBuilder& m) {
               x4(m);
               m.node(op, {"x"}, {"y"});
             },
             {kind},
             {2, 3, 1, 1},
             [](const BoundNetwork& net) { CHECK(net.layers.front().get_bool("global")); }};
  c["MatMul"] = {14,
                 [](ModelBuilder& m) {  // a weight operand: a linear layer without bias
                   x28(m);
                   m.initializer("W", {8, 5});
                   m.node("MatMul", {"x", "W"}, {"y"});
                 },
                 {"linear"},
                 {2, 5},
                 [](const BoundNetwork& net) {
                   CHECK(net.layers.front().get_int("out_features") == 5);
                   CHECK_FALSE(net.layers.front().get_bool("bias"));
                 }};
  c["Gemm"] = {14,
               [](ModelBuilder& m) {  // x W^T + C: a linear layer with bias
                 x28(m);
                 m.initializer("W", {5, 8});
                 m.initializer("C", {5});
                 set_int(m.node("Gemm", {"x", "W", "C"}, {"y"}), "transB", 1);
               },
               {"linear"},
               {2, 5},
               [](const BoundNetwork& net) { CHECK(net.layers.front().get_bool("bias")); }};
  c["BatchNormalization"] = {
      14,
      [](ModelBuilder& m) {
        x4(m);
        for (const char* p : {"scale", "B", "mean", "var"}) m.initializer(p, {3});
        m.node("BatchNormalization", {"x", "scale", "B", "mean", "var"}, {"y"});
      },
      {"batchnorm2d"},
      {2, 3, 8, 8}};
  c["LayerNormalization"] = {
      17,
      [](ModelBuilder& m) {
        x28(m);
        m.initializer("scale", {8});
        m.initializer("B", {8});
        m.node("LayerNormalization", {"x", "scale", "B"}, {"y"});
      },
      {"layer_norm"},
      {2, 8},
      [](const BoundNetwork& net) { CHECK(net.layers.front().get_int("axis") == -1); }};
  // Recurrent (map_recurrent.cpp).
  c["LSTM"] = recurrent("LSTM", "lstm", 4);
  c["GRU"] = recurrent("GRU", "gru", 3);
  c["RNN"] = recurrent("RNN", "rnn", 1);
  // Reductions (map_reduce.cpp).
  for (const auto& [op, kind] :
       std::vector<std::pair<const char*, const char*>>{{"ReduceSum", "reduce_sum"},
                                                        {"ReduceMean", "reduce_mean"},
                                                        {"ReduceMax", "reduce_max"},
                                                        {"ReduceMin", "reduce_min"},
                                                        {"ReduceProd", "reduce_prod"},
                                                        {"ReduceSumSquare", "reduce_sum_square"}})
    c[op] = reduction(op, kind);
  // Einsum (map_einsum.cpp; onnx_einsum_test.cpp covers the equations): a matrix product.
  c["Einsum"] = {14,
                 [](ModelBuilder& m) {
                   x28(m);
                   m.input("z", {"8", "5"});
                   set_string(m.node("Einsum", {"x", "z"}, {"y"}), "equation", "ij,jk->ik");
                 },
                 {"matmul"},
                 {2, 5}};
  return c;
}

// The layers the import emitted for the operator: all but the probe and the appended loss.
std::vector<std::string> mapped_kinds(const BoundNetwork& net) {
  std::vector<std::string> kinds;
  for (const Layer& l : net.layers)
    if (l.name != "probe" && l.kind != "softmax_cross_entropy") kinds.push_back(l.kind);
  return kinds;
}

}  // namespace

TEST_CASE("every mapped ONNX operator has a coverage row", "[onnx][onnx_coverage]") {
  const auto table = cases();
  const std::vector<std::string> mapped = graphs::onnx::supported_onnx_ops();
  for (const std::string& op : mapped) {
    INFO("ONNX op " << op << " is mapped without a row in onnx_operator_coverage_test.cpp");
    CHECK(table.count(op) == 1);
  }
  for (const auto& [op, row] : table) {
    INFO("row " << op << " is no mapped ONNX op");
    CHECK(std::find(mapped.begin(), mapped.end(), op) != mapped.end());
  }
}

TEST_CASE("every mapped ONNX operator imports onto its layer kinds and lowers",
          "[onnx][onnx_coverage]") {
  for (const auto& [op, row] : cases()) {
    DYNAMIC_SECTION(op) {
      ModelBuilder m(row.opset);
      row.build(m);
      m.node("Relu", {"y"}, {"out"}, "probe");
      m.output("out");
      const std::string path = m.save("amdahl_onnx_coverage_" + op + ".onnx");
      const BoundNetwork net = graphs::onnx::import_onnx(path, row.sizes);
      CHECK(mapped_kinds(net) == row.kinds);
      if (row.check) row.check(net);

      const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
      bool probed = false;
      for (OpId id = 0; id < lowered.graph.size(); ++id) {
        const Operator& o = lowered.graph.op(id);
        if (o.layer != "probe" || o.phase != Phase::kForward) continue;
        probed = true;
        CHECK(o.output_shape == row.out);
      }
      CHECK(probed);
    }
  }
}

TEST_CASE("an unmapped ONNX operator is an error naming it and the mapped ones",
          "[onnx][onnx_coverage]") {
  ModelBuilder m;
  x28(m);
  m.node("NonMaxSuppression", {"x"}, {"y"}, "nms");
  m.output("y");
  const std::string error = import_error(m.save("amdahl_onnx_coverage_unmapped.onnx"));
  std::string list;
  for (const std::string& op : graphs::onnx::supported_onnx_ops())
    list += (list.empty() ? "" : ", ") + op;
  CHECK_THAT(error, Contains("node 'nms' (NonMaxSuppression): unsupported op "
                             "'NonMaxSuppression'; supported ops: " +
                             list));
}
