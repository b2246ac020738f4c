#include "graphs/lower.h"

#include <fmt/format.h>

#include <map>

#include "graphs/layer_kind.h"
#include "graphs/optimizer.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::graphs {

std::string_view mode_name(Mode m) { return m == Mode::kTrain ? "train" : "infer"; }

namespace {

struct TensorState {
  TensorInfo info;
  OpId producer = kNoOp;
  bool requires_grad = false;
  std::vector<OpId> grad_parts;  // ops producing contributions to d(loss)/d(tensor)
};

struct LayerRecord {
  const Layer* layer;
  const LayerKind* kind;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  std::vector<Weight> weights;
  OpId last_forward = kNoOp;
  std::vector<OpId> weight_grad;  // per weight
};

std::string output_name(const std::string& layer, std::size_t i) {
  return i == 0 ? layer : fmt::format("{}:{}", layer, i);
}

class Lowerer {
 public:
  Lowerer(const BoundNetwork& net, const LoweringOptions& options)
      : net_(net), options_(options), training_(options.mode == Mode::kTrain) {}

  LoweredNetwork run() {
    out_.name = net_.name;
    out_.optimizer = net_.optimizer;
    out_.mode = options_.mode;
    out_.precision = options_.precision;
    emit_input_transfers();
    for (const Layer& layer : net_.layers) forward(layer);
    if (training_) {
      backward();
      optimizer();
    }
    out_.memory = memory_footprint(out_);
    return std::move(out_);
  }

 private:
  OpId add(Operator op, const std::vector<std::pair<OpId, double>>& deps) {
    const OpId id = out_.graph.add(std::move(op));
    for (const auto& [from, bytes] : deps)
      if (from != kNoOp) out_.graph.depend(from, id, bytes);
    return id;
  }

  void emit_input_transfers() {
    for (const auto& in : net_.inputs) {
      Operator op;
      op.name = fmt::format("input.{}.h2d", in.name);
      op.layer = "input";
      op.kind = "transfer";
      op.op_class = OpClass::kTransfer;
      op.phase = Phase::kHost;
      op.dtype = in.tensor.dtype;
      op.output_shape = in.tensor.shape;
      op.bytes_read = in.tensor.bytes();
      op.bytes_written = in.tensor.bytes();
      out_.input_bytes += in.tensor.bytes();
      tensors_[in.name] = TensorState{in.tensor, add(std::move(op), {}), false, {}};
    }
  }

  std::vector<std::string> known_tensors() const {
    std::vector<std::string> names;
    for (const auto& [name, t] : tensors_) names.push_back(name);
    return names;
  }

  void forward(const Layer& layer) {
    const LayerKind& kind = layer_registry().get(layer.kind);
    if (kind.is_loss && !training_) return;
    LayerRecord rec{&layer, &kind, layer.inputs, {}, {}, {}, {}, kNoOp, {}};
    if (rec.input_names.empty()) {
      if (!previous_.empty())
        rec.input_names.push_back(previous_);
      else if (!net_.inputs.empty())
        rec.input_names.push_back(net_.inputs.front().name);
    }
    const int n = static_cast<int>(rec.input_names.size());
    if (n < kind.min_inputs || (kind.max_inputs >= 0 && n > kind.max_inputs)) {
      const std::string expected = kind.max_inputs < 0 ? fmt::format("at least {}", kind.min_inputs)
                                   : kind.min_inputs == kind.max_inputs
                                       ? fmt::format("{}", kind.min_inputs)
                                       : fmt::format("{} to {}", kind.min_inputs, kind.max_inputs);
      throw UserError(
          fmt::format("{}: expects {} input(s) (got {})", layer.error_prefix(), expected, n));
    }
    bool any_grad = false;
    std::vector<std::pair<OpId, double>> deps;
    for (const auto& name : rec.input_names) {
      const auto it = tensors_.find(name);
      if (it == tensors_.end()) {
        bool later = false;
        for (const Layer& l : net_.layers)
          later = later || l.name == name || name.starts_with(l.name + ":");
        if (later)
          throw UserError(fmt::format(
              "{}: input '{}' is defined after this layer (a cycle, or layers out of order)",
              layer.error_prefix(), name));
        throw UserError(fmt::format("{}: missing input '{}'; {}", layer.error_prefix(), name,
                                    suggestion(name, known_tensors())));
      }
      rec.inputs.push_back(it->second.info);
      any_grad = any_grad || it->second.requires_grad;
      deps.emplace_back(it->second.producer, it->second.info.bytes());
    }
    rec.outputs = kind.infer(layer, rec.inputs);
    if (kind.weights) rec.weights = kind.weights(layer, rec.inputs);
    for (const auto& w : rec.weights) {
      out_.weights.push_back({layer.name, w.name, w.elements});
      out_.parameters += w.elements;
    }
    ForwardContext ctx(layer, rec.inputs, rec.outputs, options_.precision, training_);
    kind.forward(ctx);
    OpId last = deps.empty() ? kNoOp : deps.front().first;
    bool first = true;
    for (Operator& op : ctx.emitted()) {
      if (first) {
        last = add(std::move(op), deps);
        first = false;
      } else {
        const double bytes = out_.graph.op(last).bytes_written;
        last = add(std::move(op), {{last, bytes}});
      }
    }
    rec.last_forward = last;
    const bool requires_grad =
        training_ && kind.differentiable && (any_grad || !rec.weights.empty());
    for (std::size_t i = 0; i < rec.outputs.size(); ++i) {
      rec.output_names.push_back(output_name(layer.name, i));
      if (tensors_.count(rec.output_names.back()))
        throw UserError(
            fmt::format("{}: a tensor named '{}' already exists (layer names must be unique)",
                        layer.error_prefix(), rec.output_names.back()));
      tensors_[rec.output_names.back()] = TensorState{rec.outputs[i], last, requires_grad, {}};
    }
    previous_ = rec.output_names.front();
    records_.push_back(std::move(rec));
  }

  // The op whose completion makes d(loss)/d(tensor) available, summing contributions.
  OpId gradient_of(const std::string& name, const LayerRecord& rec) {
    TensorState& t = tensors_.at(name);
    if (t.grad_parts.size() <= 1) return t.grad_parts.empty() ? kNoOp : t.grad_parts.front();
    Operator op;
    op.name = fmt::format("{}.grad_sum", name);
    op.layer = rec.layer->name;
    op.kind = "grad_sum";
    op.op_class = OpClass::kElementwise;
    op.phase = Phase::kBackwardData;
    op.precision = options_.precision;
    op.dtype = t.info.dtype;
    op.output_shape = t.info.shape;
    const double k = static_cast<double>(t.grad_parts.size());
    op.flops = (k - 1) * static_cast<double>(t.info.elements());
    op.bytes_read = k * t.info.bytes();
    op.bytes_written = t.info.bytes();
    std::vector<std::pair<OpId, double>> deps;
    for (OpId p : t.grad_parts) deps.emplace_back(p, t.info.bytes());
    const OpId id = add(std::move(op), deps);
    t.grad_parts = {id};
    return id;
  }

  void backward() {
    bool has_loss = false;
    for (const auto& rec : records_) has_loss = has_loss || rec.kind->is_loss;
    if (!has_loss) {
      std::vector<std::string> losses;
      for (const auto& [name, kind] : layer_registry().kinds())
        if (kind.is_loss) losses.push_back(name);
      throw UserError(
          fmt::format("network '{}' has no loss layer, so it cannot be trained (use "
                      "--mode infer, or add one of: {})",
                      net_.name, join(losses)));
    }
    for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
      LayerRecord& rec = *it;
      std::vector<std::pair<OpId, double>> grad_sources;
      bool reached = rec.kind->is_loss;
      for (std::size_t i = 0; i < rec.output_names.size(); ++i) {
        const OpId g = gradient_of(rec.output_names[i], rec);
        if (g != kNoOp) {
          grad_sources.emplace_back(g, rec.outputs[i].bytes());
          reached = true;
        }
      }
      if (!reached) continue;
      std::vector<bool> needs;
      bool any = false;
      for (const auto& name : rec.input_names) {
        needs.push_back(tensors_.at(name).requires_grad);
        any = any || needs.back();
      }
      if (!any && rec.weights.empty()) continue;
      auto seeds = grad_sources;
      seeds.emplace_back(rec.last_forward, 0.0);  // saved activations
      BackwardContext ctx(*rec.layer, rec.inputs, rec.outputs, needs, options_.precision);
      rec.kind->backward(ctx);
      rec.weight_grad.assign(rec.weights.size(), kNoOp);
      OpId previous = kNoOp;
      for (auto& e : ctx.emitted()) {
        auto deps = seeds;
        if (e.chained && previous != kNoOp)
          deps.emplace_back(previous, out_.graph.op(previous).bytes_written);
        const int input = e.grad_of_input;
        const int weight = e.grad_of_weight;
        previous = add(std::move(e.op), deps);
        if (input >= 0) tensors_.at(rec.input_names.at(input)).grad_parts.push_back(previous);
        if (weight >= 0) rec.weight_grad.at(weight) = previous;
        for (int w : e.also_grad_of_weights) rec.weight_grad.at(w) = previous;
      }
      for (std::size_t i : ctx.passed()) {
        auto& parts = tensors_.at(rec.input_names.at(i)).grad_parts;
        if (grad_sources.empty()) parts.push_back(rec.last_forward);
        for (const auto& source : grad_sources) parts.push_back(source.first);
      }
      for (std::size_t w = 0; w < rec.weights.size(); ++w)
        if (rec.weight_grad[w] == kNoOp)
          throw InternalError(fmt::format("layer kind {} emitted no gradient for weight {}",
                                          rec.kind->name, rec.weights[w].name));
    }
  }

  Operator update_op(const std::string& name, const std::string& layer, double elements) const {
    const UpdateCost c = update_cost(net_.optimizer);
    Operator op;
    op.name = name;
    op.layer = layer;
    op.kind = std::string(optimizer_name(net_.optimizer));
    op.op_class = OpClass::kOptimizer;
    op.phase = Phase::kUpdate;
    op.precision = Precision::kFp32;
    op.output_shape = {static_cast<std::int64_t>(elements)};
    op.flops = c.flops_per_element * elements;
    op.bytes_read = c.bytes_read_per_element * elements;
    op.bytes_written = c.bytes_written_per_element * elements;
    return op;
  }

  void optimizer() {
    if (options_.fused_optimizer) {
      std::vector<std::pair<OpId, double>> deps;
      for (const auto& rec : records_)
        for (std::size_t w = 0; w < rec.weights.size(); ++w)
          if (rec.weight_grad[w] != kNoOp)
            deps.emplace_back(rec.weight_grad[w],
                              4.0 * static_cast<double>(rec.weights[w].elements));
      if (!deps.empty())
        add(update_op("optimizer.update", "optimizer", static_cast<double>(out_.parameters)), deps);
      return;
    }
    for (const auto& rec : records_)
      for (std::size_t w = 0; w < rec.weights.size(); ++w) {
        if (rec.weight_grad[w] == kNoOp) continue;
        const double n = static_cast<double>(rec.weights[w].elements);
        add(update_op(fmt::format("{}.{}.update", rec.layer->name, rec.weights[w].name),
                      rec.layer->name, n),
            {{rec.weight_grad[w], 4.0 * n}});
      }
  }

  const BoundNetwork& net_;
  const LoweringOptions& options_;
  const bool training_;
  LoweredNetwork out_;
  std::map<std::string, TensorState> tensors_;
  std::vector<LayerRecord> records_;
  std::string previous_;
};

}  // namespace

LoweredNetwork lower(const BoundNetwork& network, const LoweringOptions& options) {
  return Lowerer(network, options).run();
}

}  // namespace amdahl::graphs
