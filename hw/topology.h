#pragma once
// Topology: a system's devices and links as a graph, and the path a device-to-device transfer
// takes through it (docs/architecture.md "Topology and collectives").
//
// Vertices are the system's devices and its PCIe switches (SwitchSpec); in a multi-node system
// (`nodes: N`) every node's, named "n<k>.<device>" (k from 0), plus one vertex "fabric", the
// network's switch. Edges are
// the links, and in a multi-node system one NIC link "n<k>.nic<j>" from each `network.attach`
// device of node k to the fabric. Links are full duplex: each direction is a separate resource
// with the link's bandwidth. The switch is non-blocking (a fat tree with full bisection).
//
// Identical nodes share one Boost graph of a node (its devices, its links, its NIC links and the
// fabric vertex): a path inside node k is a path of that graph, renamed; a path from node k to
// node m is a path to the fabric in k's copy joined to a path from it in m's copy.

#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hw/system.h"

namespace amdahl::hw {

// A device, a PCIe switch of the system file (SwitchSpec), or the network's fabric switch.
enum class VertexKind { kDevice, kSwitch, kFabric };

struct TopologyVertex {
  std::string name;  // "gpu0"; "n1.gpu0" with nodes > 1; "fabric"
  VertexKind kind = VertexKind::kDevice;
  int node = 0;        // -1 for the fabric switch
  std::string device;  // the device's or switch's name in the system file ("gpu0", "plx0");
                       // empty for the fabric
  std::string model;   // the device's model ("Tesla P100 SXM2 16GB"); "fabric switch"
};

struct TopologyLink {
  std::string name;  // "gpu0-gpu1"; "n1.gpu0-gpu1", "n1.nic0" with nodes > 1
  std::string from;  // vertex names
  std::string to;
  std::string model;                 // "NVLink 1.0 x2"
  double bandwidth_bytes_per_s = 0;  // per direction, what a transfer gets: p2p when measured,
                                     // else nominal (LinkSpec::p2p_bandwidth)
  double nominal_bytes_per_s = 0;    // per direction
  double latency_s = 0;
  bool p2p_measured = false;
};

// One link crossed in one direction.
struct PathHop {
  std::size_t link = 0;  // index into Topology::links()
  std::string name;      // the link's name
  bool forward = true;   // from the link's `from` to its `to`
};

struct Path {
  std::vector<std::string> vertices;  // from, ..., to
  std::vector<PathHop> hops;          // vertices.size() - 1 of them
  double bandwidth_bytes_per_s = 0;   // the bottleneck: min over the hops' links; inf for a
                                      // path from a device to itself
  double latency_s = 0;               // sum over the hops' links

  // "gpu0>cpu0>cpu1>gpu2"
  std::string str() const;
};

// Which links a Topology's paths may take and at what bandwidth: every link at its p2p
// bandwidth (kAll: copies, the parameter server), or as the runtime's collective library moves
// data (kCollectives: without the links that join two accelerators when
// `collectives.peer_links` is false, and at `collectives.link_bandwidth` over the link models
// it names). Both views index links() alike.
enum class LinkUse { kAll, kCollectives };

class Topology {
 public:
  // Throws UserError naming the system file when a link or `network.attach` names no device
  // (load_system has checked both for a loaded system).
  explicit Topology(const SystemSpec& system, LinkUse use = LinkUse::kAll);

  const std::string& system_name() const { return system_name_; }
  const std::string& system_file() const { return system_file_; }
  int nodes() const { return nodes_; }
  const std::vector<TopologyVertex>& vertices() const { return vertices_; }
  const std::vector<TopologyLink>& links() const { return links_; }

  // The vertex of that name. Throws UserError naming the system file and the valid names.
  const TopologyVertex& vertex(const std::string& name) const;
  bool has_vertex(const std::string& name) const { return index_.count(name) != 0; }
  // The name of node `node`'s device `device` ("gpu0", or "n<node>.gpu0" with nodes > 1).
  std::string vertex_name(int node, const std::string& device) const;

  // The index in links() of node `node`'s copy of the system file's link `link` (an index into
  // SystemSpec::links); InternalError when either is out of range.
  std::size_t link_index(int node, std::size_t link) const;

  // Whether a chain of links joins a and b (both vertex names; UserError when unknown).
  bool connected(const std::string& a, const std::string& b) const;

  // The path a transfer from `from` to `to` takes: the widest path (largest bottleneck
  // bandwidth), ties broken by fewest hops, then least latency, then the order of the file.
  // Throws UserError naming the system file and both vertices when no chain of links joins
  // them, or when a name is not a vertex.
  Path path(const std::string& from, const std::string& to) const;

  // Of `candidates` (devices of from's node), the index of the one that path(from, c) reaches
  // widest, then in the fewest hops, then with the least latency, then the first listed: the
  // next device of a greedy ring (model::CollectiveGroup). One breadth-first search per distinct
  // link bandwidth and one shortest-path search in all, where path() searches per candidate.
  // A candidate no chain of links reaches is never chosen. Throws UserError when none is
  // reached, InternalError when there are no candidates or they are not all on from's node.
  std::size_t nearest(const std::string& from, const std::vector<std::string>& candidates) const;
  // A greedy ring of `devices` (one node's): devices[0], then repeatedly the nearest (as
  // nearest() chooses) of those not yet placed; as indices into `devices`. Names are resolved
  // once, so a chain of n devices costs n pairs of searches and no name lookups per step.
  // Throws as nearest() does.
  std::vector<std::size_t> nearest_chain(const std::vector<std::string>& devices) const;

  // For a link without a measured p2p bandwidth, the assumption a result that uses it lists,
  // the same for every link of its model (kUnmeasuredP2p: its model and nominal bandwidth per
  // direction); nullopt when measured.
  std::optional<Assumption> p2p_assumption(std::size_t link) const;

  // The Boost graph of one node (vertex i: local_vertices()[i]; edge property: the index of the
  // link in local_links()). A node's links come first, then its NIC links.
  struct LocalEdge {
    std::size_t link = 0;
  };
  using NodeGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                          boost::no_property, LocalEdge>;
  const NodeGraph& node_graph() const { return graph_; }

 private:
  struct LocalLink {
    std::size_t from = 0;  // local vertex indices
    std::size_t to = 0;
  };
  // A path in the node graph: local vertex indices and (local link, forward) hops. A path
  // between two nodes: its first `split` hops (and vertices up to the fabric, vertices[split])
  // are in the first node's copy, the rest in the second's.
  struct LocalPath {
    std::vector<std::size_t> vertices;
    std::vector<std::pair<std::size_t, bool>> hops;
    std::size_t split = 0;
    double bandwidth = 0;
    double latency = 0;
  };
  struct PathCache {
    std::mutex mutex;
    std::map<std::tuple<std::size_t, std::size_t, bool>, LocalPath> paths;
  };
  double widest(std::size_t from, std::size_t to) const;
  // nearest() on local vertices: the index into `local` of the one chosen, local.size() when no
  // chain of links reaches any of them.
  std::size_t nearest_local(std::size_t from, const std::vector<std::size_t>& local) const;
  // The local vertices of `from` and of `names`, which must all be devices of from's node
  // (InternalError otherwise, naming `from` and the stray one).
  struct NodeLocals {
    std::size_t from;
    std::vector<std::size_t> names;
  };
  NodeLocals node_locals(const std::string& from, const std::vector<std::string>& names) const;
  LocalPath shortest_within(std::size_t from, std::size_t to, double min_bandwidth) const;
  // The cached node-graph path between two local vertices, inside one node (`across` false) or
  // from the first node to the fabric and on into another (`across` true).
  const LocalPath& local_path(std::size_t from, std::size_t to, bool across) const;
  std::size_t index_of(const std::string& name) const;  // UserError when unknown
  [[noreturn]] void throw_unconnected(const std::string& a, const std::string& b) const;
  // (node, local vertex) of a global vertex index; node -1 for the fabric.
  std::pair<int, std::size_t> locate(std::size_t vertex) const;

  std::string system_name_;
  std::string system_file_;
  int nodes_ = 1;
  std::size_t local_devices_ = 0;         // devices and switches per node
  std::vector<std::string> local_names_;  // local vertex names: the devices, then "fabric"
  std::vector<LocalLink> local_links_;
  std::vector<int> component_;  // connected component of each local vertex
  NodeGraph graph_;
  std::vector<TopologyVertex> vertices_;
  std::vector<TopologyLink> links_;
  std::map<std::string, std::size_t> index_;  // vertex name -> index in vertices_

  std::vector<double> local_bandwidth_;  // per local link, per direction (p2p or nominal)
  std::vector<double> local_latency_;
  std::vector<double> bandwidth_levels_;  // the distinct local_bandwidth_, widest first
  std::unique_ptr<PathCache> cache_ = std::make_unique<PathCache>();
};

// The vertex name of node `node`'s device `device` in a system of `nodes` nodes: "gpu0", or
// "n<node>.gpu0" when nodes > 1.
std::string vertex_name(int nodes, int node, const std::string& device);

// How many devices a data-parallel job can use: the system's devices of its default device's
// model, over all its nodes.
int data_parallel_capacity(const SystemSpec& system);

// The devices a data-parallel job on `gpus` devices uses: the first `gpus` devices of the
// system's default device's model, in file order, node 0's first, then node 1's, ... (vertex
// names of hw::Topology). Throws UserError naming the system (name and file) and how many it
// has when gpus < 1 or more than it has.
std::vector<std::string> data_parallel_devices(const SystemSpec& system, int gpus);

}  // namespace amdahl::hw
