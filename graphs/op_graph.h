#pragma once
// The operator DAG: vertices are operators, edges are tensors (bytes). Built on
// Boost.Graph. Vertex order is program order: ops are added after everything they
// depend on, so iterating ids 0..size()-1 is a topological order.

#include <boost/container/small_vector.hpp>
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphs/tensor.h"
#include "util/op_class.h"
#include "util/precision.h"

namespace amdahl::graphs {

// The GEMM a GEMM-like op runs (conv as implicit GEMM): C[m x n] += A[m x k] B[k x n],
// `batch` independent times. All zero for other ops.
struct GemmDims {
  std::int64_t m = 0, n = 0, k = 0, batch = 0;
  bool empty() const { return m == 0; }
  bool operator==(const GemmDims&) const = default;
};

// What the cost model reads of an operator: its class, phase, precision, counts, and the GEMM
// and convolution it runs. Apart from the names and shapes (Operator), so that the variants
// of an op that costing builds (model/efficiency.h forward_op, as_gemm_op) and re-evaluated
// ops (lower.h relower) copy only these.
struct OpNumbers {
  OpClass op_class = OpClass::kElementwise;
  Phase phase = Phase::kForward;
  Precision precision = Precision::kFp32;  // math precision
  DType dtype = DType::kF32;               // storage of its output
  // Writes its output into its first input's storage (PyTorch's inplace=True activations and
  // `out += identity`): no new tensor, so no fresh allocation (model/roofline.cpp) and no
  // memory of its own (memory_footprint.h).
  bool in_place = false;
  double flops = 0;          // floating-point operations (1 FMA = 2)
  double bytes_read = 0;     // minimum bytes read
  double bytes_written = 0;  // minimum bytes written
  GemmDims gemm;
  // Convolutions: the filter size (r = s assumed square when equal, else 0) and the stride,
  // both 0 when not a convolution (efficiency models use them for Winograd eligibility).
  int conv_kernel = 0;
  int conv_stride = 0;
  // Convolutions (not transposed, not dilated): batch N, groups, and the elements of the
  // forward input X (N C H W) and output Y (N K P Q), for frameworks' backend choices and
  // buffers (model/efficiency.h runs_as_gemm, model/roofline.cpp); 0 otherwise.
  std::int64_t conv_batch = 0;
  std::int64_t conv_groups = 0;
  double conv_input_elements = 0;
  double conv_output_elements = 0;
  // Plain convolutions: channels C and K, the window R x S and the output grid P x Q, for the
  // algorithms whose cost follows the spatial shape (model/fft.h); 0 otherwise.
  std::int64_t conv_in_channels = 0;
  std::int64_t conv_out_channels = 0;
  std::int64_t conv_output_h = 0;
  std::int64_t conv_output_w = 0;
  int conv_window_h = 0;
  int conv_window_w = 0;

  double bytes() const { return bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0; }
  bool operator==(const OpNumbers&) const = default;
};

struct Operator : OpNumbers {
  std::string name;   // "conv1.bwd_data"
  std::string layer;  // source layer, "conv1"
  std::string kind;   // source layer kind, "conv2d"
  // Elements of its input tensors, summed (an inference step's live activations,
  // memory_footprint.h); the shapes themselves are the producers' output shapes.
  double input_elements = 0;
  Shape output_shape;
};

// A 2-D convolution as the efficiency models and frameworks' backend rules see it: input
// N x C x H x W, K outputs in `groups`, an R x S window with strides, output P x Q.
struct ConvDescription {
  std::int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, p = 0, q = 0, groups = 1;
  std::int64_t stride_h = 1, stride_w = 1;
};
// Sets op's conv_kernel and conv_stride (square kernels and equal strides only, 0 otherwise)
// and, for a plain convolution (not transposed, not dilated), its batch, groups and input and
// output element counts.
void describe_convolution(Operator& op, const ConvDescription& g, bool plain);

struct TensorEdge {
  double bytes = 0;
};

// Boost.Graph storage selector for a vertex's in- and out-edge lists: small vectors with room
// for two edges in place (most ops have one or two producers and consumers), so that adding
// an op allocates no edge list. Declared to Boost below, after the namespace.
struct SmallEdgeVecS {};

}  // namespace amdahl::graphs

namespace boost {
template <class ValueType>
struct container_gen<amdahl::graphs::SmallEdgeVecS, ValueType> {
  using type = boost::container::small_vector<ValueType, 2>;
};
template <>
struct parallel_edge_traits<amdahl::graphs::SmallEdgeVecS> {
  using type = allow_parallel_edge_tag;
};
// Found by argument-dependent lookup from Boost.Graph's container dispatch when it adds an
// edge. (Its edge() lookup calls graph_detail::find qualified, which would not find these:
// OpGraph::find_edge searches the lists itself.)
namespace container {
template <class T, std::size_t N, class... Rest>
graph_detail::vector_tag container_category(const small_vector<T, N, Rest...>&) {
  return {};
}
template <class T, std::size_t N, class... Rest>
graph_detail::unstable_tag iterator_stability(const small_vector<T, N, Rest...>&) {
  return {};
}
}  // namespace container
}  // namespace boost

namespace amdahl::graphs {

// Vertices and edges in vectors (program order; edges are never removed).
using Graph = boost::adjacency_list<SmallEdgeVecS, boost::vecS, boost::bidirectionalS, Operator,
                                    TensorEdge, boost::no_property, boost::vecS>;
using OpId = std::size_t;
inline constexpr OpId kNoOp = static_cast<OpId>(-1);

// Holds its Boost graph through a pointer so that moving an OpGraph (returning a lowered
// network) is O(1): boost::adjacency_list copies on move.
class OpGraph {
 public:
  OpGraph() : graph_ptr_(std::make_unique<Graph>()) {}
  OpGraph(const OpGraph& other) : graph_ptr_(std::make_unique<Graph>(*other.graph_ptr_)) {}
  OpGraph& operator=(const OpGraph& other) {
    graph_ptr_ = std::make_unique<Graph>(*other.graph_ptr_);
    prefaulted_storage_ = nullptr;
    prefaulted_end_ = 0;
    return *this;
  }
  OpGraph(OpGraph&&) noexcept = default;
  OpGraph& operator=(OpGraph&&) noexcept = default;

  OpId add(const Operator& op) { return add(Operator(op)); }
  // Moves `op` in (Boost's add_vertex(property, g) copies it).
  OpId add(Operator&& op) {
    const OpId id = boost::add_vertex(*graph_ptr_);
    (*graph_ptr_)[id] = std::move(op);
    prefault_ahead(id + 1);
    return id;
  }
  // `to` consumes `bytes` produced by `from`; from < to is required (program order). False
  // when the edge was there already (it keeps its first bytes).
  bool depend(OpId from, OpId to, double bytes);
  // The bytes of the edge from -> to (InternalError when there is none).
  double& edge_bytes(OpId from, OpId to);
  const double& edge_bytes(OpId from, OpId to) const;
  // Room for `ops` ops and twice as many edges (most ops have one or two producers), so that
  // a large graph is not copied as its vectors grow.
  void reserve(std::size_t ops) {
    graph_ptr_->m_vertices.reserve(ops);
    graph_ptr_->m_edges.reserve(2 * ops);
  }

  std::size_t size() const { return boost::num_vertices(*graph_ptr_); }
  std::size_t edge_count() const { return boost::num_edges(*graph_ptr_); }
  const Operator& op(OpId id) const { return (*graph_ptr_)[id]; }
  Operator& op(OpId id) { return (*graph_ptr_)[id]; }
  std::vector<OpId> predecessors(OpId id) const;
  std::vector<OpId> successors(OpId id) const;
  const Graph& graph() const { return *graph_ptr_; }

 private:
  std::optional<Graph::edge_descriptor> find_edge(OpId from, OpId to) const;
  // Maps the pages of the next vertices of the reserved storage in one call (util/prefault.h)
  // when `size` vertices reach the end of those mapped so far, a few megabytes at a time.
  void prefault_ahead(std::size_t size);

  std::unique_ptr<Graph> graph_ptr_;
  const void* prefaulted_storage_ = nullptr;  // the vertex storage prefaulted_end_ is of
  std::size_t prefaulted_end_ = 0;            // vertices before it are mapped
};

}  // namespace amdahl::graphs
