#pragma once
// The all-reduce fits (allreduce_fit.h) as catalog files, so that a data-parallel prediction
// runs on the machine DeepBench measured: `amdahl calibrate allreduce --dir DIR -o CATALOG`.
// For each fitted dataset whose card a catalog device file lists under deepbench_datasets
// (deepbench_cards), under CATALOG:
//   links/deepbench-<slug>-<level>.yaml   one per box level (switch, socket, qpi): the fitted
//                                         ring-hop bandwidth as `p2p` and `bandwidth`, latency 0
//                                         (a ring step's latency is the fitted step_latency)
//   links/deepbench-<slug>-network.yaml   the fitted network link, when the dataset has one
//   systems/deepbench-<slug>.yaml         one node: 8 GPUs in the box layout (box_layout), the
//                                         one-node step latency
//   systems/deepbench-<slug>-cluster.yaml with a network fit: the most nodes its multi-node rows
//                                         ran on, the multi-node step latency, one NIC on cpu0
// <slug> is the dataset name in lower case with '_' as '-'. Device includes are relative to
// CATALOG/systems, so the files sit in a catalog beside its devices/ folder. The box's host is
// the catalog's Xeon E5-2698 v4 standing in for the dataset's CPU (named in the source). The
// runtime is an assumption (DeepBench timed NCCL alone, no framework).

#include <string>
#include <utility>
#include <vector>

#include "calibrate/allreduce_fit.h"

namespace amdahl::calibrate {

struct CatalogFile {
  std::string path;  // relative to the catalog folder, e.g. "systems/deepbench-1080ti.yaml"
  std::string text;
};

struct AllReduceCatalog {
  std::vector<CatalogFile> files;
  // Fitted datasets no catalog device file lists (no system is written for them).
  std::vector<std::string> without_device;
};

// The dataset as file names have it: lower case, '_' as '-' ("TitanX_Maxwell" ->
// "titanx-maxwell").
std::string dataset_slug(const std::string& dataset);
// "deepbench-<slug>", with "-cluster" for the system of several nodes.
std::string allreduce_system_name(const std::string& dataset, bool cluster = false);

// `deepbench_dir`: the folder of deepbench_allreduce.csv and deepbench_datasets.csv, cited in
// the files as given (e.g. "../shared/data/deepbench"); `catalog_dir`: the catalog whose
// devices/ the systems include; `out_dir`: the catalog folder the files go to (absolute or
// relative to the working folder). UserError for a dataset missing from deepbench_datasets.csv.
AllReduceCatalog allreduce_catalog(const std::vector<AllReduceFit>& fits,
                                   const std::string& deepbench_dir, const std::string& catalog_dir,
                                   const std::string& out_dir);

}  // namespace amdahl::calibrate
