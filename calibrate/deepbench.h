#pragma once
// Importer of DeepBench's published training-kernel results (baidu-research/DeepBench, as
// extracted into shared/data/deepbench; see shared/data/README.md for the caveats) into
// amdahl measurements v1.
//
// Rows taken, for one dataset and one precision (default fp32):
//   deepbench_gemm.csv  -> bench gemm: flops 2mnk, bytes 4(mk + kn + mn), time_us
//                          (cuBLAS column-major m, n, k; integer microseconds, mean of 400
//                          calls per shared/data/README.md)
//   deepbench_conv.csv  -> conv_fwd, conv_bwd_data, conv_bwd_filter from fwd_us,
//                          bwd_data_us, bwd_filter_us (an empty cell is skipped). DeepBench's
//                          W,H,C,N,K,R,S: input W x H, filter R (along H) x S (along W).
//                          flops 2*N*K*P*Q*C*R*S (direct) for each direction; bytes
//                          4(NCHW + KCRS + NKPQ)
//   deepbench_rnn.csv   -> rnn_fwd, rnn_bwd_data, rnn_bwd_filter from fwd_us, bwd_data_us,
//                          bwd_weights_us: flops 2*gates*hidden^2*batch*timesteps each
//                          (DeepBench's count: the recurrent GEMMs; the input projection
//                          W*x is excluded); bytes 4(gates*hidden^2 + (gates + 1)*batch*
//                          hidden*timesteps): weights once, gate pre-activations and outputs.
// The provenance header names the dataset, its workbook, commit, GPU, host CPU, CUDA, cuDNN
// and driver (deepbench_datasets.csv).

#include <string>
#include <utility>
#include <vector>

#include "calibrate/measurement.h"
#include "hw/system.h"

namespace amdahl::calibrate {

// Dataset names in deepbench_datasets.csv, in file order. Throws UserError when the folder
// has no deepbench_datasets.csv.
std::vector<std::string> deepbench_dataset_names(const std::string& dir);

// Throws UserError for an unknown dataset (listing the known ones), a missing file or
// column, a malformed number, a non-positive time, or when the dataset has no row at
// `precision` (listing the precisions it has).
MeasurementSet read_deepbench(const std::string& dir, const std::string& dataset,
                              const std::string& precision = "fp32");

// The card each dataset was measured on is data: a device file of the catalog lists the
// datasets measured on it, e.g. in devices/p100-pcie.yaml
//   deepbench_datasets: [P100_baidu_2018, P100_baidu_2017-05, P100_utsa_2017-04]
// (the DeepBench P100 hosts were PCIe systems, shared/data/README.md).
// Every (dataset, device file path) listed by `catalog_dir`/devices/*.yaml, files in name
// order. UserError when the folder is missing, a file does not parse, the key is not a list
// of names, or two entries name the same dataset.
std::vector<std::pair<std::string, std::string>> deepbench_cards(const std::string& catalog_dir);

// The path of the device file in `catalog_dir` that lists `dataset`. UserError listing every
// listed dataset when none does.
std::string deepbench_measured_device(const std::string& dataset, const std::string& catalog_dir);

// Clock adjustment from the card that was measured to the card being calibrated: rows that
// are compute-bound on `measured`'s nominal roofline at their precision (flops / peak >=
// bytes / bandwidth) have their time scaled by measured.clock / target.clock, because GP100
// PCIe and SXM2 differ in boost clock (1303 vs 1480 MHz, specs.yaml) and not in memory
// (both 732 GB/s HBM2); memory-bound rows are kept. Returns the number of rows adjusted.
// Throws UserError when either device has no clock.
int adjust_for_clock(MeasurementSet& set, const hw::DeviceSpec& measured,
                     const hw::DeviceSpec& target);

}  // namespace amdahl::calibrate
