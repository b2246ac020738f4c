#include "model/collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include "hw/units.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::model {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Orders of up to this many devices of one node are searched exhaustively ((n-1)! orders:
// 5040 for 8, a DGX-1 or a Minsky node).
constexpr std::size_t kExhaustiveDevices = 8;
// A route lists at most this many ring devices.
constexpr std::size_t kRouteDevices = 16;

std::string bandwidth_text(double b) { return hw::format_quantity(b, hw::Dimension::kBandwidth); }
std::string time_text(double t) { return hw::format_quantity(t, hw::Dimension::kTime); }

// The link_direction()s a set of transfers crosses, sorted, each once.
std::vector<std::size_t> crossed(std::initializer_list<const std::vector<const hw::Path*>*> sets) {
  std::vector<std::size_t> keys;
  for (const auto* set : sets)
    for (const hw::Path* f : *set)
      for (const hw::PathHop& h : f->hops) keys.push_back(link_direction(h));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

bool contains(const std::vector<std::size_t>& sorted, std::size_t key) {
  return std::binary_search(sorted.begin(), sorted.end(), key);
}

// What a set of transfers that run at the same time achieve.
struct FlowStats {
  double rate = kInf;  // the slowest transfer's bandwidth
  double latency = 0;  // the largest path latency
  std::size_t crossings = 0;
  std::size_t slowest = 0;  // that transfer (index into the flows)
  std::size_t link = 0;     // the link that bounds it
  int share = 1;            // transfers crossing that link in that direction
};

// Whether `a` is the better ring: wider, then lower latency, then fewer link crossings.
bool better(const FlowStats& a, const FlowStats& b) {
  if (a.rate != b.rate) return a.rate > b.rate;
  if (a.latency != b.latency) return a.latency < b.latency;
  return a.crossings < b.crossings;
}

// Shares each link direction among the transfers that cross it (counts kept between calls so
// an exhaustive search allocates nothing).
class LinkShare {
 public:
  explicit LinkShare(const hw::Topology& t) : topology_(t), count_(2 * t.links().size(), 0) {}

  FlowStats evaluate(const std::vector<const hw::Path*>& flows) {
    FlowStats s;
    for (const hw::Path* f : flows)
      for (const hw::PathHop& h : f->hops) {
        int& c = count_[link_direction(h)];
        if (c++ == 0) touched_.push_back(link_direction(h));
      }
    const auto& links = topology_.links();
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const hw::Path& f = *flows[i];
      s.latency = std::max(s.latency, f.latency_s);
      s.crossings += f.hops.size();
      for (const hw::PathHop& h : f.hops) {
        const int n = count_[link_direction(h)];
        const double rate = links[h.link].bandwidth_bytes_per_s / n;
        if (rate < s.rate) s = FlowStats{rate, s.latency, s.crossings, i, h.link, n};
      }
    }
    for (const std::size_t k : touched_) count_[k] = 0;
    touched_.clear();
    return s;
  }

 private:
  const hw::Topology& topology_;
  std::vector<int> count_;
  std::vector<std::size_t> touched_;
};

// Paths between devices, each computed once.
class PathCache {
 public:
  explicit PathCache(const hw::Topology& t) : topology_(t) {}
  const hw::Path& get(const std::string& from, const std::string& to) {
    auto it = paths_.find({from, to});
    if (it == paths_.end())
      it = paths_.emplace(std::make_pair(from, to), topology_.path(from, to)).first;
    return it->second;
  }

 private:
  const hw::Topology& topology_;
  std::map<std::pair<std::string, std::string>, hw::Path> paths_;
};

FlowStats ring_stats(const std::vector<std::string>& ring, PathCache& paths, LinkShare& share) {
  std::vector<const hw::Path*> hops;
  if (ring.size() < 2) return {};
  for (std::size_t i = 0; i < ring.size(); ++i)
    hops.push_back(&paths.get(ring[i], ring[(i + 1) % ring.size()]));
  return share.evaluate(hops);
}

// The best ring order of one node's devices, as indices into `names`.
std::vector<std::size_t> best_node_ring(const hw::Topology& topology,
                                        const std::vector<std::string>& names, PathCache& paths,
                                        LinkShare& share) {
  const std::size_t n = names.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (n <= 2) return order;
  if (n <= kExhaustiveDevices) {
    std::vector<std::vector<const hw::Path*>> path(n, std::vector<const hw::Path*>(n, nullptr));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (i != j) path[i][j] = &paths.get(names[i], names[j]);
    std::vector<std::size_t> best = order;
    FlowStats best_stats;
    bool first = true;
    std::vector<const hw::Path*> hops(n);
    do {
      for (std::size_t i = 0; i < n; ++i) hops[i] = path[order[i]][order[(i + 1) % n]];
      const FlowStats s = share.evaluate(hops);
      if (first || better(s, best_stats)) {
        best = order;
        best_stats = s;
        first = false;
      }
    } while (std::next_permutation(order.begin() + 1, order.end()));
    return best;
  }
  // Nearest next (hw::Topology::nearest_chain): the widest path from the last device placed,
  // then the fewest hops, then the least latency, then file order.
  return topology.nearest_chain(names);
}

// NCCL's binary tree over ranks 0..n-1 (rank 0 the root, with one child): the parent of r.
int btree_parent(int r, int n) {
  if (r == 0) return -1;
  const int bit = r & -r;
  const int up = (r ^ bit) | (bit << 1);
  return up < n ? up : r ^ bit;
}

int depth_of(const std::vector<int>& parent) {
  int depth = 0;
  for (std::size_t i = 0; i < parent.size(); ++i) {
    int d = 0;
    for (int v = static_cast<int>(i); parent[static_cast<std::size_t>(v)] >= 0;
         v = parent[static_cast<std::size_t>(v)])
      ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

std::string describe_bottleneck(const FlowStats& s, const hw::Path& p, const hw::Topology& t) {
  const hw::TopologyLink& l = t.links()[s.link];
  std::string text = fmt::format("{} at {} (link {}, {}", bandwidth_text(s.rate), p.str(), l.name,
                                 bandwidth_text(l.bandwidth_bytes_per_s));
  if (s.share > 1) text += fmt::format(" shared by {} transfers", s.share);
  return text + ")";
}

// Appends to `out` the p2p assumption of every link the flows cross (Topology::p2p_assumption),
// each once, in the order first crossed.
void note_p2p_assumptions(const hw::Topology& topology,
                          std::initializer_list<const std::vector<const hw::Path*>*> flows,
                          std::vector<Assumption>& out) {
  for (const auto* set : flows)
    for (const hw::Path* f : *set)
      for (const hw::PathHop& h : f->hops) {
        const std::optional<Assumption> a = topology.p2p_assumption(h.link);
        if (a && std::find(out.begin(), out.end(), *a) == out.end()) out.push_back(*a);
      }
}

// Throws UserError naming the system file and the devices unless `devices` are one or more
// distinct devices of one model, all joined by links.
void check_group(const hw::Topology& topology, const std::vector<std::string>& devices) {
  const std::string where =
      fmt::format("{}: system '{}'", topology.system_file(), topology.system_name());
  if (devices.empty()) throw UserError(where + ": a collective needs at least one device");
  std::set<std::string> seen;
  for (const std::string& d : devices) {
    const hw::TopologyVertex& v = topology.vertex(d);
    if (v.kind != hw::VertexKind::kDevice)
      throw UserError(
          fmt::format("{}: '{}' is the network's switch, not a device of a collective", where, d));
    if (!seen.insert(d).second)
      throw UserError(fmt::format("{}: device {} is twice in a collective's devices", where, d));
    const hw::TopologyVertex& first = topology.vertex(devices.front());
    if (v.model != first.model)
      throw UserError(
          fmt::format("{}: a collective's devices are of one model: {} is a {}, {} a {}", where,
                      devices.front(), first.model, d, v.model));
  }
  std::vector<std::string> unreachable;
  for (const std::string& d : devices)
    if (!topology.connected(devices.front(), d)) unreachable.push_back(d);
  if (!unreachable.empty())
    throw UserError(fmt::format(
        "{}: no chain of links joins {} to {} (a collective needs every device reachable; add a "
        "link to the system's `links`)",
        where, devices.front(), join(unreachable)));
}

}  // namespace

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all-reduce";
    case Collective::kReduceScatter:
      return "reduce-scatter";
    case Collective::kAllGather:
      return "all-gather";
    case Collective::kBroadcast:
      return "broadcast";
  }
  return "?";
}

std::string_view algorithm_name(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kTree:
      return "tree";
    case CollectiveAlgorithm::kParameterServer:
      return "parameter server";
  }
  return "?";
}

std::size_t link_direction(std::size_t link, bool forward) { return 2 * link + (forward ? 0 : 1); }

CollectiveGroup::CollectiveGroup(const hw::Topology& topology, std::vector<std::string> given,
                                 const hw::CollectiveSpec& spec)
    : devices_(std::move(given)), choice_(spec.algorithm) {
  const std::vector<std::string>& devices = devices_;
  check_group(topology, devices);
  PathCache paths(topology);
  LinkShare share(topology);

  // Nodes in the order of `devices`, each node's devices in theirs.
  std::vector<int> node_order;
  std::map<int, std::vector<std::string>> by_node;
  for (const std::string& d : devices) {
    const int node = topology.vertex(d).node;
    if (!by_node.count(node)) node_order.push_back(node);
    by_node[node].push_back(d);
  }
  // Each node's best ring, as indices into its devices (nodes with the same devices share it).
  std::map<std::vector<std::string>, std::vector<std::size_t>> node_rings;
  std::vector<std::vector<std::string>> groups;
  for (const int node : node_order) {
    const std::vector<std::string>& names = by_node[node];
    std::vector<std::string> local;
    for (const std::string& d : names) local.push_back(topology.vertex(d).device);
    auto it = node_rings.find(local);
    if (it == node_rings.end())
      it = node_rings.emplace(local, best_node_ring(topology, names, paths, share)).first;
    std::vector<std::string> ring;
    for (const std::size_t i : it->second) ring.push_back(names[i]);
    groups.push_back(std::move(ring));
  }

  // One node: its ring. Several: each node's ring cut at the same place and in the same
  // direction, entered at its first device and left at its last.
  FlowStats ring_s;
  if (groups.size() == 1) {
    ring_ = groups.front();
    ring_s = ring_stats(ring_, paths, share);
  } else {
    std::size_t widest_node = 0;
    for (const auto& g : groups) widest_node = std::max(widest_node, g.size());
    bool first = true;
    for (std::size_t cut = 0; cut < widest_node; ++cut)
      for (const bool reverse : {false, true}) {
        std::vector<std::string> ring;
        for (const auto& g : groups)
          for (std::size_t i = 0; i < g.size(); ++i) {
            const std::size_t at = reverse ? (cut + g.size() - i) % g.size() : (cut + i) % g.size();
            ring.push_back(g[at]);
          }
        const FlowStats s = ring_stats(ring, paths, share);
        if (first || better(s, ring_s)) {
          ring_ = std::move(ring);
          ring_s = s;
          first = false;
        }
      }
  }
  const std::size_t p = ring_.size();
  ring_bandwidth_ = p < 2 ? kInf : ring_s.rate;
  ring_step_ = spec.step_latency_s;  // the links' latency is a copy's setup: not paid per step

  // NCCL's binary tree (tree 0 of its double binary tree) over the ranks: the devices in ring
  // order, or the nodes with each node's devices chained below its first.
  std::vector<std::size_t> offset;  // each node's first position in the ring
  for (std::size_t g = 0, at = 0; g < groups.size(); at += groups[g].size(), ++g)
    offset.push_back(at);
  std::vector<int> parent(p, -1);
  if (groups.size() == 1) {
    for (std::size_t i = 0; i < p; ++i)
      parent[i] = btree_parent(static_cast<int>(i), static_cast<int>(p));
  } else {
    const int n = static_cast<int>(groups.size());
    for (int g = 0; g < n; ++g) {
      const std::size_t head = offset[static_cast<std::size_t>(g)];
      for (std::size_t i = 1; i < groups[static_cast<std::size_t>(g)].size(); ++i)
        parent[head + i] = static_cast<int>(head + i - 1);
      const int up = btree_parent(g, n);
      parent[head] = up < 0 ? -1 : static_cast<int>(offset[static_cast<std::size_t>(up)]);
    }
  }
  std::vector<const hw::Path*> up, down;
  for (std::size_t i = 0; i < p; ++i) {
    const int q = parent[i];
    if (q < 0) continue;
    up.push_back(&paths.get(ring_[i], ring_[static_cast<std::size_t>(q)]));
    down.push_back(&paths.get(ring_[static_cast<std::size_t>(q)], ring_[i]));
  }
  const FlowStats up_s = share.evaluate(up);
  const FlowStats down_s = share.evaluate(down);
  tree_bandwidth_ = p < 2 ? kInf : std::min(up_s.rate, down_s.rate);
  tree_step_ = spec.step_latency_s;
  tree_depth_ = depth_of(parent);

  // The route a user reads.
  if (p < 2) {
    ring_route_ = fmt::format("one device ({}): no transfers", ring_.front());
  } else {
    std::vector<std::string> shown(ring_.begin(),
                                   ring_.begin() + static_cast<long>(std::min(p, kRouteDevices)));
    std::string order = join(shown, ">");
    order += p > kRouteDevices ? fmt::format(">... ({} devices over {} nodes)", p, groups.size())
                               : ">" + ring_.front();
    const hw::Path& slow = paths.get(ring_[ring_s.slowest], ring_[(ring_s.slowest + 1) % p]);
    ring_route_ = fmt::format("ring {}, bottleneck {}, step {}", order,
                              describe_bottleneck(ring_s, slow, topology), time_text(ring_step_));
    const bool up_bound = up_s.rate <= down_s.rate;
    const FlowStats& tree_s = up_bound ? up_s : down_s;
    const hw::Path& tree_slow = *(up_bound ? up : down)[tree_s.slowest];
    tree_route_ =
        fmt::format("tree depth {}, bottleneck {}, step {}", tree_depth_,
                    describe_bottleneck(tree_s, tree_slow, topology), time_text(tree_step_));
  }

  assumptions_ = spec.assumptions;
  std::vector<const hw::Path*> ring_hops;
  for (std::size_t i = 0; p > 1 && i < p; ++i)
    ring_hops.push_back(&paths.get(ring_[i], ring_[(i + 1) % p]));
  note_p2p_assumptions(topology, {&up, &down, &ring_hops}, assumptions_);
  ring_links_ = crossed({&ring_hops});
  tree_links_ = crossed({&up, &down});
}

bool CollectiveGroup::crosses(CollectiveAlgorithm a, std::size_t direction) const {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return contains(ring_links_, direction);
    case CollectiveAlgorithm::kTree:
      return contains(tree_links_, direction);
    case CollectiveAlgorithm::kParameterServer:
      break;
  }
  return false;
}

CollectiveCost CollectiveGroup::cost(Collective c, double bytes) const {
  switch (choice_) {
    case hw::CollectiveAlgorithmChoice::kRing:
      return cost(c, bytes, CollectiveAlgorithm::kRing);
    case hw::CollectiveAlgorithmChoice::kTree:
      return cost(c, bytes, CollectiveAlgorithm::kTree);
    case hw::CollectiveAlgorithmChoice::kAuto:
      break;
  }
  const CollectiveCost ring = cost(c, bytes, CollectiveAlgorithm::kRing);
  const CollectiveCost tree = cost(c, bytes, CollectiveAlgorithm::kTree);
  return tree.time_s < ring.time_s ? tree : ring;
}

CollectiveCost CollectiveGroup::cost(Collective c, double bytes, CollectiveAlgorithm a) const {
  const int p = size();
  if (a == CollectiveAlgorithm::kParameterServer)
    throw InternalError("CollectiveGroup::cost: the parameter server is ParameterServer's");
  if (p < 2 || bytes <= 0) return CollectiveCost{0, CollectiveAlgorithm::kRing, 0, 0, 0};
  const bool tree = a == CollectiveAlgorithm::kTree &&
                    (c == Collective::kAllReduce || c == Collective::kBroadcast);
  CollectiveCost k;
  if (!tree) {
    const double a_ring = ring_step_;
    const double b = ring_bandwidth_;
    k.algorithm = CollectiveAlgorithm::kRing;
    k.step_latency_s = a_ring;
    k.bandwidth_bytes_per_s = b;
    switch (c) {
      case Collective::kAllReduce:
        k.steps = 2 * (p - 1);
        k.time_s = k.steps * (a_ring + bytes / (p * b));
        break;
      case Collective::kReduceScatter:
      case Collective::kAllGather:
        k.steps = p - 1;
        k.time_s = k.steps * (a_ring + bytes / (p * b));
        break;
      case Collective::kBroadcast:
        k.steps = p - 1;
        k.time_s = k.steps * a_ring + bytes / b;
        break;
    }
    return k;
  }
  k.algorithm = CollectiveAlgorithm::kTree;
  k.step_latency_s = tree_step_;
  k.bandwidth_bytes_per_s = tree_bandwidth_;
  if (c == Collective::kAllReduce) {
    k.steps = 2 * tree_depth_;
    k.time_s = k.steps * tree_step_ + 2 * bytes / tree_bandwidth_;
  } else {
    k.steps = tree_depth_;
    k.time_s = k.steps * tree_step_ + bytes / tree_bandwidth_;
  }
  return k;
}

std::string CollectiveGroup::route() const {
  return tree_route_.empty() ? ring_route_ : ring_route_ + "; " + tree_route_;
}

ParameterServer::ParameterServer(const hw::Topology& topology, const hw::SystemSpec& system,
                                 const std::vector<std::string>& devices, bool on_gpus)
    : p_(static_cast<int>(devices.size())), on_gpus_(on_gpus) {
  check_group(topology, devices);
  PathCache paths(topology);
  LinkShare share(topology);
  std::vector<const hw::Path*> in, out;
  if (on_gpus) {
    server_ = "the GPUs";
    for (const std::string& from : devices)
      for (const std::string& to : devices)
        if (from != to) in.push_back(&paths.get(from, to));
    out = in;
    memory_ = system.device(topology.vertex(devices.front()).device).memory.bandwidth_bytes_per_s;
  } else {
    const hw::TopologyVertex& first = topology.vertex(devices.front());
    const hw::DeviceSpec* host = system.host_of(first.device);
    if (host == nullptr)
      throw UserError(
          fmt::format("{}: system '{}' has no CPU to hold a parameter server's variables (use "
                      "parameter-server-gpu)",
                      topology.system_file(), topology.system_name()));
    server_ = topology.vertex_name(std::max(first.node, 0), host->name);
    for (const std::string& d : devices) {
      in.push_back(&paths.get(d, server_));  // UserError when no link joins them
      out.push_back(&paths.get(server_, d));
    }
    memory_ = host->memory.bandwidth_bytes_per_s;
  }
  const FlowStats in_s = share.evaluate(in);
  const FlowStats out_s = share.evaluate(out);
  in_ = p_ < 2 ? kInf : in_s.rate;
  out_ = p_ < 2 ? kInf : out_s.rate;
  latency_ = std::max(in_s.latency, out_s.latency);
  if (p_ < 2) {
    route_ = fmt::format("one device ({}): no transfers", devices.front());
  } else if (on_gpus) {
    route_ = fmt::format(
        "parameter server on the GPUs (variables spread by size): all-to-all bottleneck {}, "
        "copy setup {}, sum at {}",
        describe_bottleneck(in_s, *in[in_s.slowest], topology), time_text(latency_),
        bandwidth_text(memory_));
  } else {
    route_ = fmt::format(
        "parameter server on {}: gradients in, bottleneck {}; variables out, bottleneck {}; copy "
        "setup {}, sum at {}",
        server_, describe_bottleneck(in_s, *in[in_s.slowest], topology),
        describe_bottleneck(out_s, *out[out_s.slowest], topology), time_text(latency_),
        bandwidth_text(memory_));
  }
  note_p2p_assumptions(topology, {&in, &out}, assumptions_);
  if (p_ > 1) links_ = crossed({&in, &out});
}

bool ParameterServer::crosses(std::size_t direction) const { return contains(links_, direction); }

CollectiveCost ParameterServer::cost(double bytes) const {
  CollectiveCost k;
  k.algorithm = CollectiveAlgorithm::kParameterServer;
  if (p_ < 2 || bytes <= 0) return k;
  const double p = p_;
  k.steps = 2;
  k.step_latency_s = latency_;
  k.bandwidth_bytes_per_s = std::min(in_, out_);
  k.time_s = on_gpus_ ? 2 * latency_ + 2 * bytes / (p * in_) + (p + 1) * bytes / (p * memory_)
                      : 2 * latency_ + bytes / in_ + (p + 1) * bytes / memory_ + bytes / out_;
  return k;
}

}  // namespace amdahl::model
