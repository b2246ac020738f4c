#include "calibrate/measured_op.h"

#include <fmt/format.h>

#include <initializer_list>
#include <map>
#include <mutex>

#include "graphs/conv_traffic.h"
#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/network.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {

std::int64_t integer(const Measurement& m, const std::string& key) { return m.shape_whole(key); }

std::int64_t integer_or(const Measurement& m, const std::string& key, std::int64_t fallback) {
  return m.shape.count(key) ? integer(m, key) : fallback;
}

UserError not_a_convolution(const std::string& bench) {
  return UserError(fmt::format("bench '{}' is not a convolution (expected one of: {})", bench,
                               "conv_fwd, conv_bwd_data, conv_bwd_filter"));
}

graphs::RawParam raw(std::string text) {
  graphs::RawParam p;
  p.text = std::move(text);
  return p;
}

graphs::RawParam raw(std::int64_t v) { return raw(std::to_string(v)); }

graphs::RawParam raw_list(std::initializer_list<std::int64_t> values) {
  graphs::RawParam p;
  p.is_list = true;
  for (std::int64_t v : values) p.items.push_back(std::to_string(v));
  return p;
}

using Params = std::map<std::string, graphs::RawParam>;

// One layer of `kind` with `params` (as a network file writes them) on an fp32 input of
// `shape`, named after the bench it stands for.
struct OneLayer {
  std::string name;
  std::string kind;
  Params params;
  graphs::Shape input;
  Precision precision = Precision::kFp32;
  bool training = false;
};

graphs::LayerDecl layer_decl(std::string name, std::string kind, std::vector<std::string> inputs,
                             const Params& params, const SourceLocation& where) {
  graphs::LayerDecl d;
  d.name = std::move(name);
  d.kind = std::move(kind);
  d.inputs = std::move(inputs);
  d.params = params;
  for (auto& [key, p] : d.params) p.where = where;
  d.where = where;
  return d;
}

graphs::InputDecl input_decl(std::string name, const graphs::Shape& shape,
                             const SourceLocation& where) {
  graphs::InputDecl in{std::move(name), {}, graphs::DType::kF32, where};
  for (std::int64_t v : shape) in.shape.push_back(std::to_string(v));
  return in;
}

// The layer lowered alone. In training its input comes from a layer with a weight (a learned
// scale), so that the layer's data gradient is emitted as it is inside a network (the first
// layer of a network gets none), and a loss against a target of its output's shape closes the
// network.
graphs::LoweredNetwork lower_one_layer(const OneLayer& l) {
  const SourceLocation where{"measurement " + l.name, 0, 0};
  graphs::Network net;
  net.name = l.name;
  net.inputs.push_back(input_decl("x", l.input, where));
  std::string source = "x";
  if (l.training) {
    net.layers.push_back(layer_decl(
        "scale", "mul", {"x"}, {{"constant_shape", raw(1)}, {"trainable", raw("true")}}, where));
    source = "scale";
  }
  net.layers.push_back(layer_decl(l.name, l.kind, {source}, l.params, where));
  graphs::BoundNetwork bound = graphs::bind_sizes(net, {});
  if (l.training) {
    const graphs::Layer& layer = bound.layers.back();
    const std::vector<graphs::TensorInfo> out =
        graphs::layer_registry()
            .get(layer.kind)
            .infer(layer, {graphs::TensorInfo{l.input, graphs::DType::kF32}});
    net.inputs.push_back(input_decl("target", out.front().shape, where));
    net.layers.push_back(layer_decl("loss", "mse", {l.name, "target"}, {}, where));
    bound = graphs::bind_sizes(net, {});
  }
  graphs::LoweringOptions options;
  options.mode = l.training ? graphs::Mode::kTrain : graphs::Mode::kInfer;
  options.precision = l.precision;
  return graphs::lower(bound, options);
}

// The ops of the layer `name` in `phase`, in program order.
std::vector<const graphs::Operator*> layer_ops(const graphs::LoweredNetwork& n,
                                               const std::string& name, Phase phase) {
  std::vector<const graphs::Operator*> out;
  for (graphs::OpId id = 0; id < n.graph.size(); ++id) {
    const graphs::Operator& op = n.graph.op(id);
    if (op.layer == name && op.phase == phase) out.push_back(&op);
  }
  return out;
}

Phase bench_phase(const std::string& bench) {
  if (bench.ends_with("_bwd_data")) return Phase::kBackwardData;
  if (bench.ends_with("_bwd_filter")) return Phase::kBackwardWeight;
  return Phase::kForward;
}

// The one GEMM-like op of `l` in the bench's phase (bias and casts are other classes).
graphs::Operator gemm_like_op(const OneLayer& l, const std::string& bench) {
  const graphs::LoweredNetwork n = lower_one_layer(l);
  for (const graphs::Operator* op : layer_ops(n, l.name, bench_phase(bench)))
    if (!op->gemm.empty()) return *op;
  throw InternalError(fmt::format("the {} layer of bench {} lowers to no GEMM-like op in its phase",
                                  l.kind, bench));
}

Precision row_precision(const Measurement& m) {
  if (m.precision == "none") return Precision::kFp32;
  return parse_workload_precision(m.precision, fmt::format("measurement {}", m.bench));
}

Precision element_precision(double element_bytes) {
  if (element_bytes == 4) return Precision::kFp32;
  if (element_bytes == 2) return Precision::kFp16;
  throw UserError(fmt::format("convolution elements of {} bytes (expected 4, fp32, or 2, fp16)",
                              element_bytes));
}

OneLayer conv_layer(const std::string& bench, const ConvShape& g, Precision precision) {
  if (bench != "conv_fwd" && bench != "conv_bwd_data" && bench != "conv_bwd_filter")
    throw not_a_convolution(bench);
  return {bench,
          "conv2d",
          {{"out_channels", raw(g.k)},
           {"kernel", raw_list({g.r, g.s})},
           {"stride", raw(g.stride)},
           {"padding", raw(g.pad)},
           {"groups", raw(g.groups)},
           {"bias", raw("false")}},
          {g.n, g.c, g.h, g.w},
          precision,
          bench != "conv_fwd"};
}

// The layer a GEMM bench's m, n, k are the dims of (the header's table).
OneLayer gemm_layer(const Measurement& m, Precision precision) {
  const std::int64_t rows = integer(m, "m"), cols = integer(m, "n"), depth = integer(m, "k");
  auto linear = [&](std::int64_t batch_rows, std::int64_t in, std::int64_t out) {
    return OneLayer{
        m.bench,          "linear",  {{"out_features", raw(out)}, {"bias", raw("false")}},
        {batch_rows, in}, precision, m.bench != "gemm"};
  };
  if (m.bench == "gemm_bwd_data") return linear(rows, cols, depth);
  if (m.bench == "gemm_bwd_filter") return linear(depth, cols, rows);
  if (m.bench != "gemm")
    throw UserError(fmt::format("bench '{}' is not a GEMM (expected one of: {})", m.bench,
                                "gemm, gemm_bwd_data, gemm_bwd_filter"));
  return linear(rows, depth, cols);
}

// The first forward op of one layer of `kind` on fp32 `inputs`, lowered in inference.
graphs::Operator inference_op(const std::string& name, const std::string& kind,
                              const Params& params, const std::vector<graphs::Shape>& inputs,
                              Precision precision) {
  const SourceLocation where{"measurement " + name, 0, 0};
  graphs::Network net;
  net.name = name;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    names.push_back(fmt::format("x{}", i));
    net.inputs.push_back(input_decl(names.back(), inputs[i], where));
  }
  net.layers.push_back(layer_decl(name, kind, names, params, where));
  graphs::LoweringOptions options;
  options.mode = graphs::Mode::kInfer;
  options.precision = precision;
  const graphs::LoweredNetwork n = graphs::lower(graphs::bind_sizes(net, {}), options);
  const auto ops = layer_ops(n, name, Phase::kForward);
  if (ops.empty())
    throw UserError(
        fmt::format("a {} layer on {} has no forward op", kind, graphs::shape_str(inputs.front())));
  return *ops.front();
}

// A batched GEMM: a matmul of two inputs, lowered in inference (no gradient bench is batched).
graphs::Operator batched_gemm_op(const Measurement& m, Precision precision) {
  const std::int64_t batch = integer(m, "batch"), rows = integer(m, "m");
  const std::int64_t cols = integer(m, "n"), depth = integer(m, "k");
  if (m.bench != "gemm")
    throw UserError(fmt::format("measurement {} {}: only the gemm bench runs batched", m.bench,
                                format_shape(m.shape)));
  return inference_op(m.bench, "matmul", {}, {{batch, rows, depth}, {batch, depth, cols}},
                      precision);
}

// The registry's recurrent layer kind of a DeepBench cell type, and its parameters.
std::pair<std::string, Params> rnn_kind(const std::string& type) {
  if (type == "lstm") return {"lstm", {}};
  if (type == "gru") return {"gru", {}};
  // DeepBench's vanilla RNN runs cuDNN's CUDNN_RNN_RELU mode.
  if (type == "vanilla") return {"rnn", {{"nonlinearity", raw("relu")}}};
  throw UserError(fmt::format("unknown RNN type '{}' (expected one of: vanilla, lstm, gru)", type));
}

OneLayer rnn_layer(const std::string& bench, const std::string& type, std::int64_t hidden,
                   std::int64_t batch, std::int64_t steps, Precision precision) {
  auto [kind, params] = rnn_kind(type);
  params["hidden_size"] = raw(hidden);
  // Training in every direction: DeepBench's RNN rows are training kernels, the forward one
  // cudnnRNNForwardTraining, whose cell also keeps the gates for the backward pass.
  return {bench, kind, params, {steps, batch, hidden}, precision, true};
}

// An op of a timestep is named "<layer>.l<i>[r].t<step>.<part>" (graphs/ops/recurrent.cpp);
// the part, or empty for a per-layer op.
std::string step_part(const graphs::Operator& op) {
  for (auto t = op.name.find(".t"); t != std::string::npos; t = op.name.find(".t", t + 1)) {
    const auto dot = op.name.find('.', t + 2);
    if (dot == std::string::npos || dot == t + 2) continue;
    if (op.name.find_first_not_of("0123456789", t + 2) == dot) return op.name.substr(dot + 1);
  }
  return {};
}

MeasuredOp rnn_measured_op(const Measurement& m, Precision precision) {
  const auto it = m.shape.find("type");
  if (it == m.shape.end())
    throw UserError(fmt::format("measurement {} {} has no 'type' in its shape", m.bench,
                                format_shape(m.shape)));
  if (m.bench != "rnn_fwd" && m.bench != "rnn_bwd_data" && m.bench != "rnn_bwd_filter")
    throw UserError(fmt::format("bench '{}' is not an RNN (expected one of: {})", m.bench,
                                "rnn_fwd, rnn_bwd_data, rnn_bwd_filter"));
  const OneLayer l = rnn_layer(m.bench, it->second, integer(m, "hidden"), integer(m, "batch"),
                               integer(m, "timesteps"), precision);
  const graphs::LoweredNetwork n = lower_one_layer(l);
  const auto ops = layer_ops(n, l.name, bench_phase(m.bench));
  MeasuredOp out;
  if (m.bench == "rnn_bwd_filter") {
    for (const graphs::Operator* op : ops)
      if (op->name.ends_with(".bwd_w_hh")) out.op = *op;
    if (out.op.gemm.empty())
      throw InternalError(
          fmt::format("the {} layer lowers to no recurrent weight gradient", l.kind));
    return out;
  }
  // The recurrence: the ops of every timestep, counted per part.
  for (const graphs::Operator* op : ops) {
    const std::string part = step_part(*op);
    if (part.empty()) continue;
    bool counted = false;
    for (auto& s : out.steps)
      if (step_part(s.op) == part) {
        s.count += 1;
        counted = true;
      }
    if (!counted) out.steps.push_back({*op, 1});
  }
  if (out.steps.empty())
    throw InternalError(fmt::format("the {} layer lowers to no timestep", l.kind));
  // The recurrent GEMM stands for the row (the first step part with GEMM dims).
  out.op = out.steps.front().op;
  for (const auto& s : out.steps)
    if (!s.op.gemm.empty()) {
      out.op = s.op;
      break;
    }
  return out;
}

// A framework's whole recurrent layer stack (PyTorch's nn.LSTM, nn.GRU), timed as one call:
// rnn_layer_fwd its forward (with autograd recording, as in training), rnn_layer_train forward
// and backward. Every op of the lowered layer in those phases, a timestep's ops counted per
// part and phase; the first recurrent GEMM stands for the row.
MeasuredOp rnn_layer_measured_op(const Measurement& m, Precision precision) {
  const auto it = m.shape.find("type");
  if (it == m.shape.end())
    throw UserError(fmt::format("measurement {} {} has no 'type' in its shape", m.bench,
                                format_shape(m.shape)));
  if (m.bench != "rnn_layer_fwd" && m.bench != "rnn_layer_train")
    throw UserError(fmt::format("bench '{}' is not a recurrent layer (expected one of: {})",
                                m.bench, "rnn_layer_fwd, rnn_layer_train"));
  auto [kind, params] = rnn_kind(it->second);
  params["hidden_size"] = raw(integer(m, "hidden"));
  params["num_layers"] = raw(integer_or(m, "layers", 1));
  const OneLayer l{m.bench,   kind,
                   params,    {integer(m, "timesteps"), integer(m, "batch"), integer(m, "hidden")},
                   precision, true};
  const graphs::LoweredNetwork n = lower_one_layer(l);
  std::vector<Phase> phases{Phase::kForward};
  if (m.bench == "rnn_layer_train")
    phases.insert(phases.end(), {Phase::kBackwardData, Phase::kBackwardWeight});
  MeasuredOp out;
  for (Phase phase : phases)
    for (const graphs::Operator* op : layer_ops(n, l.name, phase)) {
      const std::string part = step_part(*op);
      bool counted = false;
      if (!part.empty())
        for (auto& s : out.steps)
          if (s.op.phase == phase && step_part(s.op) == part) {
            s.count += 1;
            counted = true;
          }
      if (!counted) out.steps.push_back({*op, 1});
    }
  for (const auto& s : out.steps)
    if (!s.op.gemm.empty() && !step_part(s.op).empty()) {
      out.op = s.op;
      return out;
    }
  throw InternalError(fmt::format("the {} layer lowers to no recurrent GEMM", l.kind));
}

MeasuredOp lowered_op(const Measurement& m, Precision precision) {
  if (m.bench == "gemm" || m.bench.starts_with("gemm_")) {
    if (integer_or(m, "batch", 1) > 1) return {batched_gemm_op(m, precision), {}};
    return {gemm_like_op(gemm_layer(m, precision), m.bench), {}};
  }
  if (m.bench.starts_with("conv_")) {
    const ConvShape g = conv_shape(m);
    return {gemm_like_op(conv_layer(m.bench, g, precision), m.bench), {}};
  }
  if (m.bench.starts_with("rnn_layer_")) return rnn_layer_measured_op(m, precision);
  return rnn_measured_op(m, precision);
}

bool lowered_bench(const std::string& bench) {
  return bench == "gemm" || bench.starts_with("gemm_") || bench.starts_with("conv_") ||
         bench.starts_with("rnn_");
}

// Lowerings by row (bench, precision, shape): a fit converts each row once per fold and
// structure, and an RNN row lowers every timestep.
const MeasuredOp& cached_lowering(const Measurement& m, Precision precision) {
  static std::mutex mutex;
  static std::map<std::string, MeasuredOp> cache;
  const std::string key = m.bench + ' ' + m.precision + ' ' + format_shape(m.shape);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  MeasuredOp op = lowered_op(m, precision);
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.try_emplace(key, std::move(op)).first->second;
}

std::int64_t output_extent(std::int64_t in, std::int64_t kernel, std::int64_t pad,
                           std::int64_t stride) {
  const auto out = graphs::conv_output_extent(in, kernel, pad, stride);
  if (!out)
    throw UserError(
        fmt::format("convolution of size {} (pad {}) with kernel {} stride {} has no output", in,
                    pad, kernel, stride));
  return *out;
}

}  // namespace

namespace {
Params to_params(const std::map<std::string, std::vector<std::int64_t>>& params) {
  Params out;
  for (const auto& [key, values] : params) {
    graphs::RawParam p = values.size() == 1 ? raw(values.front()) : graphs::RawParam{};
    if (values.size() != 1) {
      p.is_list = true;
      for (std::int64_t v : values) p.items.push_back(std::to_string(v));
    }
    out[key] = p;
  }
  return out;
}
}  // namespace

graphs::Operator forward_layer_op(const std::string& kind,
                                  const std::map<std::string, std::vector<std::int64_t>>& params,
                                  const std::vector<graphs::Shape>& inputs) {
  return inference_op(kind, kind, to_params(params), inputs, Precision::kFp32);
}

graphs::Operator layer_op(const std::string& kind,
                          const std::map<std::string, std::vector<std::int64_t>>& params,
                          const graphs::Shape& input, Phase phase, bool training) {
  const OneLayer l{kind, kind, to_params(params), input, Precision::kFp32, training};
  const graphs::LoweredNetwork n = lower_one_layer(l);
  const auto ops = layer_ops(n, l.name, phase);
  if (ops.empty())
    throw UserError(fmt::format("a {} layer on {} has no {} op", kind, graphs::shape_str(input),
                                phase_name(phase)));
  return *ops.front();
}

void count_from_registry(Measurement& m) {
  const MeasuredOp measured = measured_op(m);
  if (measured.steps.empty()) {
    m.flops = measured.op.flops;
    m.bytes = measured.op.bytes();
    return;
  }
  m.flops = m.bytes = 0;
  for (const auto& step : measured.steps) {
    m.flops += step.count * step.op.flops;
    m.bytes += step.count * step.op.bytes();
  }
}

std::int64_t ConvShape::p() const { return output_extent(h, r, pad, stride); }
std::int64_t ConvShape::q() const { return output_extent(w, s, pad, stride); }

ConvShape conv_shape(const Measurement& m) {
  ConvShape g{integer(m, "n"), integer(m, "c"),   integer(m, "h"),
              integer(m, "w"), integer(m, "k"),   integer(m, "r"),
              integer(m, "s"), integer(m, "pad"), integer(m, "stride")};
  g.groups = integer_or(m, "groups", 1);
  if (g.groups < 1 || g.c % g.groups != 0 || g.k % g.groups != 0)
    throw UserError(fmt::format("measurement {} {}: groups {} must divide c {} and k {}", m.bench,
                                format_shape(m.shape), g.groups, g.c, g.k));
  return g;
}

graphs::Operator conv_operator(const std::string& bench, const ConvShape& g, double element_bytes) {
  return gemm_like_op(conv_layer(bench, g, element_precision(element_bytes)), bench);
}

double conv_flops(const ConvShape& g) { return conv_operator("conv_fwd", g).flops; }

double conv_bytes(const std::string& bench, const ConvShape& g, double element_bytes) {
  return conv_operator(bench, g, element_bytes).bytes();
}

int rnn_gates(const std::string& rnn_type) {
  const graphs::Operator step =
      rnn_measured_op(
          Measurement{"rnn_fwd",
                      "rnn",
                      "fp32",
                      {{"type", rnn_type}, {"hidden", "1"}, {"batch", "1"}, {"timesteps", "1"}}},
          Precision::kFp32)
          .op;
  return static_cast<int>(step.gemm.n);  // the recurrent GEMM's n is gates x hidden
}

MeasuredOp measured_op(const Measurement& m) {
  const auto op_class = parse_op_class(m.op_class);
  if (!op_class)
    throw UserError(fmt::format("measurement {}: unknown op class '{}' (expected one of: {})",
                                m.bench, m.op_class, join(op_class_names())));
  const Precision precision = row_precision(m);
  if (!lowered_bench(m.bench)) {
    MeasuredOp out;
    out.op.op_class = *op_class;
    out.op.precision = precision;
    out.op.name = m.bench;
    out.op.kind = m.bench;
    out.op.phase = bench_phase(m.bench);
    out.op.flops = m.flops;
    out.op.bytes_read = m.bytes;
    return out;
  }
  MeasuredOp out = cached_lowering(m, precision);
  if (out.op.op_class != *op_class)
    throw UserError(fmt::format("measurement {} {}: op class '{}', but the bench times a {} op",
                                m.bench, format_shape(m.shape), m.op_class,
                                op_class_name(out.op.op_class)));
  return out;
}

graphs::Operator to_operator(const Measurement& m) { return measured_op(m).op; }

}  // namespace amdahl::calibrate
