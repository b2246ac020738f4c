#include "graphs/op_graph.h"

#include <fmt/format.h>

#include "util/error.h"

namespace amdahl::graphs {

void OpGraph::depend(OpId from, OpId to, double bytes) {
  if (from >= to || to >= size())
    throw InternalError(fmt::format("edge {} -> {} breaks program order", from, to));
  if (boost::edge(from, to, *graph_ptr_).second) return;
  boost::add_edge(from, to, TensorEdge{bytes}, *graph_ptr_);
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
