# End-to-end checks of `amdahl calibrate` (run by ctest as cli.calibrate).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(expect_failure what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${what}: expected exit status 2, got ${rc}: ${err}")
  endif()
  set(last_error "${err}" PARENT_SCOPE)
endfunction()

# The shipped P100 SXM2 file is what the command writes from DeepBench.
execute_process(
  COMMAND ${AMDAHL} calibrate deepbench --dir ${SHARED}/data/deepbench --dataset P100_baidu_2018
          --base ${SOURCE}/hw/catalog/devices/p100-sxm2.yaml --out ${WORK}/p100.yaml
          --residuals ${WORK}/residuals.csv
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "calibrate deepbench failed (${rc}): ${err}")
endif()
# --residuals: one line per fitted row (601 fp32 rows), held out: every fifth shape of gemm (32),
# conv (19 x 3 directions) and rnn (30).
file(STRINGS ${WORK}/residuals.csv residual_lines)
list(LENGTH residual_lines residual_count)
file(STRINGS ${WORK}/residuals.csv held_lines REGEX ",held_out,")
list(LENGTH held_lines held_count)
list(GET residual_lines 0 residual_header)
if(NOT residual_count EQUAL 602 OR NOT held_count EQUAL 119
   OR NOT residual_header STREQUAL "entry,split,measurement,measured_us,predicted_us,error,model_kernel")
  message(FATAL_ERROR "residuals.csv: ${residual_count} lines, ${held_count} held out, header "
                      "'${residual_header}' (expected 602, 119, entry,split,...)")
endif()
file(READ ${WORK}/p100.yaml produced)
file(READ ${SOURCE}/hw/catalog/devices/p100-sxm2.yaml shipped)
if(NOT produced STREQUAL shipped)
  message(FATAL_ERROR "hw/catalog/devices/p100-sxm2.yaml differs from a fresh calibration "
                      "(${WORK}/p100.yaml)")
endif()

# check: the shipped file predicts DeepBench's rows as it is (its own dataset here: every
# entry, 601 rows, one residual line each with split "check"); nothing is written but them.
execute_process(
  COMMAND ${AMDAHL} calibrate check ${SOURCE}/hw/catalog/devices/p100-sxm2.yaml deepbench
          --dir ${SHARED}/data/deepbench --dataset P100_baidu_2018 --residuals ${WORK}/check.csv
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(STRINGS ${WORK}/check.csv check_lines REGEX ",check,")
list(LENGTH check_lines check_count)
if(NOT rc EQUAL 0 OR NOT out MATCHES "nothing fitted" OR NOT out MATCHES "\nconv_bwd_filter +94 "
   OR NOT out MATCHES "\nall +601 " OR NOT check_count EQUAL 601)
  message(FATAL_ERROR "calibrate check (${rc}, ${check_count} residual lines): ${out} ${err}")
endif()
# and, for the forward rows (DeepBench names cuDNN's forward algorithm), the model's algorithm
# against cuDNN's: 94 rows, 24 of them Winograd and 2 FFT (the counts are the data's; the
# model's agreement is docs/calibration-checks.md's table).
if(NOT out MATCHES "library Winograd: model too"
   OR NOT out MATCHES "\nconv +94 +[0-9]+ of 24 +[0-9]+ of 68 +[0-9]+ of 2 ")
  message(FATAL_ERROR "calibrate check: no algorithm agreement for the forward rows: ${out}")
endif()
expect_failure("check with --out"
  ${AMDAHL} calibrate check ${SOURCE}/hw/catalog/devices/p100-sxm2.yaml deepbench
  --dir ${SHARED}/data/deepbench --dataset P100_baidu_2018 --out ${WORK}/never.yaml)
if(NOT last_error MATCHES "--out" OR EXISTS ${WORK}/never.yaml)
  message(FATAL_ERROR "check with --out: ${last_error}")
endif()

# The GP102 datasets name their cards (no --measured-device), and the shipped files, fitted
# to them, predict their forward convolutions within the 10% median target (docs/calibration-checks.md:
# 6.6% and 9.1% over all 94 rows; a model change without a refit moves them).
foreach(pair "1080Ti;gtx-1080ti" "TitanXp;titan-xp")
  list(GET pair 0 dataset)
  list(GET pair 1 device)
  execute_process(
    COMMAND ${AMDAHL} calibrate check ${SOURCE}/hw/catalog/devices/${device}.yaml deepbench
            --dir ${SHARED}/data/deepbench --dataset ${dataset}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\nall +601 "
     OR NOT out MATCHES "\nconv +94 +([0-9.]+)%")
    message(FATAL_ERROR "calibrate check ${device} on ${dataset} (${rc}): ${out} ${err}")
  endif()
  if(CMAKE_MATCH_1 GREATER 10)
    message(FATAL_ERROR "${device}: forward convolution median ${CMAKE_MATCH_1}% > 10%: ${out}")
  endif()
endforeach()

# A measurement file with nothing a device entry is fitted to (launch rows only): an error that
# names the entries.
file(WRITE ${WORK}/launch-only.csv
     "bench,op_class,precision,shape,flops,bytes,time_s,reps\n"
     "launch,launch,none,mode=async,0,0,2.5e-06,25\n")
expect_failure("check without checkable rows"
  ${AMDAHL} calibrate check ${SOURCE}/hw/catalog/devices/h200-sxm.yaml
  measurements ${WORK}/launch-only.csv)
if(NOT last_error MATCHES "has no measurements of an entry calibrated for .*gemm, conv")
  message(FATAL_ERROR "check without checkable rows: ${last_error}")
endif()

# A CPU's measurements refit through `calibrate measurements` with the CPU plan (framework rows first,
# the framework's im2col + GEMM thresholds, the cache step chosen for elementwise, fresh
# allocations), chosen by the base
# device's kind: the shipped example's CSV and device.
execute_process(
  COMMAND ${AMDAHL} calibrate measurements ${SOURCE}/calibrate/examples/cpu-example.csv
          --base ${SOURCE}/calibrate/examples/cpu-example.device.yaml --out ${WORK}/cpu-refit.yaml
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "elementwise +[0-9]+ +[0-9]+ +cache step +[0-9.]+ +[0-9.]+ +- +[0-9.]+ +[0-9.]+ us +[0-9.]+x < "
   OR NOT EXISTS ${WORK}/cpu-refit.yaml)
  message(FATAL_ERROR "calibrate measurements with a CPU base (${rc}): ${out} ${err}")
endif()
if(NOT out MATCHES "gemm: [0-9]+ library rows not fitted")
  message(FATAL_ERROR "the CPU refit did not prefer the framework's GEMM rows: ${out}")
endif()
file(READ ${WORK}/cpu-refit.yaml refit)
if(NOT refit MATCHES "gemm_pointwise_below_batch: 16" OR NOT refit MATCHES "cache_boost: "
   OR NOT refit MATCHES "allocation: {above: [0-9]+ B, bandwidth: [0-9.]+ GB/s")
  message(FATAL_ERROR "the CPU refit lacks the im2col + GEMM rule, the cache term or the "
                      "fresh-allocation cost: ${refit}")
endif()

# amdahl-cudabench's copy and launch rows (a synthetic file with exact curves, see its header):
# the link file gets the fitted bandwidths and the pinned copies' mean latency, the device file
# the measured launch latency and the copy_d2d rows' data_movement entry.
set(link_csv ${SOURCE}/tests/fixtures/calibrate/cudabench-link.csv)
execute_process(
  COMMAND ${AMDAHL} calibrate measurements ${link_csv}
          --base ${SOURCE}/hw/catalog/devices/h200-sxm.yaml --out ${WORK}/h200-link.yaml
          --link-base ${SOURCE}/hw/catalog/links/pcie5-x16.yaml --link-out ${WORK}/pcie5.yaml
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "copy_h2d_pinned +27 +6 +8 us +50 GB/s")
  message(FATAL_ERROR "calibrate measurements --link-out (${rc}): ${out} ${err}")
endif()
file(READ ${WORK}/pcie5.yaml link)
file(READ ${WORK}/h200-link.yaml device)
if(NOT link MATCHES "\nlatency: 8.5 us\n" OR NOT link MATCHES "h2d_pageable: 20 GB/s"
   OR NOT link MATCHES "\ncalibrated: true" OR NOT link MATCHES "bandwidth: 63 GB/s"
   OR NOT device MATCHES "\nlaunch_latency: 2.5 us" OR NOT device MATCHES "  data_movement: ")
  message(FATAL_ERROR "calibrated link or device: ${link} ${device}")
endif()
expect_failure("link-out without link-base" ${AMDAHL} calibrate measurements ${link_csv}
               --base ${SOURCE}/hw/catalog/devices/h200-sxm.yaml --out ${WORK}/bad.yaml
               --link-out ${WORK}/bad-link.yaml)
if(NOT last_error MATCHES "--link-out requires --link-base")
  message(FATAL_ERROR "link-out without link-base: unexpected message: ${last_error}")
endif()
expect_failure("link-out without copies" ${AMDAHL} calibrate measurements
               ${SOURCE}/calibrate/examples/cpu-example.csv
               --base ${SOURCE}/calibrate/examples/cpu-example.device.yaml --out ${WORK}/bad.yaml
               --link-base ${SOURCE}/hw/catalog/links/pcie5-x16.yaml --link-out ${WORK}/bad-link.yaml)
if(NOT last_error MATCHES "has no copy rows" OR EXISTS ${WORK}/bad-link.yaml)
  message(FATAL_ERROR "link-out without copies: unexpected message: ${last_error}")
endif()

# --cross-validate applies to fits of given measurements, not to a live CPU run.
expect_failure("cross-validate with cpu" ${AMDAHL} calibrate cpu --cross-validate
               --out ${WORK}/cpu.yaml)
if(NOT last_error MATCHES "--cross-validate" OR EXISTS ${WORK}/cpu.yaml)
  message(FATAL_ERROR "cross-validate with cpu: unexpected message: ${last_error}")
endif()

# The sub-commands: none lists them, a typo gets "did you mean", an old flag form names its
# sub-command, a missing dataset is named.
expect_failure("no sub-command" ${AMDAHL} calibrate)
if(NOT last_error MATCHES "calibrate needs a sub-command: deepbench, measurements, torch, cpu, allreduce, check")
  message(FATAL_ERROR "no sub-command: unexpected message: ${last_error}")
endif()
expect_failure("sub-command typo" ${AMDAHL} calibrate deepbnch --dir ${SHARED}/data/deepbench)
if(NOT last_error MATCHES "unknown sub-command 'deepbnch'; did you mean 'deepbench'")
  message(FATAL_ERROR "sub-command typo: unexpected message: ${last_error}")
endif()
foreach(old "--from-deepbench;amdahl calibrate deepbench --dir DIR"
            "--measurements;amdahl calibrate measurements FILE" "--target;amdahl calibrate cpu"
            "--check;amdahl calibrate check FILE")
  list(GET old 0 flag)
  list(GET old 1 form)
  expect_failure("old form ${flag}" ${AMDAHL} calibrate ${flag} ${WORK}/x --dataset P100_baidu_2018
                 --out ${WORK}/old.yaml)
  string(FIND "${last_error}" "unknown option ${flag}: the sources are sub-commands; use `${form}"
         found)
  if(found EQUAL -1 OR EXISTS ${WORK}/old.yaml)
    message(FATAL_ERROR "old form ${flag}: unexpected message: ${last_error}")
  endif()
endforeach()
expect_failure("missing dataset" ${AMDAHL} calibrate deepbench --dir ${SHARED}/data/deepbench
               --base ${SOURCE}/hw/catalog/devices/p100-sxm2.yaml --out ${WORK}/bad.yaml)
if(NOT last_error MATCHES "--dataset is required")
  message(FATAL_ERROR "missing dataset: unexpected message: ${last_error}")
endif()

# Bad input: an unknown dataset, a measurement file with a missing column or a non-positive
# time. Each is exit status 2 and leaves no output file.
expect_failure("unknown dataset" ${AMDAHL} calibrate deepbench --dir ${SHARED}/data/deepbench
               --dataset P100_nope --base ${SOURCE}/hw/catalog/devices/p100-sxm2.yaml
               --out ${WORK}/bad.yaml)
if(NOT last_error MATCHES "unknown DeepBench dataset 'P100_nope'.*P100_baidu_2018.*TitanX_Maxwell")
  message(FATAL_ERROR "unknown dataset: unexpected message: ${last_error}")
endif()
file(WRITE ${WORK}/missing_column.csv "bench,op_class,precision,shape,flops,bytes,reps\n")
expect_failure("missing column" ${AMDAHL} calibrate measurements ${WORK}/missing_column.csv
               --base ${SOURCE}/hw/catalog/devices/h200-sxm.yaml --out ${WORK}/bad.yaml)
if(NOT last_error MATCHES "missing column 'time_s'")
  message(FATAL_ERROR "missing column: unexpected message: ${last_error}")
endif()
file(WRITE ${WORK}/zero_time.csv "bench,op_class,precision,shape,flops,bytes,time_s,reps\n"
     "gemm,gemm,fp32,m=8;n=8;k=8,1024,768,0,5\n")
expect_failure("zero time" ${AMDAHL} calibrate measurements ${WORK}/zero_time.csv
               --base ${SOURCE}/hw/catalog/devices/h200-sxm.yaml --out ${WORK}/bad.yaml)
if(NOT last_error MATCHES "column time_s: expected a time from 1 ns")
  message(FATAL_ERROR "zero time: unexpected message: ${last_error}")
endif()
if(EXISTS ${WORK}/bad.yaml)
  message(FATAL_ERROR "a failed calibration left ${WORK}/bad.yaml behind")
endif()

# calibrate allreduce: one row per DeepBench dataset with its held-out errors, then the multi-node
# fits; nothing written.
execute_process(COMMAND ${AMDAHL} calibrate allreduce --dir ${SHARED}/data/deepbench --rows
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "calibrate allreduce failed (${rc}): ${err}")
endif()
foreach(text "held-out median/p90" "P100_baidu_2018" "TitanX_Maxwell" "held_out" "N (network)"
             "no network fit (fewer than 3 multi-node NCCL rows to train on; counted as not fitted): P100_baidu_2017-05")
  string(FIND "${out}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "calibrate allreduce: output lacks '${text}':\n${out}")
  endif()
endforeach()
expect_failure("calibrate allreduce without --dir" ${AMDAHL} calibrate allreduce)
if(NOT last_error MATCHES "give --dir \\(DeepBench\\) or --tartan \\(the DGX-1\\)")
  message(FATAL_ERROR "calibrate allreduce without a source: ${last_error}")
endif()

# calibrate allreduce --tartan: the DGX-1's NCCL 1.x rows, one node; the fit is the DGX-1
# system's own, so -o is refused, and --dir with it too.
set(tartan ${SHARED}/data/published/dgx1-p100-tartan)
execute_process(COMMAND ${AMDAHL} calibrate allreduce --tartan ${tartan}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "over several nodes" nodes_table)
if(NOT rc EQUAL 0 OR NOT out MATCHES "DGX-1_P100_NCCL1 +Tesla P100 SXM2 \\(DGX-1\\) +27 +6 +11"
   OR NOT nodes_table EQUAL -1)
  message(FATAL_ERROR "calibrate allreduce --tartan (${rc}): ${out}${err}")
endif()
expect_failure("calibrate allreduce --tartan -o" ${AMDAHL} calibrate allreduce --tartan ${tartan}
               -o ${WORK}/tartan_out)
if(NOT last_error MATCHES "the Tartan fit is the DGX-1 system's own" OR EXISTS ${WORK}/tartan_out)
  message(FATAL_ERROR "calibrate allreduce --tartan -o: ${last_error}")
endif()
expect_failure("calibrate allreduce --dir --tartan" ${AMDAHL} calibrate allreduce
               --dir ${SHARED}/data/deepbench --tartan ${tartan})

# calibrate allreduce -o: a folder that is not empty needs --force, and nothing is written
# without it.
file(MAKE_DIRECTORY ${WORK}/ar_full)
file(WRITE ${WORK}/ar_full/keep.txt "the user's file\n")
expect_failure("calibrate allreduce -o into a non-empty folder" ${AMDAHL} calibrate allreduce
               --dir ${SHARED}/data/deepbench -o ${WORK}/ar_full)
if(NOT last_error MATCHES "the folder is not empty; give --force" OR EXISTS ${WORK}/ar_full/systems)
  message(FATAL_ERROR "calibrate allreduce -o non-empty: ${last_error}")
endif()
# A catalog whose devices list one dataset: its boxes are written, the other datasets named.
file(MAKE_DIRECTORY ${WORK}/ar_catalog/devices)
file(COPY ${SOURCE}/hw/catalog/devices/gtx-1080ti.yaml ${SOURCE}/hw/catalog/devices/xeon-e5-2698v4.yaml
     DESTINATION ${WORK}/ar_catalog/devices)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env AMDAHL_CATALOG=${WORK}/ar_catalog
          ${AMDAHL} calibrate allreduce --dir ${SHARED}/data/deepbench -o ${WORK}/ar_catalog --force
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
file(GLOB ar_systems RELATIVE ${WORK}/ar_catalog/systems ${WORK}/ar_catalog/systems/*.yaml)
if(NOT rc EQUAL 0 OR NOT ar_systems STREQUAL "deepbench-1080ti-cluster.yaml;deepbench-1080ti.yaml"
   OR NOT err MATCHES "no system written for P100_baidu_2018, P100_baidu_2017-05, TitanXPascal, M40, TitanX_Maxwell")
  message(FATAL_ERROR "calibrate allreduce -o with one card (${rc}): [${ar_systems}] ${err}")
endif()
# Without the boxes' host device file: an error naming it, nothing written.
file(REMOVE ${WORK}/ar_catalog/devices/xeon-e5-2698v4.yaml)
file(REMOVE_RECURSE ${WORK}/ar_catalog/systems ${WORK}/ar_catalog/links)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env AMDAHL_CATALOG=${WORK}/ar_catalog
          ${AMDAHL} calibrate allreduce --dir ${SHARED}/data/deepbench -o ${WORK}/ar_catalog --force
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "xeon-e5-2698v4.yaml: the boxes' host device file is missing"
   OR EXISTS ${WORK}/ar_catalog/systems)
  message(FATAL_ERROR "calibrate allreduce -o without the host device (${rc}): ${err}")
endif()
