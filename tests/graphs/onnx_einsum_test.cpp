// ONNX Einsum (graphs/onnx/map_einsum.cpp): any equation the standard allows lowers onto the
// registry's kinds. Two-input products are one matmul of FLOPs 2 * batch * M * N * K, with a
// transpose only where neither matmul's flags nor swapping the operands give the layout;
// one-input equations are transposes, reductions or diagonals; more inputs contract pairwise.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "onnx_model_builder.h"

using namespace amdahl;
using namespace amdahl::graphs;
using namespace amdahl::graphs::test;
using Catch::Matchers::Contains;

namespace {

// An Einsum of graph inputs with the given shapes, its output read by a Relu (whose op shows
// the einsum's output shape).
BoundNetwork import_einsum(const std::string& eq,
                           const std::vector<std::vector<std::string>>& shapes) {
  ModelBuilder m(13);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    m.input(names.back(), shapes[i]);
  }
  set_string(m.node("Einsum", names, {"y"}, "einsum"), "equation", eq);
  m.node("Relu", {"y"}, {"z"}, "read");
  m.output("z");
  return graphs::onnx::import_onnx(m.save("amdahl_einsum.onnx"), {});
}

// The einsum's layer kinds but its views (reshape: no op, no bytes).
std::vector<std::string> kinds_of(const BoundNetwork& net) {
  std::vector<std::string> kinds;
  for (const Layer& l : net.layers)
    if (l.kind != "softmax_cross_entropy" && l.kind != "relu" && l.kind != "reshape")
      kinds.push_back(l.kind);
  return kinds;
}

// The output shape of the einsum and the FLOPs of its forward ops.
struct Lowered {
  Shape out;
  double flops = 0;
  double gemm_flops = 0;
};
Lowered lower_einsum(const BoundNetwork& net) {
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  Lowered r;
  for (OpId id = 0; id < lowered.graph.size(); ++id) {
    const Operator& op = lowered.graph.op(id);
    if (op.phase != Phase::kForward || op.op_class == OpClass::kTransfer) continue;
    if (op.kind == "relu") {
      r.out = op.output_shape;
      continue;
    }
    r.flops += op.flops;
    if (op.op_class == OpClass::kGemm) r.gemm_flops += op.flops;
  }
  return r;
}

}  // namespace

TEST_CASE("two-input Einsum products are one matmul of 2*batch*M*N*K FLOPs", "[onnx][einsum]") {
  struct Case {
    std::string eq;
    std::vector<std::vector<std::string>> in;
    Shape out;
    double batch, m, n, k;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{"3", "5"}, {"5", "7"}}, {3, 7}, 1, 3, 7, 5},
      {"ik,jk->ij", {{"3", "5"}, {"7", "5"}}, {3, 7}, 1, 3, 7, 5},
      // The output [k, i] is B^T A^T: the operands swap, no transpose.
      {"ij,jk->ki", {{"3", "5"}, {"5", "7"}}, {7, 3}, 1, 7, 3, 5},
      {"bij,bjk->bik", {{"2", "3", "5"}, {"2", "5", "7"}}, {2, 3, 7}, 2, 3, 7, 5},
      // Attention scores: batch b, h; M = q, N = k, K = d.
      {"bhqd,bhkd->bhqk",
       {{"2", "4", "8", "16"}, {"2", "4", "10", "16"}},
       {2, 4, 8, 10},
       2 * 4,
       8,
       10,
       16},
      {"bhij,bhjd->bhid",
       {{"2", "4", "8", "10"}, {"2", "4", "10", "16"}},
       {2, 4, 8, 16},
       2 * 4,
       8,
       16,
       10},
      // Free letters of A that are no batch letters: M = b * i (a reshape view).
      {"bij,jk->bik", {{"2", "3", "5"}, {"5", "7"}}, {2, 3, 7}, 1, 2 * 3, 7, 5},
      // Ellipsis batch dims.
      {"...ij,...jk->...ik",
       {{"2", "3", "4", "5"}, {"2", "3", "5", "6"}},
       {2, 3, 4, 6},
       2 * 3,
       4,
       6,
       5},
      // An ellipsis dim of size 1 broadcasts against 5 (matmul's batch broadcasting).
      {"...ij,...jk->...ik", {{"1", "3", "4"}, {"5", "4", "6"}}, {5, 3, 6}, 5, 3, 6, 4},
      // Implicit output: the letters that appear once, alphabetically: ik.
      {"ij,jk", {{"3", "5"}, {"5", "7"}}, {3, 7}, 1, 3, 7, 5},
      // Two contracted letters: K = j * l.
      {"ijl,jlk->ik", {{"3", "4", "5"}, {"4", "5", "7"}}, {3, 7}, 1, 3, 7, 4 * 5},
  };
  for (const Case& c : cases) {
    INFO(c.eq);
    const BoundNetwork net = import_einsum(c.eq, c.in);
    const auto kinds = kinds_of(net);
    CHECK(std::count(kinds.begin(), kinds.end(), "matmul") == 1);
    CHECK(std::count(kinds.begin(), kinds.end(), "transpose") == 0);
    const Lowered r = lower_einsum(net);
    CHECK(r.out == c.out);
    CHECK(r.gemm_flops == Approx(2.0 * c.batch * c.m * c.n * c.k));
  }
}

TEST_CASE("an Einsum layout matmul cannot read is transposed first", "[onnx][einsum]") {
  // A [j, b, i]: the batch letter b is not leading, so A is permuted to [b, i, j] (a copy of
  // its 5*2*3 elements), then one matmul.
  const BoundNetwork net = import_einsum("jbi,bjk->bik", {{"5", "2", "3"}, {"2", "5", "7"}});
  CHECK(kinds_of(net) == std::vector<std::string>{"transpose", "matmul"});
  const Lowered r = lower_einsum(net);
  CHECK(r.out == Shape{2, 3, 7});
  CHECK(r.gemm_flops == Approx(2.0 * 2 * 3 * 7 * 5));
}

TEST_CASE("one-input Einsums are transposes, reductions and diagonals", "[onnx][einsum]") {
  SECTION("ij->ji is a transpose") {
    const BoundNetwork net = import_einsum("ij->ji", {{"3", "5"}});
    CHECK(kinds_of(net) == std::vector<std::string>{"transpose"});
    CHECK(lower_einsum(net).out == Shape{5, 3});
  }
  SECTION("ij->i sums j: one FLOP per input element") {
    const BoundNetwork net = import_einsum("ij->i", {{"3", "5"}});
    CHECK(kinds_of(net) == std::vector<std::string>{"reduce_sum"});
    const Lowered r = lower_einsum(net);
    CHECK(r.out == Shape{3});
    CHECK(r.flops == Approx(3.0 * 5));
  }
  SECTION("ii->i gathers the diagonal (a copy, no FLOPs)") {
    const BoundNetwork net = import_einsum("ii->i", {{"4", "4"}});
    const auto kinds = kinds_of(net);
    CHECK(std::count(kinds.begin(), kinds.end(), "gather") == 1);
    const Lowered r = lower_einsum(net);
    CHECK(r.out == Shape{4});
    CHECK(r.flops == 0);
  }
  SECTION("ii (implicit: the trace) sums the diagonal") {
    const BoundNetwork net = import_einsum("ii", {{"4", "4"}});
    const auto kinds = kinds_of(net);
    CHECK(std::count(kinds.begin(), kinds.end(), "reduce_sum") == 1);
    CHECK(lower_einsum(net).flops == Approx(4.0));
  }
}

TEST_CASE("Einsum without a contracted letter is a broadcast multiply", "[onnx][einsum]") {
  // Batched outer product: b * i * j products, one FLOP each.
  const BoundNetwork net = import_einsum("bi,bj->bij", {{"2", "3"}, {"2", "5"}});
  CHECK(kinds_of(net) == std::vector<std::string>{"mul"});
  const Lowered r = lower_einsum(net);
  CHECK(r.out == Shape{2, 3, 5});
  CHECK(r.flops == Approx(2.0 * 3 * 5));
}

TEST_CASE("Einsum of three inputs contracts pairwise from the left", "[onnx][einsum]") {
  // (A B) C: [3, 4] x [4, 5] then [3, 5] x [5, 6].
  const BoundNetwork net = import_einsum("ij,jk,kl->il", {{"3", "4"}, {"4", "5"}, {"5", "6"}});
  CHECK(kinds_of(net) == std::vector<std::string>{"matmul", "matmul"});
  const Lowered r = lower_einsum(net);
  CHECK(r.out == Shape{3, 6});
  CHECK(r.gemm_flops == Approx(2.0 * 3 * 5 * 4 + 2.0 * 3 * 6 * 5));
}

TEST_CASE("Einsum with a weight operand is a linear layer", "[onnx][einsum]") {
  ModelBuilder m(13);
  m.input("x", {"2", "3", "5"});
  m.initializer("W", {5, 7});
  set_string(m.node("Einsum", {"x", "W"}, {"y"}, "proj"), "equation", "bij,jk->bik");
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_einsum_weight.onnx"), {});
  REQUIRE(net.layers.front().kind == "linear");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  CHECK(lowered.parameters == 5 * 7);
  // linear: 2 * rows * in * out, rows = 2 * 3.
  CHECK(forward_op(lowered, "linear").flops == Approx(2.0 * 6 * 5 * 7));
}

TEST_CASE("a malformed Einsum equation names the node and what is wrong", "[onnx][einsum]") {
  struct Case {
    std::string eq;
    std::vector<std::vector<std::string>> in;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"bij,jk->bim", {{"2", "3", "5"}, {"5", "7"}}, "'m' of the output is in no input"},
      {"ij,jk->ik", {{"3", "5"}, {"4", "7"}}, "'j' is 5 in one place and 4 in input 1"},
      {"ijk,jk->ik", {{"3", "5"}, {"5", "7"}}, "input 0 has rank 2; its term 'ijk' names 3 dims"},
      {"ij,jk,kl->il", {{"3", "5"}, {"5", "7"}}, "3 terms for 2 inputs"},
      {"i.j,jk->ik", {{"3", "5"}, {"5", "7"}}, "term 'i.j' has a '.' outside one '...'"},
      {"ij,jk->ii", {{"3", "5"}, {"5", "7"}}, "'i' repeats in the output"},
      {"ij->i", {{"3", "5"}}, ""},
  };
  for (const Case& c : cases) {
    INFO(c.eq);
    ModelBuilder m(13);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < c.in.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      m.input(names.back(), c.in[i]);
    }
    set_string(m.node("Einsum", names, {"y"}, "mix"), "equation", c.eq);
    m.output("y");
    const std::string e = import_error(m.save("amdahl_einsum_bad.onnx"));
    if (c.error.empty()) {
      CHECK(e == "no error");
      continue;
    }
    CHECK_THAT(e, Contains("node 'mix' (Einsum): equation '" + c.eq + "': " + c.error));
    CHECK(e.find('\n') == std::string::npos);
  }
}
