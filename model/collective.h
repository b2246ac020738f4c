#pragma once
// Collectives (all-reduce, reduce-scatter, all-gather, broadcast) over a group of devices of a
// hw::Topology, costed per algorithm as NCCL runs them (docs/architecture.md "Topology and
// collectives").
//
// p devices, S bytes (the whole buffer: what each device holds before an all-reduce or a
// broadcast, after an all-gather, before a reduce-scatter). Every transfer between two devices
// takes hw::Topology::path(); transfers that run at the same time and cross one link in the
// same direction share it equally.
//
// Ring. The devices in the order the constructor chooses; hop i goes from ring[i] to
// ring[i+1] (the last back to the first). A hop's bandwidth is the minimum over its links of
// (the link's bandwidth / the number of hops crossing that link in that direction); the ring's
// bandwidth B is the minimum over its hops, and its step latency a = step_latency (the
// runtime's, fitted to DeepBench's all-reduce runs by `calibrate allreduce`, hops included).
// A link file's `latency` is a copy's setup cost (cudaMemcpyAsync), which NCCL's kernels do
// not pay per step: it only breaks ties between equally wide rings.
//   all-reduce       2(p-1) (a + S/(pB))       reduce-scatter, then all-gather
//   reduce-scatter    (p-1) (a + S/(pB))
//   all-gather        (p-1) (a + S/(pB))
//   broadcast         (p-1) a + S/B            pipelined: the data flows round once
//
// Tree (all-reduce and broadcast; NCCL has no tree reduce-scatter or all-gather, so those are
// always rings). NCCL's binary tree (ncclGetBtree: rank 0 the root with one child, rank r's
// parent found from its lowest set bit). The ranks are the devices in ring order; in a group
// over several nodes the ranks are the nodes, and each node's devices form a chain in ring order
// below its first device (NCCL's intra-node chain). The reduce phase's transfers (every child to
// its parent at once, S each) share links as the ring's hops do; B_up is the slowest transfer's
// bandwidth; the broadcast phase (parent to child) gives B_down; B_tree = min(B_up, B_down).
// depth: the most parent-child steps from the root to a leaf (ceil(log2 p) for one node; for
// several, ceil(log2 nodes) plus the longest chain); a_tree = step_latency.
//   all-reduce       2 depth a_tree + 2 S/B_tree   reduce up, then broadcast down
//   broadcast          depth a_tree +   S/B_tree   pipelined down the tree
// NCCL runs the second tree of its double binary tree (the first mirrored or shifted, so a rank
// is interior in at most one) on a second channel with half the data, as it runs a ring on
// more than one channel; amdahl costs one channel of each, the per-channel costs NCCL's tuner
// compares (its tree all-reduce time is 2 S / busBw, its ring's 2(p-1)/p S / busBw).
//
// auto (the spec's algorithm): the faster of the two for that collective and size, ring on a
// tie; `ring` or `tree` forces one.
//
// Parameter server (TensorFlow 1.x, tf_cnn_benchmarks --variable_update=parameter_server; not a
// collective NCCL runs). One exchange per variable of S bytes (its fp32 gradient, the size of
// the variable): every replica copies its gradient to the variable's parameter device, which
// sums them (TensorFlow applies the update there too; amdahl costs the update where the lowered
// step has it, on each replica), and every replica copies the variable back. TensorFlow's
// Send/Recv are copies, so each leg pays a copy's setup, a: the largest latency (the link
// files' `latency`, summed along a path) of the legs' paths. Transfers that run at once share
// links as the ring's hops do. M: the parameter device's memory bandwidth; the sum reads p
// gradients and writes one.
//   On the host CPU (--local_parameter_device=cpu), the CPU that drives the first replica: the
//   p gradients go to it at once (the slowest at B_in), the p variables come back at once
//   (B_out):
//     time = 2 a + S/B_in + (p+1) S/M + S/B_out
//   On the GPUs (--local_parameter_device=gpu): the variables are spread over the replicas by
//   size, least-loaded first, so the exchanges of all variables together load every replica's
//   links alike, as an all-to-all in which each of the p(p-1) ordered pairs moves at B_pair (all
//   at once); each variable is charged its share of that all-to-all, (p-1) S of p(p-1) B_pair
//   each way, and of the p parameter devices' sums, which run side by side:
//     time = 2 a + 2 S/(p B_pair) + (p+1) S/(p M)
// The exchanges run one after another on the collective stream; TensorFlow's executor may
// overlap those of different variables, which share the same links.

#include <string>
#include <string_view>
#include <vector>

#include "hw/system.h"
#include "hw/topology.h"

namespace amdahl::model {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kBroadcast };
// kParameterServer: TensorFlow's parameter server (ParameterServer), not an NCCL algorithm.
enum class CollectiveAlgorithm { kRing, kTree, kParameterServer };
inline constexpr int kCollectiveAlgorithmCount =
    static_cast<int>(CollectiveAlgorithm::kParameterServer) + 1;

std::string_view collective_name(Collective c);          // "all-reduce", ...
std::string_view algorithm_name(CollectiveAlgorithm a);  // "ring", "tree", "parameter server"

// One link (an index into hw::Topology::links()) crossed in one direction, as one number:
// 2 link + (forward ? 0 : 1).
std::size_t link_direction(std::size_t link, bool forward);
inline std::size_t link_direction(const hw::PathHop& hop) {
  return link_direction(hop.link, hop.forward);
}

struct CollectiveCost {
  double time_s = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  int steps = 0;                     // latency terms: 2(p-1), p-1, 2 depth, depth; 2 legs
  double step_latency_s = 0;         // a or a_tree
  double bandwidth_bytes_per_s = 0;  // B, B_tree, min(B_in, B_out) or B_pair (0: nothing moves)
};

class CollectiveGroup {
 public:
  // topology: the collective library's view of the system (hw::LinkUse::kCollectives: the
  // links it takes, at its hop bandwidths). devices: topology vertex names
  // (hw::data_parallel_devices' result), at least one, each once. Chooses the ring order that
  // maximises the ring's bandwidth (then the least step latency, then the fewest link crossings):
  // every order with the first device fixed for up to 8 devices in a node; beyond 8, the nearest
  // device next (widest path, then fewest hops). Over several nodes, each node's best ring is cut
  // once so the ring enters and leaves every node once, nodes in the order of `devices`, the cut
  // and direction that give the widest ring. Throws UserError naming the system file and the
  // devices when they are not all devices of one model, or not all joined by links.
  CollectiveGroup(const hw::Topology& topology, std::vector<std::string> devices,
                  const hw::CollectiveSpec& spec);

  int size() const { return static_cast<int>(devices_.size()); }
  const std::vector<std::string>& devices() const { return devices_; }  // as given

  // The cost of one collective of `bytes` with the spec's algorithm (auto: the faster). O(1);
  // zero for one device or 0 bytes.
  CollectiveCost cost(Collective c, double bytes) const;
  // The same with the algorithm forced (tree for reduce-scatter or all-gather is the ring).
  CollectiveCost cost(Collective c, double bytes, CollectiveAlgorithm a) const;

  const std::vector<std::string>& ring() const { return ring_; }  // the ring order chosen
  double ring_bandwidth() const { return ring_bandwidth_; }       // B (inf for one device)
  double ring_step_latency() const { return ring_step_; }         // a
  double tree_bandwidth() const { return tree_bandwidth_; }       // B_tree
  double tree_step_latency() const { return tree_step_; }         // a_tree
  int tree_depth() const { return tree_depth_; }                  // depth

  // One line a user reads: "ring gpu0>gpu1>gpu3>gpu2>gpu0, bottleneck 36.39 GB/s (gpu1>gpu3
  // via cpu0-gpu1, ...), step 15 us; tree depth 2, bottleneck ...".
  std::string route() const;
  // What the costs rely on that was not measured: the spec's defaults, and every link model the
  // ring or the trees cross without a measured p2p bandwidth.
  const std::vector<Assumption>& assumptions() const { return assumptions_; }
  // Whether the algorithm's transfers cross a link in a direction (`direction`, a
  // link_direction()): the ring, its hops; the tree, both phases; the parameter server is not
  // this group's: false.
  bool crosses(CollectiveAlgorithm a, std::size_t direction) const;

 private:
  std::vector<std::string> devices_;
  std::vector<std::size_t> ring_links_;  // link_direction()s the ring crosses, sorted
  std::vector<std::size_t> tree_links_;  // and the tree
  std::vector<std::string> ring_;
  double ring_bandwidth_ = 0;
  double ring_step_ = 0;
  double tree_bandwidth_ = 0;
  double tree_step_ = 0;
  int tree_depth_ = 0;
  hw::CollectiveAlgorithmChoice choice_ = hw::CollectiveAlgorithmChoice::kAuto;
  std::string ring_route_;
  std::string tree_route_;
  std::vector<Assumption> assumptions_;
};

class ParameterServer {
 public:
  // devices: the replicas (hw::data_parallel_devices' result), checked as CollectiveGroup
  // checks them. on_gpus: the variables spread over the replicas; else on the host CPU of the
  // first (hw::SystemSpec::host_of). Throws UserError naming the system file when the system
  // has no CPU, or no chain of links joins it to a replica.
  ParameterServer(const hw::Topology& topology, const hw::SystemSpec& system,
                  const std::vector<std::string>& devices, bool on_gpus);

  // One variable's exchange of `bytes`; zero for one replica or 0 bytes.
  CollectiveCost cost(double bytes) const;

  double leg_latency() const { return latency_; }        // a
  double in_bandwidth() const { return in_; }            // B_in, or B_pair
  double out_bandwidth() const { return out_; }          // B_out, or B_pair
  double memory_bandwidth() const { return memory_; }    // M
  const std::string& server() const { return server_; }  // "cpu0", or "the GPUs"
  std::string route() const { return route_; }           // one line a user reads
  const std::vector<Assumption>& assumptions() const { return assumptions_; }
  // Whether an exchange's transfers (the gradients in or the variables out) cross a link in a
  // direction (`direction`, a link_direction()).
  bool crosses(std::size_t direction) const;

 private:
  int p_ = 1;
  std::vector<std::size_t> links_;  // link_direction()s the legs cross, sorted
  bool on_gpus_ = false;
  double latency_ = 0;
  double in_ = 0;
  double out_ = 0;
  double memory_ = 0;
  std::string server_;
  std::string route_;
  std::vector<Assumption> assumptions_;
};

}  // namespace amdahl::model
