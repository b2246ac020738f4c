# End-to-end checks of the amdahl binary: the main job's JSON and the exit status and located
# message of bad inputs. Run by ctest with -DAMDAHL=<binary> -DFIXTURES=<dir>.

include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)

expect_run(0 "\"step_time_s\"" predict --model alexnet --system minsky --batch 128 --mode train --format json)
expect_run(0 "\"by_bound\"" predict --model alexnet --system minsky --batch 128 --mode train --format json)
expect_run(2 "no/such.yaml: no such system file" predict --model alexnet --system no/such.yaml)
expect_run(2 "unknown_key.yaml:9:3: memory.bandwith: unknown key" predict --model alexnet
           --system ${FIXTURES}/hw/system_bad_include.yaml)
expect_run(2 "unknown system 'minksy'; did you mean 'minsky'" predict --model alexnet --system minksy)
expect_run(2 "unknown model 'alexnt'; did you mean 'alexnet'" predict --model alexnt)
expect_run(2 "--batch" predict --model alexnet --batch 0)
expect_run(2 "network 'alexnet' has no size 'imgae'" predict --model alexnet --set imgae=10)
expect_run(2 "--set expects NAME=VALUE (got 'image')" predict --model alexnet --set image)
expect_run(2 "--set image: expected an integer (got '2x')" predict --model alexnet --set image=2x)
expect_run(2 "--set image: the value must not be negative (got -1)" predict --model alexnet
           --set image=-1)
expect_run(2 "size 'width'" predict --graph ${FIXTURES}/graphs/good.yaml)
expect_run(2 "The following argument was not expected" predict --model alexnet --bogus)
expect_run(0 "minsky" describe systems)
expect_run(0 "8 nodes x (8x Tesla P100 SXM2 16GB, 2x Xeon E5-2698 v4)" describe systems)
expect_run(0 "digraph" graph --model alexnet --format dot)

# sweep -o DIR writes sweep.csv and sweep.json whatever --format printed: one row per point.
set(sweep_dir ${CMAKE_CURRENT_BINARY_DIR}/cli_sweep_out)
file(REMOVE_RECURSE ${sweep_dir})
expect_run(0 "step_time_s" sweep --model alexnet --system minsky --vary batch=1,16 --format table
           -o ${sweep_dir})
file(STRINGS ${sweep_dir}/sweep.csv sweep_lines)
list(LENGTH sweep_lines sweep_count)
file(READ ${sweep_dir}/sweep.json sweep_json)
string(JSON sweep_points LENGTH "${sweep_json}" points)
if(NOT sweep_count EQUAL 3 OR NOT sweep_points EQUAL 2)
  message(FATAL_ERROR "sweep -o: ${sweep_count} CSV lines and ${sweep_points} JSON points "
                      "(expected 3 and 2)")
endif()

# breakdown names the kernel each costly op assumes (model/kernel_choice.h), in the table, the
# JSON and the timeline's event args; a GEMM-like op has one, a memory-bound op none.
expect_run(0 "mem eff  kernel" breakdown --model resnet18 --system minsky --batch 16)
set(breakdown_dir ${CMAKE_CURRENT_BINARY_DIR}/cli_breakdown_out)
file(REMOVE_RECURSE ${breakdown_dir})
expect_run(0 "\"kernel\": \"" breakdown --model resnet18 --system minsky --batch 16 --format json
           -o ${breakdown_dir})
file(READ ${breakdown_dir}/timeline.json timeline)
string(JSON events LENGTH "${timeline}" traceEvents)
set(conv_kernels 0)
set(elementwise_kernels 0)
math(EXPR last "${events} - 1")
foreach(i RANGE ${last})
  string(JSON cat ERROR_VARIABLE no_cat GET "${timeline}" traceEvents ${i} cat)
  string(JSON kernel ERROR_VARIABLE no_kernel GET "${timeline}" traceEvents ${i} args kernel)
  if(NOT no_kernel AND cat STREQUAL "conv")
    math(EXPR conv_kernels "${conv_kernels} + 1")
  elseif(NOT no_kernel AND cat STREQUAL "elementwise")
    math(EXPR elementwise_kernels "${elementwise_kernels} + 1")
  endif()
endforeach()
if(conv_kernels LESS 20 OR NOT elementwise_kernels EQUAL 0)
  message(FATAL_ERROR "timeline.json: ${conv_kernels} conv events and ${elementwise_kernels} "
                      "elementwise events name a kernel (expected every conv, >= 20, and none)")
endif()

# Hostile input (docs/reliability.md): each class of fault is a located error, exit 2.
expect_run(2 "outside the folders amdahl reads from" predict --model alexnet
           --system ${FIXTURES}/hw/system_hostile.yaml)
expect_run(2 "devices[1].name: a second device of this name" predict --model alexnet
           --system ${FIXTURES}/hw/system_hostile.yaml)
expect_run(2 "a link joins two different devices" predict --model alexnet
           --system ${FIXTURES}/hw/system_hostile.yaml)
expect_run(2 "launch_latency: duplicate key (first given at line 11)" whatif --model alexnet
           --device ${FIXTURES}/hw/device_duplicate_key.yaml)
expect_run(2 "memory.bandwidth: outside the range amdahl models" whatif --model alexnet
           --device ${FIXTURES}/hw/device_hostile.yaml)
expect_run(2 "parallel_units: must be at most 2147483647" whatif --model alexnet
           --device ${FIXTURES}/hw/device_hostile.yaml)
expect_run(2 "tile_min: must not exceed tile_max (256)" whatif --model alexnet
           --device ${FIXTURES}/hw/device_tile_range.yaml)
expect_run(2 "overflows 2^63" predict --graph ${FIXTURES}/graphs/hostile_sizes.yaml)
expect_run(2 "the step would take" predict --model alexnet --batch 7036874417766)
# A 10^9-token attention: batch x heads x seq_len^2 scores pass 2^63. The op rules count them
# as doubles (an int64 product would be undefined behaviour, which the sanitized run of this
# file stops on), so the error is the op's time, not a wrapped count.
expect_run(2 "op 'encoder.0.attn.scores' (attention) would take" predict --model bert-base
           --set seq_len=1000000000)
# An integer a rule needs exactly, here a weight's element count, is overflow-checked.
expect_run(2 "layer 'word_emb' (embedding): weight: 4611686018427387904 * 768 overflows 2^63"
           predict --model bert-base --set vocab=4611686018427387904)
expect_run(2 "has more than 2^63 elements" predict --model alexnet --batch 70368744177664)
# Each weight fits in 2^63; the network's parameter count, their sum, does not.
expect_run(2 "layer 'emb_b' (embedding): the network's parameter count: 4611686018427387904 + 4611686018427387904 overflows 2^63"
           predict --graph ${FIXTURES}/graphs/parameter_sum_overflow.yaml)
# A stack depth is refused before its weights are listed (10^12 of them would exhaust memory).
expect_run(2 "layer 'enc' (lstm): num_layers 1000000000000: each stacked layer lowers to ops of its own"
           predict --model seq2seq-pt --set layers=1000000000000)
expect_run(2 "the limit; --max-ops N raises it" predict --model resnet50 --max-ops 100)
expect_run(2 "unknown command 'predic'; did you mean 'predict'" predic --model alexnet)
expect_run(2 "column op_class: unknown class 'gemmm'; did you mean 'gemm'" calibrate measurements
           ${FIXTURES}/calibrate/unknown-class.csv --base ${FIXTURES}/hw/valid_device.yaml
           --out ${FIXTURES}/../../build-never-written.yaml)
expect_run(2 "nothing was fitted" calibrate measurements ${FIXTURES}/calibrate/nothing-to-fit.csv
           --base ${FIXTURES}/hw/valid_device.yaml --out ${FIXTURES}/../../build-never-written.yaml)
# A layer the loss does not reach trains without a gradient for its weights (as PyTorch skips a
# parameter whose grad is None), with and without gradient accumulation.
expect_run(0 "step time" predict --graph ${FIXTURES}/graphs/dead_branch.yaml)
expect_run(0 "step time" predict --graph ${FIXTURES}/graphs/dead_branch.yaml --accumulate 2)
# Data-parallel training (docs/architecture.md "Data-parallel training").
expect_run(0 "batch 64 per GPU x 4 GPUs" breakdown --model resnet50 --system dgx1-p100 --gpus 4)
expect_run(0 "communication (4 GPUs: gpu0, gpu1, gpu2, gpu3; variable update ddp)" predict
           --model resnet50 --system minsky --gpus 4)
# TensorFlow 1.x's variable updates (model/collective.h "Parameter server").
expect_run(0 "161 variables, 102.2 MB exchanged per step (parameter server (161))" breakdown
           --model resnet50 --system minsky --gpus 4 --variable-update parameter-server-cpu)
expect_run(0 "route: parameter server on the GPUs" predict --model resnet50 --system dgx1-p100
           --gpus 8 --variable-update parameter-server-gpu)
expect_run(0 "\"variable_update\": \"replicated\"" predict --model autoenc --system dgx1-p100
           --gpus 2 --variable-update replicated --format json)
expect_run(2 "--variable-update: ps not in {ddp,replicated,parameter-server-cpu" predict
           --model resnet50 --system minsky --gpus 2 --variable-update ps)
expect_run(0 "gpus,batch,step_time_s,samples_per_s,speedup,scaling_efficiency" sweep
           --model autoenc --system dgx1-p100 --vary gpus=1,2)
expect_run(0 "\"exposed_s\"" predict --model autoenc --system dgx1-cluster --gpus 16 --format json)
expect_run(2 "has 4 devices of its default device's model" predict --model resnet50
           --system minsky --gpus 5)
expect_run(2 "--global-batch 100: not a multiple of --gpus 8" predict --model resnet50
           --system dgx1-p100 --global-batch 100 --gpus 8)
# whatif --link: one kind of link replaced by another (hw::SystemSpec::replace_links).
expect_run(0 "NVLink 1.0 x2 links replaced by NVLink 2.0 x2 (6: cpu0-gpu0" whatif
           --model resnet50 --system minsky --gpus 4 --link nvlink1-x2=nvlink2-x2)
expect_run(2 "has no PCIe 4.0 x16 link; its links: NVLink 1.0 x2, POWER8 SMP X-bus" whatif
           --model resnet50 --system minsky --link pcie4-x16=nvlink2-x2)
expect_run(2 "unknown link 'nvlink3'" whatif --model resnet50 --system minsky
           --link nvlink3=nvlink2-x2)
expect_run(2 "--link: expected OLD=NEW" whatif --model resnet50 --system minsky --link nvlink1-x2)
# A terminal escape in a name is printed escaped, never raw (util/suggest.h printable_message).
string(ASCII 27 esc)
expect_run(2 "unknown model 'red\\x1b[31m'" predict --model "red${esc}[31m")
execute_process(COMMAND ${AMDAHL} predict --model "red${esc}[31m" ERROR_VARIABLE err)
string(FIND "${err}" "${esc}" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "a raw escape byte reached standard error: ${err}")
endif()
