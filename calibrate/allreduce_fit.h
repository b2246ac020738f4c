#pragma once
// The collectives' latency and bandwidth from DeepBench's all-reduce runs
// (shared/data/deepbench/deepbench_allreduce.csv: time of one all-reduce of `size_bytes` over
// `n_gpus` GPUs on `n_nodes_col` nodes, by dataset: one machine and GPU each).
//
// What is fitted, per dataset, from its NCCL rows (algorithm "NCCL ..."; NCCL 2.0 ran rings
// only, so the ring is forced), costed by model::CollectiveGroup itself over a PCIe box
// (PcieBox): DeepBench's 8-GPU PCIe servers as a tree, GPUs in pairs behind a PCIe switch, two
// switches on each CPU socket's root complex, the two sockets joined by QPI. The workbooks do
// not give the boxes' layout (four datasets name the Tyan FT77C-B7079, an 8-GPU server); this
// is the layout of the 8-GPU PCIe servers of the time, the DGX-1's PCIe tree among them, and an
// ASSUMPTION. Each level is a link of its own fitted bandwidth, so a ring over 2 GPUs runs at
// the switch's, over 4 at the slower of the switch's and the root complex's, over 8 at the
// slowest of the three; over several nodes, each node's socket 0 has one NIC link of bandwidth
// N to the fabric switch. The ring all-reduce is 2(p-1) (a + S/(p B)), B its slowest hop.
//   1. The one-node rows: a, the time of one ring step (runtime.collectives.step_latency with
//      links of no latency), and each level's bandwidth, widest level first and each no wider
//      than the one before: where a fit gives a level more bandwidth than the level before it,
//      the two are fitted as one, and a level no training row crosses takes the bandwidth of
//      the level before it (the first level, of the one after).
//   2. The multi-node rows, with those bandwidths fixed: the ring's step a over several nodes
//      (the step_latency of a multi-node system) and N, the network link's bandwidth. The ring
//      enters and leaves each node once, so each NIC carries one hop each way and the ring's
//      bandwidth is min(B, N); the fit requires N below every level's bandwidth (the network
//      binds), else it is not identifiable.
// Each time is linear in (a, 1/B per level) or (a, 1/N); each fit is least squares on relative
// error (each row weighted by 1 / its measured time), a >= 0 (a negative intercept is refitted
// through zero). The held-out rule of calibrate/holdout.h, applied to the one-node and the
// multi-node rows separately: every fifth row (file order) is held out and only reports its
// error.
//
// Not fitted: the MPI, OSU and Baidu ring rows (not NCCL), and the multi-node rows of a
// dataset with fewer than kMinTrainingRows of them to train on; they are counted in the report,
// not costed.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/error_stats.h"
#include "model/collective.h"

namespace amdahl::calibrate {

struct AllReduceRow {
  std::string where;  // "file:line"
  std::string dataset;
  std::string gpu;
  std::string algorithm;
  int gpus = 0;
  int nodes = 1;
  double bytes = 0;
  double measured_s = 0;
};

// The most GPUs per node a row may have: the PcieBox's slots.
inline constexpr int kMaxGpusPerNode = 8;

// Training rows a fit of a step latency and a bandwidth needs: two unknowns and one row to
// check them on. A dataset with fewer one-node NCCL rows is an error; a dataset's multi-node
// NCCL rows, when fewer, are counted as not fitted and it gets no network fit.
inline constexpr std::size_t kMinTrainingRows = 3;

// The rows of deepbench_allreduce.csv. Throws UserError located at the row for a missing
// column, a non-number, a non-positive time, size or GPU count, or more than kMaxGpusPerNode
// GPUs per node.
std::vector<AllReduceRow> read_deepbench_allreduce(const std::string& path);

// The all-reduce rows of the Tartan suite's NCCL files for one NCCL version (`version` "v1" or
// "v2": `dir`/nccl-<version>-{bandwidth,latency,packet}.txt, shared/data/published/
// dgx1-p100-tartan/README.md), as DeepBench rows of one dataset, `dataset`, algorithm
// "NCCL <version>":
//   bandwidth.txt  OP,GPU,Bandwidth: bus bandwidth (GB/s) at kTartanBandwidthBytes per rank on
//                  GPU = 1..8 GPUs;
//   latency.txt    OP,GPU,Latency: the time (ms) of an 8-byte all-reduce on GPU GPUs;
//   packet.txt     OP,Packet,Bandwidth: bus bandwidth (GB/s) on 8 GPUs of a Packet-byte one.
// An all-reduce's time from its bus bandwidth: S 2(p-1)/p / busbw (nccl-tests' busbw). Rows of
// other collectives are skipped; a one-GPU row (no transfer) and a bus bandwidth printed with
// fewer than two significant digits (below kTartanLeastBusBandwidth: 0.00 and 0.01 GB/s for the
// smallest sizes) are kept as rows no fit uses (algorithm "rounded"), so the report counts them.
// Throws UserError located at the row (file:line, column) for a missing column, a non-number, a
// GPU count outside 1..kMaxGpusPerNode, a size or time outside measured_range, or a negative
// bandwidth.
inline constexpr double kTartanBandwidthBytes = 1024.0 * 1024 * 1024;  // nccl-tests' "1G"
inline constexpr double kTartanLeastBusBandwidth = 0.10e9;             // B/s
// The dataset name `calibrate allreduce --tartan` gives the DGX-1's NCCL 1.x rows.
inline constexpr std::string_view kTartanDataset = "DGX-1_P100_NCCL1";
std::vector<AllReduceRow> read_tartan_allreduce(const std::string& dir, const std::string& version,
                                                const std::string& dataset);

// Whether a row is one a fit uses: an NCCL algorithm, at least 2 GPUs (one node: step 1;
// several: step 2).
bool fitted_allreduce_row(const AllReduceRow& r);

// The levels of the PcieBox a ring hop crosses, widest first: between the two GPUs behind one
// switch, between the switches of one socket (through its root complex), between the sockets.
enum class BoxLevel { kSwitch, kSocket, kQpi };
inline constexpr int kBoxLevels = 3;
std::string_view box_level_name(BoxLevel l);  // "switch", "socket", "QPI"

// The box's vertices and links for `gpus_per_node` GPUs in its first slots (1 to
// kMaxGpusPerNode): GPU i behind switch i/2, switch k on socket k/2, the sockets joined when
// there are two; each link tagged with the level it is. The fits cost rings over it
// (box_ring_allreduce) and `calibrate allreduce -o` writes it as catalog systems
// (allreduce_catalog.h), so both describe one machine.
struct BoxLink {
  std::string from, to;
  BoxLevel level = BoxLevel::kSwitch;
};
struct BoxLayout {
  std::vector<std::string> cpus, switches, gpus;
  std::vector<BoxLink> links;
};
BoxLayout box_layout(int gpus_per_node);

// The vertex of each node that has the NIC over several nodes (one NIC link to the fabric).
inline constexpr std::string_view kBoxNicVertex = "cpu0";

// The machine of a fit, as above: bandwidths per direction, indexed by BoxLevel.
// network_bytes_per_s: N, used only over several nodes.
struct PcieBox {
  double step_latency_s = 0;
  std::array<double, kBoxLevels> level_bytes_per_s{};
  double network_bytes_per_s = 0;
};

// CollectiveGroup's ring all-reduce over `gpus` GPUs spread evenly over `nodes` nodes of the
// box, each node's GPUs in its first slots. Throws UserError when the GPUs do not divide evenly
// over the nodes.
model::CollectiveCost box_ring_allreduce(int gpus, int nodes, double bytes, const PcieBox& box);

struct AllReduceResidual {
  AllReduceRow row;
  double predicted_s = 0;
  bool held_out = false;
};

// Step 2: the multi-node rows' ring step and network bandwidth.
struct NetworkFit {
  double step_latency_s = 0;
  double bytes_per_s = 0;
  ErrorStats train;
  ErrorStats held_out;
};

struct AllReduceFit {
  std::string dataset;
  std::string gpu;
  double step_latency_s = 0;
  std::array<double, kBoxLevels> level_bytes_per_s{};  // by BoxLevel
  ErrorStats train;
  ErrorStats held_out;
  std::optional<NetworkFit> network;  // absent: < kMinTrainingRows multi-node rows to train
  int rows_not_fitted = 0;            // non-NCCL rows; multi-node rows when `network` is absent
  std::vector<AllReduceResidual> residuals;  // one-node rows, then multi-node rows
};

// One fit per dataset with one-node rows, in order of first appearance. Throws UserError
// naming the dataset when it has fewer than kMinTrainingRows one-node training rows, a fitted
// bandwidth is not positive, or the network's is not below every level's.
std::vector<AllReduceFit> fit_allreduce(const std::vector<AllReduceRow>& rows);

}  // namespace amdahl::calibrate
