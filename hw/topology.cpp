#include "hw/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <climits>
#include <functional>
#include <limits>
#include <numeric>

#include "hw/units.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr const char* kFabric = "fabric";

// Lexicographic path length: hops, then latency.
using HopsLatency = std::pair<int, double>;

// Records the edge that last improved each vertex (the edge, not the neighbour: two NICs of one
// device are parallel edges).
template <class Edge>
struct RecordEdge : public boost::base_visitor<RecordEdge<Edge>> {
  using event_filter = boost::on_edge_relaxed;
  std::vector<Edge>* via;
  std::vector<bool>* reached;
  template <class Graph>
  void operator()(const Edge& e, const Graph& graph) {
    const std::size_t t = boost::target(e, graph);
    (*via)[t] = e;
    (*reached)[t] = true;
  }
};

using Edge = Topology::NodeGraph::edge_descriptor;

// The links of at least `min` bandwidth: a filtered_graph predicate small enough to copy
// freely (filtered_graph copies it into every edge iterator; a std::function over a lambda of
// three references allocated on each copy).
struct AtLeast {
  const Topology::NodeGraph* graph = nullptr;
  const std::vector<double>* bandwidth = nullptr;
  double min = 0;
  bool operator()(const Edge& e) const { return (*bandwidth)[(*graph)[e].link] >= min; }
};
using WideGraph = boost::filtered_graph<Topology::NodeGraph, AtLeast>;

// The widest bottleneck bandwidth from `from` to the vertices of the node graph (link j of
// `bandwidth[j]`; 0: not reached): for each distinct link bandwidth, widest first, one
// breadth-first search over the links of at least that bandwidth, until `done(width)` holds
// (a vertex's width is final once set).
template <class Done>
std::vector<double> widths_from(const Topology::NodeGraph& graph,
                                const std::vector<double>& bandwidth,
                                const std::vector<double>& levels, std::size_t from, Done done) {
  const std::size_t n = boost::num_vertices(graph);
  std::vector<double> width(n, 0);
  width[from] = kInf;
  std::vector<boost::default_color_type> color(n);
  for (const double t : levels) {
    if (done(width)) break;
    const WideGraph g(graph, AtLeast{&graph, &bandwidth, t});
    std::fill(color.begin(), color.end(), boost::white_color);
    boost::breadth_first_search(g, from,
                                boost::color_map(boost::make_iterator_property_map(
                                    color.begin(), boost::get(boost::vertex_index, graph))));
    for (std::size_t v = 0; v < n; ++v)
      if (width[v] == 0 && color[v] != boost::white_color) width[v] = t;
  }
  return width;
}

// The fewest-hops, then least-latency paths from `from` over links of at least `min_bandwidth`:
// each vertex's length and the edge that reaches it.
struct ShortestPaths {
  std::vector<HopsLatency> distance;
  std::vector<Edge> via;
  std::vector<bool> reached;
};

ShortestPaths shortest_from(const Topology::NodeGraph& graph, const std::vector<double>& bandwidth,
                            const std::vector<double>& latency, std::size_t from,
                            double min_bandwidth) {
  const WideGraph g(graph, AtLeast{&graph, &bandwidth, min_bandwidth});
  const std::size_t n = boost::num_vertices(graph);
  ShortestPaths s{std::vector<HopsLatency>(n), std::vector<Edge>(n), std::vector<bool>(n, false)};
  auto weight = boost::make_function_property_map<Edge, HopsLatency>([&](const Edge& e) {
    return HopsLatency{1, latency[graph[e].link]};
  });
  auto index = boost::get(boost::vertex_index, graph);
  boost::dijkstra_shortest_paths(
      g, from,
      boost::weight_map(weight)
          .distance_map(boost::make_iterator_property_map(s.distance.begin(), index))
          .distance_compare(std::less<HopsLatency>())
          .distance_combine([](const HopsLatency& a, const HopsLatency& b) {
            return HopsLatency{a.first + b.first, a.second + b.second};
          })
          .distance_inf(HopsLatency{INT_MAX, kInf})
          .distance_zero(HopsLatency{0, 0.0})
          .visitor(boost::make_dijkstra_visitor(RecordEdge<Edge>{{}, &s.via, &s.reached})));
  return s;
}

}  // namespace

std::string Path::str() const { return join(vertices, ">"); }

Topology::Topology(const SystemSpec& system, LinkUse use)
    : system_name_(system.name), system_file_(system.file), nodes_(system.nodes) {
  std::map<std::string, std::size_t> local;
  for (const DeviceSpec& d : system.devices) {
    local.emplace(d.name, local_names_.size());
    local_names_.push_back(d.name);
  }
  for (const SwitchSpec& s : system.switches) {
    local.emplace(s.name, local_names_.size());
    local_names_.push_back(s.name);
  }
  local_devices_ = local_names_.size();
  const bool multi = nodes_ > 1;
  if (multi && !system.network)
    throw UserError(fmt::format("{}: system '{}' has nodes: {} and no network joining them",
                                system_file_, system_name_, nodes_));
  const std::size_t fabric = local_names_.size();
  if (multi) local_names_.push_back(kFabric);

  auto local_index = [&](const std::string& device, const std::string& what) {
    const auto it = local.find(device);
    if (it == local.end()) {
      std::vector<std::string> names(local_names_.begin(),
                                     local_names_.begin() + static_cast<long>(local_devices_));
      throw UserError(fmt::format("{}: {} names no device of system '{}' ('{}'); {}", system_file_,
                                  what, system_name_, excerpt(device), suggestion(device, names)));
    }
    return it->second;
  };
  // The links of one node, then its NIC links.
  struct Local {
    std::string name;
    const LinkSpec* spec;
  };
  std::vector<Local> specs;
  for (const LinkSpec& l : system.links) {
    local_links_.push_back(
        {local_index(l.from, "link " + l.name), local_index(l.to, "link " + l.name)});
    specs.push_back({l.name, &l});
  }
  if (multi)
    for (std::size_t j = 0; j < system.network->attach.size(); ++j) {
      local_links_.push_back({local_index(system.network->attach[j], "network.attach"), fabric});
      specs.push_back({fmt::format("nic{}", j), &system.network->link});
    }

  // The collective view (LinkUse): the links it leaves out of the graph, and its bandwidths.
  const CollectiveSpec& collectives = system.runtime.collectives;
  auto accelerator = [&](std::size_t v) {
    return v < system.devices.size() && system.devices[v].kind != DeviceKind::kCpu;
  };
  auto left_out = [&](std::size_t j) {
    return use == LinkUse::kCollectives && !collectives.peer_links &&
           accelerator(local_links_[j].from) && accelerator(local_links_[j].to);
  };
  // The bandwidth a transfer gets over a link of `spec` in this view, and whether measured.
  auto rate = [&](const LinkSpec& spec) -> std::pair<double, bool> {
    if (use == LinkUse::kCollectives)
      for (const CollectiveSpec::LinkBandwidth& b : collectives.link_bandwidth)
        if (b.link_model == spec.model) return {b.bytes_per_s, true};
    return {spec.p2p_bandwidth(), spec.p2p_bytes_per_s.has_value()};
  };
  graph_ = NodeGraph(local_names_.size());
  for (std::size_t j = 0; j < local_links_.size(); ++j) {
    if (!left_out(j))
      boost::add_edge(local_links_[j].from, local_links_[j].to, LocalEdge{j}, graph_);
    local_bandwidth_.push_back(rate(*specs[j].spec).first);
    local_latency_.push_back(specs[j].spec->latency_s);
  }
  bandwidth_levels_ = local_bandwidth_;
  std::sort(bandwidth_levels_.begin(), bandwidth_levels_.end(), std::greater<>());
  bandwidth_levels_.erase(std::unique(bandwidth_levels_.begin(), bandwidth_levels_.end()),
                          bandwidth_levels_.end());
  component_.assign(local_names_.size(), 0);
  boost::connected_components(graph_, component_.data());

  // The named vertices and links of every node.
  for (int k = 0; k < nodes_; ++k)
    for (std::size_t i = 0; i < local_devices_; ++i) {
      if (i < system.devices.size()) {
        const DeviceSpec& d = system.devices[i];
        vertices_.push_back({vertex_name(k, d.name), VertexKind::kDevice, k, d.name, d.model});
      } else {
        const SwitchSpec& s = system.switches[i - system.devices.size()];
        vertices_.push_back({vertex_name(k, s.name), VertexKind::kSwitch, k, s.name, s.model});
      }
    }
  if (multi) vertices_.push_back({kFabric, VertexKind::kFabric, -1, "", "fabric switch"});
  for (std::size_t v = 0; v < vertices_.size(); ++v) index_.emplace(vertices_[v].name, v);
  for (int k = 0; k < nodes_; ++k)
    for (std::size_t j = 0; j < local_links_.size(); ++j) {
      const LinkSpec& l = *specs[j].spec;
      auto name_of = [&](std::size_t v) {
        return v == fabric && multi ? std::string(kFabric) : vertex_name(k, local_names_[v]);
      };
      const auto [bandwidth, measured] = rate(l);
      links_.push_back({multi ? fmt::format("n{}.{}", k, specs[j].name) : specs[j].name,
                        name_of(local_links_[j].from), name_of(local_links_[j].to), l.model,
                        bandwidth, l.bandwidth_bytes_per_s, l.latency_s, measured});
    }
}

std::string vertex_name(int nodes, int node, const std::string& device) {
  return nodes > 1 ? fmt::format("n{}.{}", node, device) : device;
}

std::size_t Topology::link_index(int node, std::size_t link) const {
  const std::size_t per_node = local_links_.size();
  if (node < 0 || node >= nodes_ || link >= per_node)
    throw InternalError(fmt::format("Topology::link_index: no link {} in node {} of '{}'", link,
                                    node, system_name_));
  return static_cast<std::size_t>(node) * per_node + link;
}

std::string Topology::vertex_name(int node, const std::string& device) const {
  return hw::vertex_name(nodes_, node, device);
}

std::size_t Topology::index_of(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) vertex(name);  // throws
  return it->second;
}

const TopologyVertex& Topology::vertex(const std::string& name) const {
  const auto it = index_.find(name);
  if (it != index_.end()) return vertices_[it->second];
  std::vector<std::string> names;
  for (const TopologyVertex& v : vertices_)
    if (names.size() < 64) names.push_back(v.name);
  throw UserError(fmt::format("{}: system '{}' has no device '{}'{}; {}", system_file_,
                              system_name_, excerpt(name),
                              nodes_ > 1 ? " (a multi-node system names node k's devices "
                                           "n<k>.<device>)"
                                         : "",
                              suggestion(name, names)));
}

std::pair<int, std::size_t> Topology::locate(std::size_t v) const {
  if (v >= static_cast<std::size_t>(nodes_) * local_devices_) return {-1, local_devices_};
  return {static_cast<int>(v / local_devices_), v % local_devices_};
}

bool Topology::connected(const std::string& a, const std::string& b) const {
  const auto [na, la] = locate(index_of(a));
  const auto [nb, lb] = locate(index_of(b));
  if (na == nb || na < 0 || nb < 0) return component_[la] == component_[lb];
  const int fabric = component_[local_devices_];
  return component_[la] == fabric && component_[lb] == fabric;
}

void Topology::throw_unconnected(const std::string& a, const std::string& b) const {
  throw UserError(fmt::format(
      "{}: system '{}': no chain of links joins {} and {} (add a link to the system's `links`)",
      system_file_, system_name_, a, b));
}

// The largest bandwidth t such that links of at least t join the two vertices (0: none do).
double Topology::widest(std::size_t from, std::size_t to) const {
  if (from == to) return kInf;
  return widths_from(graph_, local_bandwidth_, bandwidth_levels_, from,
                     [to](const std::vector<double>& width) { return width[to] != 0; })[to];
}

// The fewest-hops, then least-latency path over links of at least `min_bandwidth`.
Topology::LocalPath Topology::shortest_within(std::size_t from, std::size_t to,
                                              double min_bandwidth) const {
  const ShortestPaths s =
      shortest_from(graph_, local_bandwidth_, local_latency_, from, min_bandwidth);
  if (from != to && !s.reached[to]) throw InternalError("topology: no path above the widest width");
  LocalPath p;
  p.bandwidth = kInf;
  for (std::size_t v = to; v != from;) {
    const Edge e = s.via[v];
    const std::size_t link = graph_[e].link;
    const std::size_t u =
        boost::source(e, graph_) == v ? boost::target(e, graph_) : boost::source(e, graph_);
    p.vertices.push_back(v);
    p.hops.emplace_back(link, local_links_[link].from == u);
    p.bandwidth = std::min(p.bandwidth, local_bandwidth_[link]);
    p.latency += local_latency_[link];
    v = u;
  }
  p.vertices.push_back(from);
  std::reverse(p.vertices.begin(), p.vertices.end());
  std::reverse(p.hops.begin(), p.hops.end());
  p.split = p.hops.size();
  return p;
}

Topology::NodeLocals Topology::node_locals(const std::string& from,
                                           const std::vector<std::string>& names) const {
  const auto [node, source] = locate(index_of(from));
  NodeLocals locals{source, {}};
  for (const std::string& c : names) {
    const auto [n, l] = locate(index_of(c));
    if (n != node || node < 0)
      throw InternalError(
          fmt::format("Topology::nearest: {} and {} are not devices of one node", from, c));
    locals.names.push_back(l);
  }
  return locals;
}

std::size_t Topology::nearest_local(std::size_t source,
                                    const std::vector<std::size_t>& local) const {
  // The widest level that reaches any candidate is the one that counts.
  const std::vector<double> width = widths_from(
      graph_, local_bandwidth_, bandwidth_levels_, source, [&](const std::vector<double>& w) {
        return std::any_of(local.begin(), local.end(), [&](std::size_t l) { return w[l] != 0; });
      });
  double best_width = 0;
  for (const std::size_t l : local) best_width = std::max(best_width, width[l]);
  if (!(best_width > 0)) return local.size();
  const ShortestPaths s =
      shortest_from(graph_, local_bandwidth_, local_latency_, source, best_width);
  std::size_t best = local.size();
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (width[local[i]] != best_width) continue;
    if (best == local.size() || s.distance[local[i]] < s.distance[local[best]]) best = i;
  }
  return best;
}

std::size_t Topology::nearest(const std::string& from,
                              const std::vector<std::string>& candidates) const {
  if (candidates.empty()) throw InternalError("Topology::nearest: no candidates");
  const NodeLocals locals = node_locals(from, candidates);
  const std::size_t best = nearest_local(locals.from, locals.names);
  if (best == locals.names.size()) throw_unconnected(from, candidates.front());
  return best;
}

std::vector<std::size_t> Topology::nearest_chain(const std::vector<std::string>& devices) const {
  std::vector<std::size_t> chain;
  if (devices.empty()) return chain;
  const std::vector<std::size_t> local = node_locals(devices.front(), devices).names;
  chain.push_back(0);
  std::vector<std::size_t> left(devices.size() - 1), left_local(devices.size() - 1);
  std::iota(left.begin(), left.end(), 1);
  std::copy(local.begin() + 1, local.end(), left_local.begin());
  while (!left.empty()) {
    const std::size_t k = nearest_local(local[chain.back()], left_local);
    if (k == left.size()) throw_unconnected(devices[chain.back()], devices[left.front()]);
    chain.push_back(left[k]);
    left.erase(left.begin() + static_cast<long>(k));
    left_local.erase(left_local.begin() + static_cast<long>(k));
  }
  return chain;
}

const Topology::LocalPath& Topology::local_path(std::size_t from, std::size_t to,
                                                bool across) const {
  const std::lock_guard<std::mutex> lock(cache_->mutex);
  const auto key = std::make_tuple(from, to, across);
  if (const auto it = cache_->paths.find(key); it != cache_->paths.end()) return it->second;
  LocalPath p;
  if (!across) {
    p = shortest_within(from, to, widest(from, to));
  } else {
    // Into the fabric in the first node's copy, out of it in the second's; the widest such
    // path is the narrower half's width, and each half is the shortest at that width.
    const std::size_t fabric = local_devices_;
    const double width = std::min(widest(from, fabric), widest(fabric, to));
    p = shortest_within(from, fabric, width);
    const LocalPath second = shortest_within(fabric, to, width);
    p.split = p.hops.size();
    p.vertices.insert(p.vertices.end(), second.vertices.begin() + 1, second.vertices.end());
    p.hops.insert(p.hops.end(), second.hops.begin(), second.hops.end());
    p.bandwidth = std::min(p.bandwidth, second.bandwidth);
    p.latency += second.latency;
  }
  return cache_->paths.emplace(key, std::move(p)).first->second;
}

Path Topology::path(const std::string& from, const std::string& to) const {
  if (!connected(from, to)) throw_unconnected(from, to);
  auto [na, la] = locate(index_of(from));
  auto [nb, lb] = locate(index_of(to));
  // The fabric belongs to whichever node the path meets it from.
  if (na < 0) na = nb;
  if (nb < 0) nb = na;
  if (na < 0) na = nb = 0;
  const LocalPath& lp = local_path(la, lb, na != nb);
  const std::size_t per_node = local_links_.size();
  Path p;
  p.bandwidth_bytes_per_s = from == to ? kInf : lp.bandwidth;
  p.latency_s = lp.latency;
  for (std::size_t i = 0; i < lp.vertices.size(); ++i) {
    const int node = i <= lp.split ? na : nb;
    const std::size_t v = lp.vertices[i];
    p.vertices.push_back(v == local_devices_ ? std::string(kFabric)
                                             : vertex_name(node, local_names_[v]));
  }
  for (std::size_t i = 0; i < lp.hops.size(); ++i) {
    const int node = i < lp.split ? na : nb;
    const std::size_t link = static_cast<std::size_t>(node) * per_node + lp.hops[i].first;
    p.hops.push_back({link, links_[link].name, lp.hops[i].second});
  }
  return p;
}

std::optional<Assumption> Topology::p2p_assumption(std::size_t link) const {
  const TopologyLink& l = links_.at(link);
  if (l.p2p_measured) return std::nullopt;
  return Assumption{AssumptionKind::kUnmeasuredP2p, {l.model}, {l.nominal_bytes_per_s}};
}

namespace {

// One node's devices of the default device's model, in file order.
std::vector<std::string> data_parallel_node(const SystemSpec& system) {
  const std::string& model = system.device(system.default_device).model;
  std::vector<std::string> per_node;
  for (const DeviceSpec& d : system.devices)
    if (d.model == model) per_node.push_back(d.name);
  return per_node;
}

}  // namespace

int data_parallel_capacity(const SystemSpec& system) {
  return static_cast<int>(data_parallel_node(system).size()) * system.nodes;
}

std::vector<std::string> data_parallel_devices(const SystemSpec& system, int gpus) {
  const std::string& model = system.device(system.default_device).model;
  const std::vector<std::string> per_node = data_parallel_node(system);
  const long total = static_cast<long>(per_node.size()) * system.nodes;
  if (gpus < 1 || gpus > total)
    throw UserError(fmt::format(
        "{}: system '{}' has {} devices of its default device's model ({}: {} per node x {} "
        "node{}; `nodes: N` in the system file multiplies them); asked for {}",
        system.file, system.name, total, model, per_node.size(), system.nodes,
        system.nodes == 1 ? "" : "s", gpus));
  std::vector<std::string> out;
  for (int k = 0; static_cast<int>(out.size()) < gpus; ++k)
    for (const std::string& d : per_node) {
      if (static_cast<int>(out.size()) == gpus) break;
      out.push_back(vertex_name(system.nodes, k, d));
    }
  return out;
}

}  // namespace amdahl::hw
