#include "graphs/lower.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/container/small_vector.hpp>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

#include "graphs/autocast.h"
#include "graphs/layer_kind.h"
#include "graphs/lowering_plan.h"
#include "graphs/optimizer.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::graphs {

std::string_view mode_name(Mode m) { return m == Mode::kTrain ? "train" : "infer"; }

namespace {

// An op count as a whole number; one past 2^53 (steps x layers of a hostile size) in
// scientific notation, where a double no longer holds every integer.
std::string op_count_text(double n) {
  return n < 0x1p53 ? fmt::format("{:.0f}", n) : fmt::format("{:.3g}", n);
}

// A tensor of the micro-batch being lowered. Held in a deque (stable addresses: the name
// index views `name`) and referred to by its position there.
struct TensorState {
  std::string name;
  TensorInfo info;
  OpId producer = kNoOp;
  bool requires_grad = false;
  boost::container::small_vector<OpId, 2> grad_parts;  // ops producing d(loss)/d(tensor) parts
  std::size_t slot = 0;  // index of the tensor in the plan (LoweringPlan::slots)
};

struct Dep {
  OpId from = kNoOp;
  double bytes = 0;
  BytesSource source;
};
using Deps = boost::container::small_vector<Dep, 4>;

struct LayerRecord {
  const Layer* layer = nullptr;
  const LayerKind* kind = nullptr;
  // Its inputs and outputs: positions in Lowerer::tensors_, which holds their shapes (a
  // record keeps no copies: a large network has one record per layer until its backward).
  boost::container::small_vector<std::size_t, 2> input_tensors;
  boost::container::small_vector<std::size_t, 1> output_tensors;
  std::vector<Weight> weights;
  OpId last_forward = kNoOp;
  std::vector<OpId> weight_grad;  // per weight
  std::size_t plan_record = 0;    // its LoweringPlan::Record when a plan is kept
  bool weights_cast = false;      // autocast made 16-bit copies of its weights (graphs/autocast.h)
  std::size_t first_weight = 0;   // index of its first weight in the step's weight list
};

std::string output_name(const std::string& layer, std::size_t i) {
  return i == 0 ? layer : layer + ":" + std::to_string(i);
}

struct WeightGrad {
  std::string layer;
  std::string name;
  double elements = 0;
  OpId grad = kNoOp;  // the op after which the fp32 gradient (running sum) is complete
};

class Lowerer {
 public:
  Lowerer(const BoundNetwork& net, const LoweringOptions& options, LoweringPlan* plan)
      : net_(net), options_(options), training_(options.mode == Mode::kTrain), plan_(plan) {}

  LoweredNetwork run() {
    const int steps = options_.accumulation_steps;
    if (steps < 1)
      throw UserError(fmt::format("accumulation steps must be at least 1 (got {})", steps));
    if (steps > 1 && !training_)
      throw UserError(fmt::format(
          "gradient accumulation ({} micro-batches) applies to training only (mode is {})", steps,
          mode_name(options_.mode)));
    out_.name = net_.name;
    out_.optimizer = net_.optimizer;
    out_.assumptions = net_.assumptions;
    out_.mode = options_.mode;
    out_.precision = options_.precision;
    out_.accumulation_steps = steps;
    const int replicas = options_.data_parallel.replicas;
    if (replicas < 1)
      throw UserError(fmt::format("data-parallel replicas must be at least 1 (got {})", replicas));
    out_.replicas = replicas;
    out_.exchange = options_.data_parallel.exchange;
    ddp_ = training_ && replicas > 1;
    // Most layers lower to a few ops per pass (forward; data and weight gradients; update):
    // reserving for that spares re-growing the vertex vector on large networks.
    // (Never past the op limit: the reservation is made before any op is counted.)
    const double expected =
        static_cast<double>(net_.layers.size()) * (training_ ? 4.0 * steps : 1.0) +
        static_cast<double>(net_.inputs.size());
    out_.graph.reserve(
        static_cast<std::size_t>(std::min(expected, static_cast<double>(max_ops()))));
    if (plan_) {
      plan_->options = options_;
      plan_->layer_count = net_.layers.size();
      plan_->input_count = net_.inputs.size();
    }
    records_.reserve(net_.layers.size());
    tensor_index_.reserve(net_.layers.size() + net_.inputs.size());
    std::vector<WeightGrad> sums;
    for (micro_ = 0; micro_ < steps; ++micro_) {
      tensors_.clear();
      tensor_index_.clear();
      records_.clear();
      previous_.clear();
      overwritten_.clear();  // each micro-batch's forward pass writes its own tensors
      micro_weights_ = 0;
      emit_input_transfers();
      for (const Layer& layer : net_.layers) forward_located(layer);
      if (micro_ == 0) resolve_ties();
      if (training_) {
        const bool last = micro_ == steps - 1;
        if (ddp_ && last) begin_buckets(sums);
        backward(ddp_ && last && steps == 1 ? &sums : nullptr);
        accumulate(sums);
        if (ddp_ && last) launch_buckets(sums, true);
      }
      if (micro_ == 0) {
        out_.micro_batch_end = out_.graph.size();
        // Every later micro-batch makes the first one's ops again: a step past the limit is
        // known now, before the others are made.
        if (static_cast<double>(out_.micro_batch_end) * steps > static_cast<double>(max_ops()))
          throw UserError(fmt::format(
              "{}: {} micro-batches of {} ops each make more than the limit of {} ops (--max-ops "
              "N raises it)",
              net_.name, steps, out_.micro_batch_end, max_ops()));
      }
    }
    if (training_) optimizer(sums);
    out_.memory = memory_footprint(out_);
    if (plan_) {
      plan_->casts = std::move(synthesized_);
      plan_->slot_count = slot_count_;
    }
    return std::move(out_);
  }

 private:
  bool mixed() const {
    return options_.precision == Precision::kFp16 || options_.precision == Precision::kBf16;
  }
  DType half_dtype() const {
    return options_.precision == Precision::kBf16 ? DType::kBf16 : DType::kF16;
  }

  // The math precision of an op under the requested precision (lower.h).
  Precision math_precision(const Operator& op) const {
    switch (options_.precision) {
      case Precision::kFp32:
        return Precision::kFp32;
      case Precision::kTf32:
        return is_matrix_class(op.op_class) ? Precision::kTf32 : Precision::kFp32;
      case Precision::kFp16:
      case Precision::kBf16:
        return is_matrix_class(op.op_class) && is_half(op.dtype) ? options_.precision
                                                                 : Precision::kFp32;
      default:
        return options_.precision;
    }
  }

  OpId add(Operator&& op, const Deps& deps) {
    if (static_cast<std::int64_t>(out_.graph.size()) >= max_ops())
      throw UserError(
          fmt::format("{}: lowering makes more than {} ops (the limit; --max-ops N raises it)",
                      net_.name, max_ops()));
    if (micro_ > 0) op.name = "mb" + std::to_string(micro_) + "." + op.name;
    const OpId id = out_.graph.add(std::move(op));
    for (const Dep& d : deps)
      if (d.from != kNoOp && out_.graph.depend(d.from, id, d.bytes) && plan_)
        plan_->edges.push_back({d.from, id, d.source});
    return id;
  }

  // A layer whose kind counts its ops (LayerKind::op_count) makes `count` ops in one pass:
  // checked against the limit before its rules make the first (an RNN of 10^8 steps would
  // otherwise build gigabytes of ops before add() refused one).
  void check_op_count(const Layer& layer, const std::vector<TensorInfo>& inputs, double count,
                      std::string_view pass) const {
    const double made = static_cast<double>(out_.graph.size());
    if (made + count <= static_cast<double>(max_ops())) return;
    throw UserError(fmt::format(
        "{}: its {} pass makes {} ops at these sizes (input {}){}: more than the limit of {} ops "
        "(--max-ops N raises it)",
        layer.error_prefix(), pass, op_count_text(count),
        inputs.empty() ? "?" : shape_str(inputs.front().shape),
        made > 0 ? fmt::format(", after the {} ops before it", out_.graph.size()) : "", max_ops()));
  }

  void step(LoweringPlan::Step::Kind kind, std::size_t index, OpId op = kNoOp, double count = 0) {
    if (plan_) plan_->steps.push_back({kind, index, op, count});
  }

  // A new tensor (the caller checked that the name is free).
  TensorState& define(std::string name, const TensorInfo& info, OpId producer, bool requires_grad) {
    TensorState& t = tensors_.emplace_back(
        TensorState{std::move(name), info, producer, requires_grad, {}, slot_count_++});
    tensor_index_.emplace(t.name, tensors_.size() - 1);
    return t;
  }
  // The position of the tensor named `name` in tensors_, if there is one.
  std::optional<std::size_t> find_tensor(std::string_view name) const {
    const auto it = tensor_index_.find(name);
    if (it == tensor_index_.end()) return std::nullopt;
    return it->second;
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
      transfer_numbers(op, in.tensor);
      out_.input_bytes += in.tensor.bytes();
      const OpId id = add(std::move(op), {});
      const std::size_t slot = define(in.name, in.tensor, id, false).slot;
      step(LoweringPlan::Step::Kind::kInput, static_cast<std::size_t>(&in - net_.inputs.data()), id,
           static_cast<double>(slot));
    }
  }

  std::vector<std::string> known_tensors() const {
    std::vector<std::string> names;
    for (const TensorState& t : tensors_) names.push_back(t.name);
    std::sort(names.begin(), names.end());
    return names;
  }

  // The name of `name` converted to `to`: a cast layer inserted before `consumer` the first
  // time, shared afterwards.
  std::string cast_of(const std::string& name, DType to, const Layer& consumer) {
    const std::string cast_name = name + ".to_" + std::string(dtype_name(to));
    if (find_tensor(cast_name)) return cast_name;
    Layer& cast = synthesized_.emplace_back();
    cast.name = cast_name;
    cast.kind = "cast";
    cast.inputs = {name};
    cast.params["to"] = std::string(dtype_name(to));
    cast.where = consumer.where;
    const std::string previous = previous_;
    forward(cast, false);
    previous_ = previous;
    return cast_name;
  }

  // Under mixed precision, the dtype `layer` runs in (nullopt: leave its inputs as they are),
  // with its floating-point inputs renamed to casts where theirs differs; `cast_weights`: its
  // weights get 16-bit copies (graphs/autocast.h).
  std::optional<DType> apply_autocast(const Layer& layer, const LayerKind& kind,
                                      std::vector<std::string>& names, bool& cast_weights) {
    std::optional<DType> target;
    const AutocastPolicy policy = autocast_rule(kind.name).policy;
    cast_weights = policy == AutocastPolicy::kLowerPrecision;
    switch (policy) {
      case AutocastPolicy::kLowerPrecision:
        target = half_dtype();
        break;
      case AutocastPolicy::kFp32:
        target = DType::kF32;
        break;
      case AutocastPolicy::kFollow:
        for (const auto& name : names) {
          const auto i = find_tensor(name);
          if (!i || !is_float(tensors_[*i].info.dtype)) continue;
          const DType t = tensors_[*i].info.dtype;
          if (!target || (is_half(*target) && !is_half(t))) target = t;
        }
        break;
      case AutocastPolicy::kExplicit:
        break;
    }
    if (!target) return target;
    for (auto& name : names) {
      const auto i = find_tensor(name);
      if (!i) continue;  // reported below
      const DType t = tensors_[*i].info.dtype;
      if (is_float(t) && t != *target) name = cast_of(name, *target, layer);
    }
    return target;
  }

  // The 16-bit working copy of each weight of a 16-bit layer, made from the fp32 master.
  void emit_weight_casts(const LayerRecord& rec, DType half, Deps& deps, std::vector<OpId>& ids) {
    for (const Weight& w : rec.weights) {
      Operator op;
      op.name = fmt::format("{}.{}.weight_cast", rec.layer->name, w.name);
      op.layer = rec.layer->name;
      op.kind = "weight_cast";
      op.op_class = OpClass::kDataMovement;
      op.phase = Phase::kForward;
      op.precision = Precision::kFp32;
      op.dtype = half;
      weight_cast_numbers(op, w.elements, half);
      const double written = op.bytes_written;
      const OpId id = add(std::move(op), {});
      ids.push_back(id);
      deps.push_back({id, written, BytesSource::written(id)});
    }
  }

  // A layer with `inplace: true` writes over its first input, which no later layer may then
  // read (the framework would read the overwritten values).
  void check_not_overwritten(const Layer& layer, const std::vector<std::string>& input_names) {
    for (const auto& name : input_names)
      if (const auto it = overwritten_.find(name); it != overwritten_.end())
        throw UserError(fmt::format(
            "{}: input '{}' was overwritten by the in-place layer '{}' before it (inplace: "
            "true); read that layer's output, or set inplace: false there",
            layer.error_prefix(), name, it->second));
    if (writes_in_place(layer) && !input_names.empty())
      overwritten_[input_names.front()] = layer.name;
  }

  // forward() with every error naming the layer (a size that overflows while its shapes are
  // inferred says where).
  void forward_located(const Layer& layer) {
    try {
      forward(layer);
    } catch (const ConfigError&) {
      throw;
    } catch (const UserError& e) {
      const std::string prefix = layer.error_prefix();
      if (std::string_view(e.what()).starts_with(prefix)) throw;
      throw UserError(fmt::format("{}: {}", prefix, e.what()));
    }
  }

  void forward(const Layer& layer, bool autocast = true) {
    const LayerKind& kind = layer_registry().get(layer.kind);
    if (kind.is_loss && !training_) return;
    LayerRecord rec{.layer = &layer, .kind = &kind};
    std::vector<std::string> input_names = layer.inputs;
    if (input_names.empty()) {
      if (!previous_.empty())
        input_names.push_back(previous_);
      else if (!net_.inputs.empty())
        input_names.push_back(net_.inputs.front().name);
    }
    check_not_overwritten(layer, input_names);
    std::optional<DType> run_dtype;
    if (autocast && mixed()) run_dtype = apply_autocast(layer, kind, input_names, rec.weights_cast);
    const int n = static_cast<int>(input_names.size());
    if (n < kind.min_inputs || (kind.max_inputs >= 0 && n > kind.max_inputs)) {
      const std::string expected = kind.max_inputs < 0 ? fmt::format("at least {}", kind.min_inputs)
                                   : kind.min_inputs == kind.max_inputs
                                       ? fmt::format("{}", kind.min_inputs)
                                       : fmt::format("{} to {}", kind.min_inputs, kind.max_inputs);
      throw UserError(
          fmt::format("{}: expects {} input(s) (got {})", layer.error_prefix(), expected, n));
    }
    bool any_grad = false;
    Deps deps;
    LoweringPlan::Record plan_rec;
    if (plan_) {
      plan_rec.kind = &kind;
      plan_rec.run_dtype = run_dtype;
      if (autocast)
        plan_rec.layer = static_cast<std::size_t>(&layer - net_.layers.data());
      else
        plan_rec.synthesized = &layer;
    }
    std::vector<TensorInfo> inputs;
    inputs.reserve(input_names.size());
    for (const auto& name : input_names) {
      const auto found = find_tensor(name);
      if (!found) {
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
      const TensorState& t = tensors_[*found];
      rec.input_tensors.push_back(*found);
      inputs.push_back(t.info);
      any_grad = any_grad || t.requires_grad;
      deps.push_back({t.producer, t.info.bytes(), BytesSource::tensor(t.slot)});
      if (plan_) plan_rec.input_slots.push_back(t.slot);
    }
    std::vector<TensorInfo> outputs = kind.infer(layer, inputs);
    if (run_dtype)
      for (auto& t : outputs)
        if (is_float(t.dtype)) t.dtype = *run_dtype;
    if (kind.op_count) {
      std::vector<bool> needs;
      for (const std::size_t t : rec.input_tensors) needs.push_back(tensors_[t].requires_grad);
      check_op_count(layer, inputs, kind.op_count(layer, inputs, needs).forward, "forward");
    }
    if (kind.weights) rec.weights = kind.weights(layer, inputs);
    rec.first_weight = micro_weights_;
    micro_weights_ += rec.weights.size();
    plan_rec.counts_weights = micro_ == 0;
    plan_rec.first_weight = out_.weights.size();
    plan_rec.weight_count = rec.weights.size();
    if (micro_ == 0)
      for (const auto& w : rec.weights) {
        out_.weights.push_back({layer.name, w.name, w.elements});
        out_.parameters = add_parameters(layer, out_.parameters, w.elements);
      }
    if (kind.shared_weight && micro_ == 0)
      if (auto shared = kind.shared_weight(layer, inputs))
        ties_.push_back({records_.size(), std::move(*shared)});
    if (rec.weights_cast) emit_weight_casts(rec, half_dtype(), deps, plan_rec.weight_casts);
    ForwardContext ctx(layer, inputs, outputs, options_.precision, training_,
                       options_.conv_bias_kernel);
    ctx.emitted().reserve(2);  // most kinds emit one or two ops: no Operator moved on growth
    kind.forward(ctx);
    OpId last = deps.empty() ? kNoOp : deps.front().from;
    bool first = true;
    for (Operator& op : ctx.emitted()) {
      op.precision = math_precision(op);
      if (first) {
        last = add(std::move(op), deps);
        first = false;
      } else {
        const double bytes = out_.graph.op(last).bytes_written;
        last = add(std::move(op), {{last, bytes, BytesSource::written(last)}});
      }
      if (plan_) plan_rec.forward_ops.push_back(last);
    }
    rec.last_forward = last;
    const bool requires_grad =
        training_ && kind.differentiable && (any_grad || !rec.weights.empty());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      std::string name = output_name(layer.name, i);
      if (find_tensor(name))
        throw UserError(
            fmt::format("{}: a tensor named '{}' already exists (layer names must be unique)",
                        layer.error_prefix(), name));
      const std::size_t slot = define(std::move(name), outputs[i], last, requires_grad).slot;
      rec.output_tensors.push_back(tensors_.size() - 1);
      if (plan_) plan_rec.output_slots.push_back(slot);
    }
    previous_ = tensors_[rec.output_tensors.front()].name;
    if (plan_) {
      rec.plan_record = plan_->records.size();
      step(LoweringPlan::Step::Kind::kForward, plan_->records.size());
      plan_->records.push_back(std::move(plan_rec));
    }
    records_.push_back(std::move(rec));
  }

  // Each layer tied to another's weight (`tied_to`) after the first micro-batch's forward pass
  // (an owner may come later): the owner must be another layer of the network, reached through
  // ties without a cycle, holding the weight with the shape the tied layer needs. Otherwise
  // the tied layer would have no weight at all and the parameters would silently lose it.
  void resolve_ties() {
    if (ties_.empty()) return;
    std::unordered_map<std::string_view, std::size_t> record_of;
    for (std::size_t i = 0; i < records_.size(); ++i) record_of.emplace(records_[i].layer->name, i);
    std::unordered_map<std::size_t, const SharedWeight*> tie_of;
    for (const auto& [r, shared] : ties_) tie_of.emplace(r, &shared);
    for (const auto& [r, shared] : ties_) {
      const Layer& layer = *records_[r].layer;
      if (shared.owner == layer.name)
        throw UserError(
            fmt::format("{}: tied_to '{}' names the layer itself (tie it to the layer "
                        "whose weight it shares)",
                        layer.error_prefix(), excerpt(shared.owner)));
      std::vector<std::string> chain{layer.name};
      std::size_t owner = r;
      for (const SharedWeight* link = &shared; link;) {
        const auto found = record_of.find(link->owner);
        if (found == record_of.end()) {
          std::vector<std::string> names;
          for (const Layer& l : net_.layers) names.push_back(l.name);
          const bool exists = std::find(names.begin(), names.end(), link->owner) != names.end();
          throw UserError(fmt::format(
              "{}: tied_to '{}': {}", records_[owner].layer->error_prefix(), excerpt(link->owner),
              exists ? "that layer is not lowered in this mode (a loss layer has no weight)"
                     : "no layer of that name; " + suggestion(link->owner, names)));
        }
        if (std::find(chain.begin(), chain.end(), link->owner) != chain.end()) {
          chain.push_back(link->owner);
          throw UserError(
              fmt::format("{}: tied_to forms a cycle ({}): no layer of it owns the "
                          "weight",
                          layer.error_prefix(), join(chain, " -> ")));
        }
        chain.push_back(link->owner);
        owner = found->second;
        const auto next = tie_of.find(owner);
        link = next == tie_of.end() ? nullptr : next->second;
      }
      const LayerRecord& o = records_[owner];
      const std::size_t w = shared_weight_index(layer, shared, *o.layer, o.weights);
      if (plan_) plan_->ties.push_back({records_[r].plan_record, o.plan_record, w});
    }
  }

  // The op whose completion makes d(loss)/d(tensor) available, summing contributions.
  OpId gradient_of(std::size_t tensor, const LayerRecord& rec) {
    TensorState& t = tensors_[tensor];
    if (t.grad_parts.size() <= 1) return t.grad_parts.empty() ? kNoOp : t.grad_parts.front();
    Operator op;
    op.name = fmt::format("{}.grad_sum", t.name);
    op.layer = rec.layer->name;
    op.kind = "grad_sum";
    op.op_class = OpClass::kElementwise;
    op.phase = Phase::kBackwardData;
    op.dtype = t.info.dtype;
    op.precision = math_precision(op);
    const double k = static_cast<double>(t.grad_parts.size());
    grad_sum_numbers(op, t.info, k);
    Deps deps;
    for (OpId p : t.grad_parts) deps.push_back({p, t.info.bytes(), BytesSource::tensor(t.slot)});
    const OpId id = add(std::move(op), deps);
    step(LoweringPlan::Step::Kind::kGradSum, t.slot, id, k);
    t.grad_parts = {id};
    return id;
  }

  // `ready`: with data parallelism and no accumulation, the gradient sums, which each
  // record's final weight gradients complete (their buckets launch as they fill).
  void backward(std::vector<WeightGrad>* ready) {
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
      Deps grad_sources;
      bool reached = rec.kind->is_loss;
      for (std::size_t i = 0; i < rec.output_tensors.size(); ++i) {
        const OpId g = gradient_of(rec.output_tensors[i], rec);
        if (g != kNoOp) {
          grad_sources.push_back({g, tensors_[rec.output_tensors[i]].info.bytes(),
                                  BytesSource::tensor(tensors_[rec.output_tensors[i]].slot)});
          reached = true;
        }
      }
      if (!reached) continue;
      std::vector<bool> needs;
      bool any = false;
      for (const std::size_t t : rec.input_tensors) {
        needs.push_back(tensors_[t].requires_grad);
        any = any || needs.back();
      }
      if (!any && rec.weights.empty()) continue;
      auto seeds = grad_sources;
      seeds.push_back({rec.last_forward, 0.0, BytesSource::zero()});  // saved activations
      backward_inputs_.clear();
      for (const std::size_t t : rec.input_tensors) backward_inputs_.push_back(tensors_[t].info);
      backward_outputs_.clear();
      for (const std::size_t t : rec.output_tensors) backward_outputs_.push_back(tensors_[t].info);
      if (rec.kind->op_count)
        check_op_count(*rec.layer, backward_inputs_,
                       rec.kind->op_count(*rec.layer, backward_inputs_, needs).backward,
                       "backward");
      LoweringPlan::Record* plan_rec = plan_ ? &plan_->records[rec.plan_record] : nullptr;
      if (plan_rec) plan_rec->needs = needs;
      BackwardContext ctx(*rec.layer, backward_inputs_, backward_outputs_, std::move(needs),
                          options_.precision);
      ctx.emitted().reserve(4);
      rec.kind->backward(ctx);
      rec.weight_grad.assign(rec.weights.size(), kNoOp);
      if (plan_rec) {
        plan_rec->has_backward = true;
        plan_rec->passed = ctx.passed().size();
        step(LoweringPlan::Step::Kind::kBackward, rec.plan_record);
      }
      OpId previous = kNoOp;
      for (auto& e : ctx.emitted()) {
        e.op.precision = math_precision(e.op);
        auto deps = seeds;
        if (e.chained && previous != kNoOp)
          deps.push_back(
              {previous, out_.graph.op(previous).bytes_written, BytesSource::written(previous)});
        const int input = e.grad_of_input;
        const int weight = e.grad_of_weight;
        previous = add(std::move(e.op), deps);
        if (plan_rec) plan_rec->backward_ops.push_back({previous, e.chained, input, weight});
        if (input >= 0) tensors_[rec.input_tensors.at(input)].grad_parts.push_back(previous);
        if (weight >= 0) rec.weight_grad.at(weight) = previous;
        for (int w : e.also_grad_of_weights) rec.weight_grad.at(w) = previous;
      }
      for (std::size_t i : ctx.passed()) {
        auto& parts = tensors_[rec.input_tensors.at(i)].grad_parts;
        if (grad_sources.empty()) parts.push_back(rec.last_forward);
        for (const auto& source : grad_sources) parts.push_back(source.from);
      }
      for (std::size_t w = 0; w < rec.weights.size(); ++w) {
        if (rec.weight_grad[w] == kNoOp)
          throw InternalError(fmt::format("layer kind {} emitted no gradient for weight {}",
                                          rec.kind->name, rec.weights[w].name));
        if (rec.weights_cast && is_half(out_.graph.op(rec.weight_grad[w]).dtype)) {
          const OpId grad = rec.weight_grad[w];
          rec.weight_grad[w] = emit_grad_cast(rec, w);
          if (plan_rec) plan_rec->grad_casts.push_back({rec.weight_grad[w], grad, w});
        }
      }
      if (ready) {
        for (std::size_t w = 0; w < rec.weights.size(); ++w) {
          WeightGrad& sum = ready->at(rec.first_weight + w);
          sum.grad = rec.weight_grad[w];
          gradient_ready(rec.first_weight + w, sum);
        }
        launch_buckets(*ready, false);
      }
    }
  }

  // A 16-bit weight gradient cast to fp32 for the update.
  OpId emit_grad_cast(const LayerRecord& rec, std::size_t w) {
    const Operator& grad = out_.graph.op(rec.weight_grad[w]);
    const DType from = grad.dtype;
    const std::int64_t n = rec.weights[w].elements;
    Operator op;
    op.name = fmt::format("{}.{}.grad_cast", rec.layer->name, rec.weights[w].name);
    op.layer = rec.layer->name;
    op.kind = "grad_cast";
    op.op_class = OpClass::kDataMovement;
    op.phase = Phase::kBackwardWeight;
    op.precision = Precision::kFp32;
    op.dtype = DType::kF32;
    grad_cast_numbers(op, n, from);
    const double read = op.bytes_read;
    const OpId id = out_.graph.size();
    return add(std::move(op), {{rec.weight_grad[w], read, BytesSource::read(id)}});
  }

  // Adds this micro-batch's weight gradients into the running sums (the first micro-batch's
  // gradients are the sums).
  void accumulate(std::vector<WeightGrad>& sums) {
    std::size_t j = 0;
    for (const auto& rec : records_)
      for (std::size_t w = 0; w < rec.weights.size(); ++w, ++j) {
        const double n = static_cast<double>(rec.weights[w].elements);
        // A layer the loss does not reach (a dead branch) has no backward pass and its weights
        // no gradient: nothing to sum, and the optimizer skips them (kNoOp), as PyTorch skips a
        // parameter whose grad is None.
        const OpId grad = w < rec.weight_grad.size() ? rec.weight_grad[w] : kNoOp;
        if (micro_ == 0) {
          // (Data parallel without accumulation: the backward pass made the sums already.)
          if (sums.size() == j) sums.push_back({rec.layer->name, rec.weights[w].name, n, grad});
          continue;
        }
        if (grad == kNoOp) continue;
        WeightGrad& sum = sums.at(j);
        Operator op;
        op.name = fmt::format("{}.{}.grad_accumulate", sum.layer, sum.name);
        op.layer = sum.layer;
        op.kind = "grad_accumulate";
        op.op_class = OpClass::kElementwise;
        op.phase = Phase::kBackwardWeight;
        op.precision = Precision::kFp32;
        op.dtype = DType::kF32;
        grad_accumulate_numbers(op, rec.weights[w].elements);
        const BytesSource bytes = BytesSource::weight_f32(j);
        sum.grad =
            add(std::move(op), {{sum.grad, kF32Bytes * n, bytes}, {grad, kF32Bytes * n, bytes}});
        step(LoweringPlan::Step::Kind::kAccumulate, j, sum.grad);
        if (ddp_ && micro_ == options_.accumulation_steps - 1) {
          gradient_ready(j, sum);
          launch_buckets(sums, false);
        }
      }
  }

  // Data parallelism (lower.h): the buckets of this step's weights, none complete yet.
  void begin_buckets(std::vector<WeightGrad>& sums) {
    std::vector<std::int64_t> elements;
    for (const auto& rec : records_)
      for (const Weight& w : rec.weights) {
        elements.push_back(w.elements);
        if (micro_ == 0)  // the backward pass completes each sum (no accumulation)
          sums.push_back({rec.layer->name, w.name, static_cast<double>(w.elements), kNoOp});
      }
    const auto buckets = gradient_buckets(elements, options_.data_parallel);
    bucket_of_.assign(elements.size(), 0);
    waiting_.clear();
    bucket_deps_.assign(buckets.size(), {});
    next_bucket_ = 0;
    out_.buckets.clear();
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      GradientBucket& bucket = out_.buckets.emplace_back();
      bucket.weights = buckets[b];
      for (const std::size_t j : buckets[b]) {
        bucket_of_[j] = b;
        bucket.bytes += kF32Bytes * static_cast<double>(elements[j]);
      }
      waiting_.push_back(buckets[b].size());
    }
  }

  // Weight j's gradient sum is final (`sum.grad`; kNoOp: it has none, a dead branch).
  void gradient_ready(std::size_t j, const WeightGrad& sum) {
    const std::size_t b = bucket_of_.at(j);
    if (sum.grad != kNoOp)
      bucket_deps_[b].push_back({sum.grad, kF32Bytes * sum.elements, BytesSource::weight_f32(j)});
    --waiting_[b];
  }

  // Emits the exchange of each complete bucket: in order, stopping at the first incomplete one,
  // for DDP's buckets (DDP launches them in order); every complete one for one-weight buckets;
  // `all`: the backward pass is over, so every bucket left goes (its weights without a gradient
  // count as ready). The weights' sums then read the exchanged gradient.
  void launch_buckets(std::vector<WeightGrad>& sums, bool all) {
    const GradientExchange exchange = options_.data_parallel.exchange;
    const bool in_order = exchange == GradientExchange::kBucketedAllReduce;
    for (std::size_t b = next_bucket_; b < out_.buckets.size(); ++b) {
      GradientBucket& bucket = out_.buckets[b];
      if (bucket.op != kNoOp) continue;
      if (!all && waiting_[b] > 0) {
        if (in_order) return;
        continue;
      }
      if (b == next_bucket_) ++next_bucket_;  // the first bucket not yet launched moves on
      Operator op;
      const bool ps = exchange == GradientExchange::kParameterServer;
      const std::string_view kind = ps ? kParameterServerKind : kAllReduceKind;
      if (in_order) {
        op.name = fmt::format("ddp.bucket{}.{}", b, kind);
        op.layer = "ddp";
      } else {
        const WeightGrad& w = sums[bucket.weights.front()];
        op.name = fmt::format("{}.{}.{}", w.layer, w.name, kind);
        op.layer = "variables";
      }
      op.kind = std::string(kind);
      op.op_class = OpClass::kCommunication;
      op.phase = Phase::kBackwardWeight;
      op.precision = Precision::kFp32;
      op.dtype = DType::kF32;
      all_reduce_numbers(op, bucket.bytes / kF32Bytes);
      const int micro = micro_;
      micro_ = 0;  // named without a micro-batch prefix
      bucket.op = add(std::move(op), bucket_deps_[b]);
      micro_ = micro;
      step(LoweringPlan::Step::Kind::kAllReduce, b, bucket.op);
      for (const std::size_t j : bucket.weights)
        if (sums[j].grad != kNoOp) sums[j].grad = bucket.op;
    }
  }

  Operator update_op(std::string name, const std::string& layer, double elements) const {
    Operator op;
    op.name = std::move(name);
    op.layer = layer;
    op.kind = std::string(optimizer_name(net_.optimizer));
    op.op_class = OpClass::kOptimizer;
    op.phase = Phase::kUpdate;
    op.precision = Precision::kFp32;
    update_numbers(op, net_.optimizer, elements);
    return op;
  }

  void optimizer(const std::vector<WeightGrad>& sums) {
    micro_ = 0;  // update ops carry no micro-batch prefix
    if (options_.fused_optimizer) {
      Deps deps;
      for (std::size_t j = 0; j < sums.size(); ++j)
        if (sums[j].grad != kNoOp)
          deps.push_back({sums[j].grad, kF32Bytes * sums[j].elements, BytesSource::weight_f32(j)});
      if (!deps.empty()) {
        const OpId id = add(
            update_op("optimizer.update", "optimizer", static_cast<double>(out_.parameters)), deps);
        step(LoweringPlan::Step::Kind::kUpdate, LoweringPlan::kAllWeights, id);
      }
      return;
    }
    for (std::size_t j = 0; j < sums.size(); ++j) {
      const WeightGrad& s = sums[j];
      if (s.grad == kNoOp) continue;
      const OpId id = add(update_op(s.layer + "." + s.name + ".update", s.layer, s.elements),
                          {{s.grad, kF32Bytes * s.elements, BytesSource::weight_f32(j)}});
      step(LoweringPlan::Step::Kind::kUpdate, j, id);
    }
  }

  const BoundNetwork& net_;
  const LoweringOptions& options_;
  const bool training_;
  LoweredNetwork out_;
  std::deque<TensorState> tensors_;
  std::unordered_map<std::string_view, std::size_t> tensor_index_;  // name -> position
  std::vector<LayerRecord> records_;
  std::vector<TensorInfo> backward_inputs_, backward_outputs_;  // the record's, per backward
  // Cast layers inserted by autocast, kept for every micro-batch (stable addresses; the plan
  // refers to them).
  std::deque<Layer> synthesized_;
  std::string previous_;
  std::vector<std::pair<std::size_t, SharedWeight>> ties_;  // record, the weight it shares
  std::map<std::string, std::string> overwritten_;          // tensor -> the in-place layer that did
  int micro_ = 0;
  LoweringPlan* plan_ = nullptr;  // recorded when given
  // Data parallelism: the bucket of each weight, the weights each bucket still waits for,
  // its gradients, and the next bucket to launch.
  std::size_t micro_weights_ = 0;  // weights of the micro-batch's layers so far
  bool ddp_ = false;
  std::vector<std::size_t> bucket_of_;
  std::vector<std::size_t> waiting_;
  std::vector<Deps> bucket_deps_;
  std::size_t next_bucket_ = 0;
  std::size_t slot_count_ = 0;
};

std::atomic<std::int64_t> g_max_ops{kDefaultMaxOps};

}  // namespace

std::int64_t max_ops() { return g_max_ops.load(std::memory_order_relaxed); }
void set_max_ops(std::int64_t n) { g_max_ops.store(n, std::memory_order_relaxed); }

void check_numbers(const OpGraph& graph) {
  for (OpId id = 0; id < graph.size(); ++id) {
    const Operator& op = graph.op(id);
    for (const auto& [what, v] :
         {std::pair{"FLOPs", op.flops}, std::pair{"bytes read", op.bytes_read},
          std::pair{"bytes written", op.bytes_written}})
      if (!std::isfinite(v) || v < 0)
        throw UserError(fmt::format(
            "op '{}' (layer '{}'): {} {:g}: a count overflowed (are the sizes too large?)", op.name,
            op.layer, what, v));
  }
}

LoweredNetwork lower(const BoundNetwork& network, const LoweringOptions& options) {
  LoweredNetwork out = Lowerer(network, options, nullptr).run();
  check_numbers(out.graph);
  return out;
}

LoweredNetwork lower(const BoundNetwork& network, const LoweringOptions& options,
                     std::shared_ptr<const LoweringPlan>& plan) {
  auto recorded = std::make_shared<LoweringPlan>();
  LoweredNetwork out = Lowerer(network, options, recorded.get()).run();
  check_numbers(out.graph);
  plan = std::move(recorded);
  return out;
}

}  // namespace amdahl::graphs
