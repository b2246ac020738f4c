#include "graphs/op_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "util/error.h"
#include "util/prefault.h"

namespace amdahl::graphs {

void describe_convolution(Operator& op, const ConvDescription& g, bool plain) {
  op.conv_kernel = g.r == g.s ? static_cast<int>(g.r) : 0;
  op.conv_stride = g.stride_h == g.stride_w ? static_cast<int>(g.stride_h) : 0;
  if (!plain) return;
  op.conv_batch = g.n;
  op.conv_groups = g.groups;
  op.conv_input_elements = static_cast<double>(g.n * g.c * g.h * g.w);
  op.conv_output_elements = static_cast<double>(g.n * g.k * g.p * g.q);
  op.conv_in_channels = g.c;
  op.conv_out_channels = g.k;
  op.conv_output_h = g.p;
  op.conv_output_w = g.q;
  op.conv_window_h = static_cast<int>(g.r);
  op.conv_window_w = static_cast<int>(g.s);
}

// The edge from -> to, searched among `to`'s in-edges (an op has few producers; Boost's
// edge() would search `from`'s out-edges through a dispatch that does not know the small
// vectors).
std::optional<Graph::edge_descriptor> OpGraph::find_edge(OpId from, OpId to) const {
  for (auto [it, end] = boost::in_edges(to, *graph_ptr_); it != end; ++it)
    if (boost::source(*it, *graph_ptr_) == from) return *it;
  return std::nullopt;
}

bool OpGraph::depend(OpId from, OpId to, double bytes) {
  if (from >= to || to >= size())
    throw InternalError(fmt::format("edge {} -> {} breaks program order", from, to));
  if (find_edge(from, to)) return false;
  boost::add_edge(from, to, TensorEdge{bytes}, *graph_ptr_);
  return true;
}

void OpGraph::prefault_ahead(std::size_t size) {
  auto& vertices = graph_ptr_->m_vertices;
  if (vertices.data() == prefaulted_storage_ && size < prefaulted_end_) return;
  constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
  constexpr std::size_t kVertexBytes = sizeof(*vertices.data());
  const std::size_t end = std::min(vertices.capacity(), size + kChunkBytes / kVertexBytes);
  prefault(reinterpret_cast<char*>(vertices.data()) + size * kVertexBytes,
           (end - size) * kVertexBytes);
  prefaulted_storage_ = vertices.data();
  prefaulted_end_ = end;
}

double& OpGraph::edge_bytes(OpId from, OpId to) {
  return const_cast<double&>(std::as_const(*this).edge_bytes(from, to));
}

const double& OpGraph::edge_bytes(OpId from, OpId to) const {
  const auto e = find_edge(from, to);
  if (!e) throw InternalError(fmt::format("no edge {} -> {}", from, to));
  return (*graph_ptr_)[*e].bytes;
}

std::vector<OpId> OpGraph::predecessors(OpId id) const {
  std::vector<OpId> out;
  for (auto [it, end] = boost::in_edges(id, *graph_ptr_); it != end; ++it)
    out.push_back(boost::source(*it, *graph_ptr_));
  return out;
}

std::vector<OpId> OpGraph::successors(OpId id) const {
  std::vector<OpId> out;
  for (auto [it, end] = boost::out_edges(id, *graph_ptr_); it != end; ++it)
    out.push_back(boost::target(*it, *graph_ptr_));
  return out;
}

}  // namespace amdahl::graphs
