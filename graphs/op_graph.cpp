#include "graphs/op_graph.h"

#include <fmt/format.h>

#include "util/error.h"

namespace amdahl::graphs {

void describe_convolution(Operator& op, const ConvDescription& g, bool plain) {
  op.conv_kernel = g.r == g.s ? static_cast<int>(g.r) : 0;
  op.conv_stride = g.stride_h == g.stride_w ? static_cast<int>(g.stride_h) : 0;
  if (!plain) return;
  op.conv_batch = g.n;
  op.conv_groups = g.groups;
  op.conv_input_elements = static_cast<double>(g.n * g.c * g.h * g.w);
  op.conv_output_elements = static_cast<double>(g.n * g.k * g.p * g.q);
}

bool OpGraph::depend(OpId from, OpId to, double bytes) {
  if (from >= to || to >= size())
    throw InternalError(fmt::format("edge {} -> {} breaks program order", from, to));
  if (boost::edge(from, to, *graph_ptr_).second) return false;
  boost::add_edge(from, to, TensorEdge{bytes}, *graph_ptr_);
  return true;
}

double& OpGraph::edge_bytes(OpId from, OpId to) {
  const auto [e, found] = boost::edge(from, to, *graph_ptr_);
  if (!found) throw InternalError(fmt::format("no edge {} -> {}", from, to));
  return (*graph_ptr_)[e].bytes;
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
