#pragma once
// Lowering a bound network to the operator DAG: forward ops in layer order; in training
// mode the backward ops (data gradients only where an input needs one, so the first layer
// gets none, as frameworks do; weight gradients for every weight), gradient accumulation
// where a tensor feeds several layers, and the optimizer update (per tensor or fused).
// Each network input is first copied host to device by a transfer op.
//
// Mixed precision (precision fp16 or bf16), as CUDA torch.autocast does it: each layer kind's
// policy is a row of the table in graphs/autocast.{h,cpp} (PyTorch's op lists):
//   lower precision  (conv, linear, matmul, RNNs, attention): floating-point inputs are cast
//                    to the 16-bit type, outputs are 16-bit; GEMM-class ops run in 16-bit math
//                    (fp32 accumulation is the device's business).
//   fp32             (softmax, layer_norm, lrn, every loss, sum and prod, exp, log, pow,
//                    softplus...): 16-bit inputs are cast to fp32, outputs fp32.
//   follow           (on no list: batch norm, pooling, activations, elementwise arithmetic,
//                    data movement, embedding) the widest floating-point type of their
//                    inputs; a 16-bit input meeting an fp32 one is cast to fp32 (PyTorch
//                    promotes inside the kernel; modelled as a cast). Their weights stay fp32
//                    and are not cast (a bf16 batch norm reads its fp32 scale and shift).
//   explicit         (cast) the layer's own `to`.
//   Each cast is a `cast` layer named "<tensor>.to_<dtype>" inserted before its first
//   consumer and shared by later consumers of the same tensor; its backward casts the
//   gradient back. Weights stay fp32 (the master copy, updated by the optimizer in fp32):
//   every weight of a lower-precision layer is cast to 16 bits by a `weight_cast` op once per
//   forward pass (autocast's weight cache lives for one autocast region), and its 16-bit
//   gradient is cast to fp32 (`grad_cast`) before the update. A weight shared through
//   `tied_to` is not re-cast (its owner is an embedding, whose weight autocast leaves fp32): a
//   known undercount of one cast per step for tied language-model heads.
// precision tf32: fp32 storage; GEMM-class ops (gemm, conv, rnn, attention) get kTf32 math,
// every other op kFp32. Other precisions: every op gets the requested precision.
// FLOPs never depend on the precision; bytes follow the dtype of the tensors.
//
// Gradient accumulation (training, accumulation_steps = k > 1): the forward and backward
// passes are emitted k times (each micro-batch is the bound batch, its inputs copied to the
// device again; op names of micro-batch i > 0 are prefixed "mb<i>."), each weight gradient
// after the first micro-batch is added into the running fp32 sum by a `grad_accumulate`
// elementwise op (n FLOPs, reads 8n bytes, writes 4n for n parameters), and the optimizer
// updates each weight once at the end.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graphs/memory_footprint.h"
#include "graphs/network.h"
#include "graphs/op_graph.h"

namespace amdahl::graphs {

enum class Mode { kTrain, kInfer };
std::string_view mode_name(Mode m);

// Data-parallel training (replicas > 1, training only): each replica lowers the same step on
// its own batch, and the weight gradients are exchanged between the replicas by `exchange`:
//   kBucketedAllReduce  PyTorch DistributedDataParallel: the weights grouped into buckets
//                       (gradient_buckets(): the weights in reverse order, the order their
//                       gradients become ready, a bucket closed once it holds
//                       first_bucket_bytes for the first bucket and bucket_cap_bytes for the
//                       others), each all-reduced by one `all_reduce` op; buckets launched in
//                       order, each as soon as it and every bucket before it is complete.
//   kAllReduce          TensorFlow 1.x's replicated variables with NCCL (tf_cnn_benchmarks
//                       --variable_update=replicated, no gradient repacking): one `all_reduce`
//                       op per weight, launched as soon as its gradient is complete.
//   kParameterServer    TensorFlow 1.x's parameter server (--variable_update=parameter_server):
//                       one `parameter_server` op per weight (its gradient sent to the
//                       parameter device, summed, the variable read back), launched as soon as
//                       its gradient is complete.
// An exchange op is of class communication, phase backward_weight, fp32, reads and writes the
// weights' 4 bytes per parameter and counts no FLOPs; it follows the op that completes its last
// gradient (with gradient accumulation, the last micro-batch's sums), and each weight's update
// waits for it. Which devices take part and what an exchange costs are the prediction's
// business (model/collective.h).
enum class GradientExchange { kBucketedAllReduce, kAllReduce, kParameterServer };
inline constexpr std::string_view kAllReduceKind = "all_reduce";
inline constexpr std::string_view kParameterServerKind = "parameter_server";

struct DataParallel {
  int replicas = 1;
  GradientExchange exchange = GradientExchange::kBucketedAllReduce;
  double first_bucket_bytes = 1 << 20;         // PyTorch DDP: dist._DEFAULT_FIRST_BUCKET_BYTES
  double bucket_cap_bytes = 25.0 * (1 << 20);  // PyTorch DDP: bucket_cap_mb = 25
};

struct LoweringOptions {
  Mode mode = Mode::kTrain;
  Precision precision = Precision::kFp32;
  bool fused_optimizer = false;
  // A convolution's bias is its own elementwise kernel after the convolution, as eager
  // frameworks run it on a GPU: cuDNN's convolution adds no bias, so PyTorch adds it with
  // `output.add_(bias)` (aten/src/ATen/native/Convolution.cpp) and TensorFlow with a BiasAdd
  // op. False: the bias is part of the convolution's own kernel, as oneDNN's primitive on a
  // CPU computes it (and as a compiled runtime fuses it).
  bool conv_bias_kernel = false;
  int accumulation_steps = 1;  // micro-batches per optimizer step; > 1 only when training
  DataParallel data_parallel;
};

// The buckets of the exchange: for each, the weights it holds (indices into
// LoweredNetwork::weights, in the order they are added), given each weight's element count;
// one weight per bucket unless the exchange is kBucketedAllReduce.
std::vector<std::vector<std::size_t>> gradient_buckets(const std::vector<std::int64_t>& elements,
                                                       const DataParallel& dp);

// One exchanged bucket of a data-parallel step.
struct GradientBucket {
  std::vector<std::size_t> weights;  // indices into LoweredNetwork::weights
  double bytes = 0;                  // fp32 gradient bytes
  OpId op = kNoOp;                   // its exchange op
};

struct WeightTensor {
  std::string layer;
  std::string name;
  std::int64_t elements = 0;
};

struct LoweredNetwork {
  std::string name;
  OpGraph graph;
  std::vector<WeightTensor> weights;
  std::int64_t parameters = 0;
  double input_bytes = 0;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  Mode mode = Mode::kTrain;
  Precision precision = Precision::kFp32;
  int accumulation_steps = 1;
  int replicas = 1;  // data-parallel replicas the step was lowered for
  GradientExchange exchange = GradientExchange::kBucketedAllReduce;  // how, when replicas > 1
  std::vector<GradientBucket> buckets;  // their exchanged gradient buckets (replicas > 1)
  // Ops [0, micro_batch_end) are the input copies, forward and backward of the first
  // micro-batch (the memory footprint counts these).
  OpId micro_batch_end = 0;
  MemoryFootprint memory;  // device memory per device (memory_footprint.h)
  // The BoundNetwork's assumptions (an importer's), for the prediction's list.
  std::vector<Assumption> assumptions;
};

// Throws UserError (located at the layer) for an unknown input name, a reference to a
// layer defined later (a cycle), a wrong input count, a shape mismatch, or training a
// network without a loss layer, or accumulation_steps < 1 (or > 1 in inference).
// The most layers one network may expand to and ops one lowering may make: far above any
// real network (ResNet-152 trains in about 3,000 ops, a 96-layer transformer in about 20,000),
// low enough that `repeat: 100000000` is an error at once instead of gigabytes of memory.
// `--max-ops N` sets it for a run (set_max_ops); the check is a UserError naming the limit.
inline constexpr std::int64_t kDefaultMaxOps = 2'000'000;
std::int64_t max_ops();
void set_max_ops(std::int64_t n);

LoweredNetwork lower(const BoundNetwork& network, const LoweringOptions& options);

// Throws UserError naming the op when an op's FLOPs or bytes are not finite and >= 0 (a count
// that overflowed): lower() and relower() call it, so no such number reaches a prediction.
void check_numbers(const OpGraph& graph);

// Re-evaluating a lowered network at other sizes (sweeps) without lowering it again
// (relower.cpp; the plan is lowering_plan.h).
//
// lower() with a plan also records, step by step, which layer each op came from and where
// each op's and edge's numbers come from. relower() then takes the network bound at another
// point (the same layers, other sizes) and recomputes every number of `net` in place: it
// re-runs each layer kind's shape, weight, forward and backward rules on the re-bound layer
// (the registry's formulas, names skipped) and the formulas of the ops lowering adds itself
// (casts, gradient sums and accumulation, updates), then the edges' bytes and the memory
// footprint. Names, classes, phases, precisions and edges stay as lowered.
//
// It returns false when the point changes the structure: a different number of layers or
// inputs, a layer of another kind, or a rule that emits a different number of ops or ops
// of another class, phase, dtype or gradient role (an RNN unrolled over more steps). `net`
// is then half updated and must be lowered again. Errors of the rules at the point (a shape
// mismatch) are thrown as lower() throws them.
struct LoweringPlan;
LoweredNetwork lower(const BoundNetwork& network, const LoweringOptions& options,
                     std::shared_ptr<const LoweringPlan>& plan);
bool relower(const LoweringPlan& plan, const BoundNetwork& network, LoweredNetwork& net);

}  // namespace amdahl::graphs
