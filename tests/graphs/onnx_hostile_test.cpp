// ONNX models that are wrong, extreme or hostile (docs/reliability.md): each is a located
// one-line UserError or imports with the right numbers, never an allocation of the size a
// model asks for, a read outside a tensor, or a network of other sizes costed as if right.
// Also two readings of a model the importer must get right: BatchNormalization exported in
// training mode, and weights that arrive as graph inputs.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <limits>

#include "cli/assumption_text.h"
#include "graphs/lower.h"
#include "graphs/onnx/import_context.h"
#include "hw/system_loader.h"
#include "model/prediction.h"
#include "onnx_model_builder.h"

using namespace amdahl;
using namespace amdahl::graphs;
using namespace amdahl::graphs::test;
using Catch::Matchers::Contains;

namespace {

using graphs::onnx::kMaxFoldedElements;
using graphs::onnx::kMaxFoldedTotal;

struct BadModel {
  std::string what;
  std::function<void(ModelBuilder&)> build;
  std::string error;  // the located message, "node 'NAME' (OP): ..."
};

void check_errors(const std::vector<BadModel>& cases, int opset = 14) {
  for (const BadModel& c : cases) {
    INFO(c.what);
    ModelBuilder m(opset);
    c.build(m);
    const std::string e = import_error(m.save("amdahl_hostile.onnx"));
    CHECK_THAT(e, Contains(c.error));
    CHECK(e.find('\n') == std::string::npos);
  }
}

// y = Reshape(x [12], shape) where `shape` comes from `make` (which defines "shape").
void reshape_of(ModelBuilder& m, const std::function<void(ModelBuilder&)>& make) {
  m.input("x", {"12"});
  make(m);
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  m.output("y");
}

// Scalars for Range.
void range_inputs(ModelBuilder& m, std::int64_t start, std::int64_t limit, std::int64_t delta) {
  m.initializer("start", {}, {start});
  m.initializer("limit", {}, {limit});
  m.initializer("delta", {}, {delta});
}

}  // namespace

TEST_CASE("folded constants are bounded before anything is allocated", "[onnx][hostile]") {
  const std::string limit =
      fmt::format("more than the {} whose values amdahl evaluates", kMaxFoldedElements);
  check_errors({
      {"Range(0, 1e12) into a Reshape: no 8 TB vector, an error naming both nodes and the count",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           range_inputs(b, 0, 1'000'000'000'000, 1);
           b.node("Range", {"start", "limit", "delta"}, {"shape"}, "range");
         });
       },
       "node 'reshape' (Reshape): input 1 (shape) 'shape' is a constant of 1000000000000 elements "
       "from node 'range' (Range), " +
           limit},
      {"a Range past 2^63 elements",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           range_inputs(b, std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max(), 1);
           b.node("Range", {"start", "limit", "delta"}, {"shape"}, "range");
         });
       },
       "node 'range' (Range): Range(-9.223372036854776e+18, 9.223372036854776e+18, 1) has "
       "1.8446744073709552e+19 elements, more than 2^63"},
      {"ConstantOfShape of 2^30 x 2^30 x 2^30 elements overflows the count",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           b.initializer("dims", {3}, {1 << 30, 1 << 30, 1 << 30});
           b.node("ConstantOfShape", {"dims"}, {"shape"}, "zeros");
         });
       },
       "node 'zeros' (ConstantOfShape): makes a tensor of shape [1073741824, 1073741824, "
       "1073741824]: more than 2^63 elements"},
      {"ConstantOfShape with a negative dim",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           b.initializer("dims", {1}, {-5});
           b.node("ConstantOfShape", {"dims"}, {"shape"}, "zeros");
         });
       },
       "node 'zeros' (ConstantOfShape): makes a tensor of shape [-5]: a negative dim"},
      {"Expand of a known scalar to 2^20 x 2^20 keeps its shape only",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           b.initializer("one", {}, {1});
           b.initializer("dims", {2}, {1 << 20, 1 << 20});
           b.node("Expand", {"one", "dims"}, {"shape"}, "expand");
         });
       },
       "input 1 (shape) 'shape' is a constant of 1099511627776 elements from node 'expand' "
       "(Expand), " +
           limit},
      {"Tile of a known tensor past 2^63",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           b.initializer("one", {2}, {1, 1});
           b.initializer("reps", {1}, {std::numeric_limits<std::int64_t>::max()});
           b.node("Tile", {"one", "reps"}, {"shape"}, "tile");
         });
       },
       "node 'tile' (Tile): repeats [9223372036854775807] of [2]: a negative repeat or a dim "
       "past 2^63"},
      {"Reshape to dims whose product overflows",
       [](ModelBuilder& m) {
         reshape_of(m, [](ModelBuilder& b) {
           b.initializer("shape", {3}, {1 << 30, 1 << 30, 1 << 30});
         });
       },
       "node 'reshape' (Reshape): makes a tensor of shape [1073741824, 1073741824, 1073741824]: "
       "more than 2^63 elements"},
  });
}

TEST_CASE("a model of many small folds stops at the import's total", "[onnx][hostile]") {
  // kMaxFoldedTotal / kMaxFoldedElements folds of the largest size fit; one more does not.
  ModelBuilder m;
  m.input("x", {"4"});
  m.initializer("dims", {1}, {kMaxFoldedElements});
  const std::int64_t fits = kMaxFoldedTotal / kMaxFoldedElements;
  for (std::int64_t i = 0; i <= fits; ++i)
    m.node("ConstantOfShape", {"dims"}, {fmt::format("z{}", i)}, fmt::format("zeros{}", i));
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  CHECK_THAT(import_error(m.save("amdahl_many_folds.onnx")),
             Contains(fmt::format("node 'zeros{}' (ConstantOfShape): the model's constant folding "
                                  "reaches {} elements, more than the {}",
                                  fits, kMaxFoldedTotal + kMaxFoldedElements, kMaxFoldedTotal)));
}

TEST_CASE("indices into folded data are checked as ONNX defines them", "[onnx][hostile]") {
  // x [2, 3, 4]: Shape(x) is [2, 3, 4], indices in [-3, 2].
  const auto shape_of_x = [](ModelBuilder& m) {
    m.input("x", {"2", "3", "4"});
    m.node("Shape", {"x"}, {"s"}, "shape");
  };
  const auto use = [](ModelBuilder& m, const std::string& v) {
    m.node("Reshape", {"x", v}, {"y"}, "reshape");
    m.output("y");
  };
  check_errors({
      {"Gather index -1000000 on a Shape output",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("i", {}, {-1'000'000});
         m.node("Gather", {"s", "i"}, {"g"}, "pick");
         use(m, "g");
       },
       "node 'pick' (Gather): index -1000000 is outside [-3, 2] of axis 0"},
      {"Gather index 3, one past the end",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("i", {2}, {0, 3});
         m.node("Gather", {"s", "i"}, {"g"}, "pick");
         use(m, "g");
       },
       "node 'pick' (Gather): index 3 is outside [-3, 2] of axis 0"},
      {"Gather with constant indices into a runtime tensor",
       [&](ModelBuilder& m) {
         m.input("x", {"2", "3", "4"});
         m.initializer("i", {1}, {7});
         set_int(m.node("Gather", {"x", "i"}, {"y"}, "pick"), "axis", 2);
         m.output("y");
       },
       "node 'pick' (Gather): index 7 is outside [-4, 3] of axis 2"},
      {"Gather axis outside the data",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("i", {}, {0});
         set_int(m.node("Gather", {"s", "i"}, {"g"}, "pick"), "axis", 1);
         use(m, "g");
       },
       "node 'pick' (Gather): axis 1 is outside [-1, 0] of a rank-1 tensor"},
      {"Slice with a step of 0",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("b", {1}, {0});
         m.initializer("e", {1}, {2});
         m.initializer("a", {1}, {0});
         m.initializer("st", {1}, {0});
         m.node("Slice", {"s", "b", "e", "a", "st"}, {"g"}, "cut");
         use(m, "g");
       },
       "node 'cut' (Slice): steps [0] has a 0"},
      {"Slice starts and ends of different lengths",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("b", {2}, {0, 0});
         m.initializer("e", {1}, {2});
         m.node("Slice", {"s", "b", "e"}, {"g"}, "cut");
         use(m, "g");
       },
       "node 'cut' (Slice): starts [0, 0], ends [2], axes [] and steps [] must have one entry "
       "each per sliced axis"},
      {"Slice axis outside the data",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("b", {1}, {0});
         m.initializer("e", {1}, {2});
         m.initializer("a", {1}, {-2});
         m.node("Slice", {"s", "b", "e", "a"}, {"g"}, "cut");
         use(m, "g");
       },
       "node 'cut' (Slice): axes -2 is outside [-1, 0] of a rank-1 tensor"},
      {"Unsqueeze naming an axis twice",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("ax", {2}, {0, 0});
         m.node("Unsqueeze", {"s", "ax"}, {"g"}, "grow");
         use(m, "g");
       },
       "node 'grow' (Unsqueeze): axes [0, 0] names dim 0 twice"},
      {"Unsqueeze axis outside the output",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("ax", {1}, {2});
         m.node("Unsqueeze", {"s", "ax"}, {"g"}, "grow");
         use(m, "g");
       },
       "node 'grow' (Unsqueeze): axes 2 is outside [-2, 1] of a rank-2 tensor"},
      {"Squeeze of a dim that is not 1",
       [&](ModelBuilder& m) {
         m.input("x", {"2", "3", "4"});
         m.initializer("ax", {1}, {1});
         m.node("Squeeze", {"x", "ax"}, {"y"}, "shrink");
         m.output("y");
       },
       "node 'shrink' (Squeeze): axis 1 has size 3 in [2, 3, 4]; only a size-1 dim can be "
       "squeezed"},
      {"Transpose perm that is no permutation, on a known tensor",
       [&](ModelBuilder& m) {
         m.input("x", {"6"});
         m.initializer("k", {2, 3}, {1, 2, 3, 4, 5, 6});
         set_ints(m.node("Transpose", {"k"}, {"t"}, "flip"), "perm", {0, 5});
         m.node("Reshape", {"x", "t"}, {"y"}, "reshape");
         m.output("y");
       },
       "node 'flip' (Transpose): perm [0, 5] is not a permutation of the 2 dims of [2, 3]"},
      {"Split sizes that do not add up, on a known tensor",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("sizes", {2}, {2, 5});
         m.node("Split", {"s", "sizes"}, {"p", "q"}, "parts");
         use(m, "p");
       },
       "node 'parts' (Split): split [2, 5] must have one size >= 0 per output (2) adding up to "
       "dim 0 of [3] (3)"},
      {"Concat of known tensors of different ranks",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         m.initializer("k", {1, 1}, {1});
         m.node("Concat", {"s", "k"}, {"g"}, "join");
         use(m, "g");
       },
       "node 'join' (Concat): inputs must match except along axis 0 (got [3] and [1, 1])"},
      {"ReduceSum axis outside a known tensor",
       [&](ModelBuilder& m) {
         shape_of_x(m);
         set_ints(m.node("ReduceProd", {"s"}, {"g"}, "total"), "axes", {4});
         use(m, "g");
       },
       "node 'total' (ReduceProd): axes 4 is outside [-1, 0] of a rank-1 tensor"},
      {"Flatten axis outside [-r, r]",
       [&](ModelBuilder& m) {
         m.input("x", {"2", "3"});
         set_int(m.node("Flatten", {"x"}, {"y"}, "flat"), "axis", 3);
         m.output("y");
       },
       "node 'flat' (Flatten): axis 3 is outside [-2, 2] of a rank-2 tensor"},
      {"a shape that is nan",
       [&](ModelBuilder& m) {
         m.input("x", {"2", "3"});
         m.floats("f", {1}, {std::numeric_limits<float>::quiet_NaN()});
         m.node("Reshape", {"x", "f"}, {"y"}, "reshape");
         m.output("y");
       },
       "node 'reshape' (Reshape): input 1 (shape) holds nan, not an integer"},
      {"a Reshape to -2",
       [&](ModelBuilder& m) {
         m.input("x", {"2", "3"});
         m.initializer("t", {2}, {-2, -3});
         m.node("Reshape", {"x", "t"}, {"y"}, "reshape");
         m.output("y");
       },
       "node 'reshape' (Reshape): shape [-2, -3] has -2, neither a size nor -1 (infer) nor 0 "
       "(copy)"},
      {"a Range whose start is no scalar",
       [&](ModelBuilder& m) {
         m.input("x", {"2"});
         m.initializer("start", {0}, {});
         m.initializer("limit", {}, {2});
         m.initializer("delta", {}, {1});
         m.node("Range", {"start", "limit", "delta"}, {"r"}, "range");
         m.node("Reshape", {"x", "r"}, {"y"}, "reshape");
         m.output("y");
       },
       "node 'range' (Range): input 0 (start) must be a scalar (got 0 elements)"},
      {"a node without outputs",
       [&](ModelBuilder& m) {
         m.input("x", {"2"});
         m.node("Relu", {"x"}, {}, "mute");
         m.output("x");
       },
       "node 'mute' (Relu): has no outputs"},
      {"a node without inputs",
       [&](ModelBuilder& m) {
         m.node("Relu", {}, {"y"}, "deaf");
         m.output("y");
       },
       "node 'deaf' (Relu): input 0 is missing"},
      {"an output defined twice",
       [&](ModelBuilder& m) {
         m.input("x", {"2"});
         m.node("Relu", {"x"}, {"y"}, "first");
         m.node("Sigmoid", {"x"}, {"y"}, "second");
         m.output("y");
       },
       "node 'second' (Sigmoid): output 'y' is already defined"},
  });
}

TEST_CASE("Slice clamps starts and ends to the dim, as ONNX defines", "[onnx][hostile]") {
  // Shape(x) [2, 3, 4] sliced [1 : INT64_MAX] (how exporters write "to the end") is [3, 4];
  // starts and ends far outside clamp rather than fail.
  for (const IntList& se : {IntList{1, std::numeric_limits<std::int64_t>::max()},
                            IntList{-1'000'000 + 1'000'001, 1'000'000}}) {
    ModelBuilder m;
    m.input("x", {"2", "3", "4"});
    m.input("v", {"12"});
    m.node("Shape", {"x"}, {"s"});
    m.initializer("b", {1}, {se[0]});
    m.initializer("e", {1}, {se[1]});
    m.node("Slice", {"s", "b", "e"}, {"tail"}, "cut");
    m.node("Reshape", {"v", "tail"}, {"y"}, "reshape");
    m.output("y");
    const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_slice_end.onnx"), {});
    REQUIRE(net.layers.front().kind == "reshape");
    CHECK(net.layers.front().get_int_list("shape") == IntList{3, 4});
  }
}

TEST_CASE("weights whose shape does not fit their input are errors naming both",
          "[onnx][hostile]") {
  check_errors({
      {"Conv weight of 4 input channels on a 3-channel input",
       [](ModelBuilder& m) {
         m.input("x", {"1", "3", "8", "8"});
         m.initializer("W", {8, 4, 3, 3});
         m.node("Conv", {"x", "W"}, {"y"}, "conv");
         m.output("y");
       },
       "node 'conv' (Conv): weight [8, 4, 3, 3] does not fit input [1, 3, 8, 8]: input channels "
       "3 must equal weight dim 1 (4) x group (1)"},
      {"Conv with groups: 4 channels = 2 per group x 2, but 8 = 4 x 2 is asked",
       [](ModelBuilder& m) {
         m.input("x", {"1", "4", "8", "8"});
         m.initializer("W", {6, 4, 3, 3});
         set_int(m.node("Conv", {"x", "W"}, {"y"}, "conv"), "group", 2);
         m.output("y");
       },
       "input channels 4 must equal weight dim 1 (4) x group (2)"},
      {"Conv kernel rank differs from the spatial rank",
       [](ModelBuilder& m) {
         m.input("x", {"1", "3", "8", "8"});
         m.initializer("W", {8, 3, 3});
         m.node("Conv", {"x", "W"}, {"y"}, "conv");
         m.output("y");
       },
       "weight [8, 3, 3] does not fit input [1, 3, 8, 8]: the kernel has 1 spatial dims, the "
       "input 2 (weight rank must equal input rank)"},
      {"Conv bias of the wrong length",
       [](ModelBuilder& m) {
         m.input("x", {"1", "3", "8", "8"});
         m.initializer("W", {8, 3, 3, 3});
         m.initializer("B", {7});
         m.node("Conv", {"x", "W", "B"}, {"y"}, "conv");
         m.output("y");
       },
       "node 'conv' (Conv): bias [7] does not fit input [1, 3, 8, 8]: bias must be [8] (one per "
       "output channel, weight dim 0)"},
      {"ConvTranspose weight of other input channels",
       [](ModelBuilder& m) {
         m.input("x", {"1", "3", "8", "8"});
         m.initializer("W", {4, 2, 3, 3});
         m.node("ConvTranspose", {"x", "W"}, {"y"}, "up");
         m.output("y");
       },
       "node 'up' (ConvTranspose): weight [4, 2, 3, 3] does not fit input [1, 3, 8, 8]: input "
       "channels 3 must equal weight dim 0 (4)"},
      {"Gemm inner dims (transB)",
       [](ModelBuilder& m) {
         m.input("x", {"2", "64"});
         m.initializer("W", {10, 32});
         set_int(m.node("Gemm", {"x", "W"}, {"y"}, "fc"), "transB", 1);
         m.output("y");
       },
       "node 'fc' (Gemm): B [10, 32] does not fit A [2, 64]: the inner dims differ: A gives K = "
       "64, B^T K = 32"},
      // Input and output counts come from the ONNX schema of the op at the model's opset
      // (a binary op with one input once read past its operands when folding constants).
      {"Sub of known constants with one input",
       [](ModelBuilder& m) {
         m.initializer("a", {3});
         m.node("Sub", {"a"}, {"y"}, "sub");
         m.output("y");
       },
       "node 'sub' (Sub): has 1 inputs; Sub (opset 14) takes 2"},
      {"Add with three inputs",
       [](ModelBuilder& m) {
         m.input("x", {"2", "3"});
         m.node("Add", {"x", "x", "x"}, {"y"}, "add");
         m.output("y");
       },
       "node 'add' (Add): has 3 inputs; Add (opset 14) takes 2"},
      {"Dropout with four outputs",
       [](ModelBuilder& m) {
         m.input("x", {"2", "3"});
         m.node("Dropout", {"x"}, {"y", "mask", "extra", "more"}, "drop");
         m.output("y");
       },
       "node 'drop' (Dropout): has 4 outputs; Dropout (opset 14) gives 1 to 2"},
      {"Gemm C that does not broadcast to [M, N]",
       [](ModelBuilder& m) {
         m.input("x", {"2", "64"});
         m.initializer("W", {64, 10});
         m.initializer("C", {7});
         m.node("Gemm", {"x", "W", "C"}, {"y"}, "fc");
         m.output("y");
       },
       "node 'fc' (Gemm): C [7] does not fit the product [2, 10]: C must broadcast to [M, N]"},
      {"MatMul weight of other inner dim",
       [](ModelBuilder& m) {
         m.input("x", {"2", "5", "64"});
         m.initializer("W", {32, 16});
         m.node("MatMul", {"x", "W"}, {"y"}, "proj");
         m.output("y");
       },
       "node 'proj' (MatMul): B [32, 16] does not fit A [2, 5, 64]: A's last dim (64) must equal "
       "B's second-to-last dim (32)"},
      {"MatMul of two runtime tensors of other inner dims",
       [](ModelBuilder& m) {
         m.input("a", {"2", "5", "64"});
         m.input("b", {"2", "32", "16"});
         m.node("MatMul", {"a", "b"}, {"y"}, "scores");
         m.output("y");
       },
       "A's last dim (64) must equal B's second-to-last dim (32)"},
      {"BatchNormalization mean of other channels",
       [](ModelBuilder& m) {
         m.input("x", {"2", "3", "4", "4"});
         m.initializer("scale", {3});
         m.initializer("bias", {3});
         m.initializer("mean", {4});
         m.initializer("var", {3});
         m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, "bn");
         m.output("y");
       },
       "node 'bn' (BatchNormalization): mean [4] does not fit input [2, 3, 4, 4]: mean must be "
       "[3] (one per channel, input dim 1)"},
      {"LSTM W of another input size",
       [](ModelBuilder& m) {
         m.input("x", {"5", "2", "10"});
         m.initializer("W", {1, 4 * 8, 12});
         m.initializer("R", {1, 4 * 8, 8});
         set_int(m.node("LSTM", {"x", "W", "R"}, {"y"}, "rnn"), "hidden_size", 8);
         m.output("y");
       },
       "node 'rnn' (LSTM): W [1, 32, 12] does not fit input [5, 2, 10]: W must be [1, 32, 10]"},
  });
}

TEST_CASE("an LSTM node of 10^9 time steps is refused before lowering makes its ops",
          "[onnx][hostile]") {
  // It imports as one lstm layer; unrolled it would be two ops per step, counted by the kind
  // (LayerKind::op_count) before the first is made.
  ModelBuilder m;
  m.input("x", {"1000000000", "2", "10"});
  m.initializer("W", {1, 4 * 8, 10});
  m.initializer("R", {1, 4 * 8, 8});
  set_int(m.node("LSTM", {"x", "W", "R"}, {"y"}, "rnn"), "hidden_size", 8);
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_long_lstm.onnx"), {});
  // 1 input GEMM + 2 ops per step.
  CHECK_THROWS_WITH(lower(net, {.mode = Mode::kInfer}),
                    Contains("its forward pass makes 2000000001 ops at these sizes (input "
                             "[1000000000, 2, 10])") &&
                        Contains(fmt::format("more than the limit of {} ops", max_ops())));
}

TEST_CASE("BatchNormalization exported in training mode imports as batch norm", "[onnx][hostile]") {
  // x [2, 3, 4, 4]: n = 96 elements, C = 3 channels. PyTorch exports BatchNormalization as a
  // node only in training mode (training_mode = 1, the running statistics as extra outputs;
  // before opset 14 the optional mean/var outputs say it); the prediction's mode decides the
  // statistics, as for an eval-mode export.
  const double n = 2 * 3 * 4 * 4;
  const auto model = [](bool training, int opset) {
    ModelBuilder m(opset);
    m.input("x", {"2", "3", "4", "4"});
    for (const char* p : {"scale", "bias", "mean", "var"}) m.initializer(p, {3});
    std::vector<std::string> outputs{"y"};
    if (training)
      outputs = opset >= 14 ? std::vector<std::string>{"y", "running_mean", "running_var"}
                            : std::vector<std::string>{"y", "m", "v", "sm", "sv"};
    auto* bn = m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, outputs, "bn");
    if (training && opset >= 14) set_int(bn, "training_mode", 1);
    m.node("Relu", {"y"}, {"z"});
    m.output("z");
    if (training) {
      // The updated statistics read by a later node and listed as graph outputs.
      m.node("Identity", {outputs[1]}, {"mean_out"});
      m.output("mean_out");
      m.output(outputs[2]);
    }
    return graphs::onnx::import_onnx(
        m.save(fmt::format("amdahl_bn_{}_{}.onnx", training ? "train" : "infer", opset)), {});
  };
  const BoundNetwork inference = model(false, 15);
  for (int opset : {15, 9}) {
    INFO("opset " << opset);
    const BoundNetwork net = model(true, opset);
    REQUIRE(net.layers.front().kind == "batchnorm2d");
    const LoweredNetwork train = lower(net, {.mode = Mode::kTrain});
    const LoweredNetwork infer = lower(net, {.mode = Mode::kInfer});
    const LoweredNetwork ref_train = lower(inference, {.mode = Mode::kTrain});
    const LoweredNetwork ref_infer = lower(inference, {.mode = Mode::kInfer});
    // Training: the batch's statistics, 3 FLOPs per element, then the scale-shift with them,
    // 4 more, reading x twice (the registry's batch norm as it trains).
    const Operator& op = forward_op(train, "batchnorm2d");
    CHECK(op.flops == Approx((3.0 + 4.0) * n));
    CHECK(op.bytes_read == Approx(2.0 * 4 * n));
    CHECK(op.flops == Approx(forward_op(ref_train, "batchnorm2d").flops));
    CHECK(op.bytes_read == Approx(forward_op(ref_train, "batchnorm2d").bytes_read));
    // Inference: the running statistics fold into one scale-shift, 2 FLOPs per element.
    CHECK(forward_op(infer, "batchnorm2d").flops == Approx(2.0 * n));
    CHECK(forward_op(infer, "batchnorm2d").flops ==
          Approx(forward_op(ref_infer, "batchnorm2d").flops));
    // Scale and shift are the parameters; running statistics are not.
    CHECK(train.parameters == 2 * 3);
    CHECK(train.graph.size() == ref_train.graph.size());
  }
}

TEST_CASE("graph inputs that feed only weight slots are weights", "[onnx][hostile]") {
  const auto transfers = [](const LoweredNetwork& net) {
    std::vector<std::string> names;
    for (OpId id = 0; id < net.graph.size(); ++id)
      if (net.graph.op(id).op_class == OpClass::kTransfer &&
          net.graph.op(id).name != "input.labels.h2d")
        names.push_back(net.graph.op(id).name);
    return names;
  };
  SECTION("Conv W and B, Gemm B and C") {
    ModelBuilder m;
    m.input("x", {"batch", "3", "8", "8"});
    m.input("W", {"4", "3", "3", "3"});
    m.input("B", {"4"});
    m.input("fc_w", {"10", "144"});
    m.input("fc_b", {"10"});
    m.node("Conv", {"x", "W", "B"}, {"c"}, "conv");
    set_int(m.node("Flatten", {"c"}, {"f"}), "axis", 1);
    set_int(m.node("Gemm", {"f", "fc_w", "fc_b"}, {"y"}, "fc"), "transB", 1);
    m.output("y");
    const BoundNetwork net =
        graphs::onnx::import_onnx(m.save("amdahl_weight_inputs.onnx"), {{"batch", 2}});
    const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
    // The weights' elements: conv 4*3*3*3 + 4, linear 10*144 + 10 (a 6x6 conv output of 4
    // channels flattened: 144 features).
    CHECK(lowered.parameters == 4 * 3 * 3 * 3 + 4 + 10 * 144 + 10);
    CHECK(transfers(lowered) == std::vector<std::string>{"input.x.h2d"});
    REQUIRE(net.assumptions.size() == 1);
    CHECK_THAT(cli::assumption_text(net.assumptions[0]),
               Contains("(4 tensors, 1562 elements: W, B, fc_w, fc_b): resident on the device, "
                        "counted as parameters, not copied per step"));
    // The assumption reaches the prediction's list.
    const model::Prediction p =
        model::predict(lowered, hw::load_system("minsky"), {.mode = Mode::kInfer, .batch = 2});
    CHECK(std::count(p.assumptions.begin(), p.assumptions.end(), net.assumptions[0]) == 1);
  }
  SECTION("MatMul + Add bias, an embedding table, LSTM W R B") {
    ModelBuilder m;
    m.input("ids", {"batch", "5"}, ::onnx::TensorProto::INT64);
    m.input("table", {"100", "16"});
    m.input("W", {"1", "32", "16"});  // [directions, 4 gates x hidden 8, input 16]
    m.input("R", {"1", "32", "8"});
    m.input("Bias", {"1", "64"});
    m.input("P", {"8", "6"});
    m.input("p_b", {"6"});
    m.node("Gather", {"table", "ids"}, {"e"}, "embed");
    set_ints(m.node("Transpose", {"e"}, {"t"}, "time_major"), "perm", {1, 0, 2});
    set_int(m.node("LSTM", {"t", "W", "R", "Bias"}, {"", "h"}, "lstm"), "hidden_size", 8);
    m.node("MatMul", {"h", "P"}, {"hp"}, "proj");
    m.node("Add", {"hp", "p_b"}, {"y"}, "proj_bias");
    m.output("y");
    const BoundNetwork net =
        graphs::onnx::import_onnx(m.save("amdahl_weight_inputs2.onnx"), {{"batch", 2}});
    const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
    // Embedding 100*16, LSTM 4*8*(16+8) + 2*4*8, linear 8*6 + 6.
    CHECK(lowered.parameters == 100 * 16 + 4 * 8 * (16 + 8) + 2 * 4 * 8 + 8 * 6 + 6);
    CHECK(transfers(lowered) == std::vector<std::string>{"input.ids.h2d"});
  }
  SECTION("an input that is also data stays a step input") {
    ModelBuilder m;
    m.input("x", {"4", "4"});
    m.input("W", {"4", "4"});
    m.node("MatMul", {"x", "W"}, {"a"}, "mm");
    m.node("Add", {"a", "W"}, {"y"}, "plus_w");  // W read as data: no weight
    m.output("y");
    const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_weight_data.onnx"), {});
    const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
    CHECK(net.assumptions.empty());
    CHECK(lowered.parameters == 0);
    CHECK(transfers(lowered) == std::vector<std::string>{"input.x.h2d", "input.W.h2d"});
  }
}
