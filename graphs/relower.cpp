#include <utility>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/lowering_plan.h"

namespace amdahl::graphs {
namespace {

// A layer application's tensors and weights at the point, kept from its forward rules for its
// backward rules.
struct Scratch {
  std::vector<TensorInfo> inputs, outputs;
  std::vector<Weight> weights;
};

// Scratch kept per thread between calls: a sweep re-evaluates one plan point after point, and
// the tensors' shape vectors keep their capacity. Every slot and record is written before it
// is read within one pass.
struct Workspace {
  std::vector<TensorInfo> slots;
  std::vector<Scratch> records;
  std::vector<Operator> spare;  // replaced ops, whose shape storage the rules' ops reuse
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}

// The numeric pass: the plan's steps again, each layer's rules re-run on the re-bound layer
// (names skipped), their numbers written over the ops the structural pass made.
class Relowerer {
 public:
  Relowerer(const LoweringPlan& plan, const BoundNetwork& net, LoweredNetwork& out)
      : plan_(plan),
        net_(net),
        out_(out),
        graph_(out.graph),
        slots_(workspace().slots),
        records_(workspace().records),
        spare_(workspace().spare) {}

  bool run() {
    if (net_.layers.size() != plan_.layer_count || net_.inputs.size() != plan_.input_count)
      return false;
    slots_.resize(plan_.slot_count);
    records_.resize(plan_.records.size());
    out_.input_bytes = 0;
    out_.parameters = 0;
    buckets_checked_ = false;
    using Kind = LoweringPlan::Step::Kind;
    for (const LoweringPlan::Step& s : plan_.steps) {
      bool ok = true;
      switch (s.kind) {
        case Kind::kInput: {
          const TensorInfo& t = net_.inputs[s.index].tensor;
          if (graph_.op(s.op).dtype != t.dtype) return false;
          transfer_numbers(graph_.op(s.op), t);
          out_.input_bytes += t.bytes();
          slots_[static_cast<std::size_t>(s.count)] = t;
          break;
        }
        case Kind::kForward:
          ok = forward(s.index);
          break;
        case Kind::kGradSum:
          grad_sum_numbers(graph_.op(s.op), slots_[s.index], s.count);
          break;
        case Kind::kBackward:
          ok = backward(s.index);
          break;
        case Kind::kAccumulate:
          grad_accumulate_numbers(graph_.op(s.op), out_.weights[s.index].elements);
          break;
        case Kind::kAllReduce:
          ok = all_reduce(s.index, s.op);
          break;
        case Kind::kUpdate:
          update_numbers(graph_.op(s.op), net_.optimizer,
                         s.index == LoweringPlan::kAllWeights
                             ? static_cast<double>(out_.parameters)
                             : static_cast<double>(out_.weights[s.index].elements));
          break;
      }
      if (!ok) return false;
    }
    for (const LoweringPlan::Tie& t : plan_.ties) {
      const LoweringPlan::Record& r = plan_.records[t.record];
      const auto shared = r.kind->shared_weight(layer_of(r), records_[t.record].inputs);
      if (!shared || shared_weight_index(layer_of(r), *shared, layer_of(plan_.records[t.owner]),
                                         records_[t.owner].weights) != t.weight)
        return false;
    }
    for (const LoweringPlan::Edge& e : plan_.edges)
      graph_.edge_bytes(e.from, e.to) = bytes_of(e.source);
    out_.memory = memory_footprint(out_);
    return true;
  }

 private:
  double bytes_of(const BytesSource& s) const {
    switch (s.kind) {
      case BytesSource::Kind::kTensor:
        return slots_[s.index].bytes();
      case BytesSource::Kind::kOpWritten:
        return graph_.op(s.index).bytes_written;
      case BytesSource::Kind::kOpRead:
        return graph_.op(s.index).bytes_read;
      case BytesSource::Kind::kWeightF32:
        return kF32Bytes * static_cast<double>(out_.weights[s.index].elements);
      case BytesSource::Kind::kZero:
        return 0;
    }
    return 0;
  }

  // Bucket b's exchange; false when the weights' sizes at this point fill the buckets
  // differently (the structure changed). The buckets are checked at the step's first exchange
  // (one-weight buckets launch in the order their gradients complete, not bucket 0 first).
  bool all_reduce(std::size_t b, OpId op) {
    if (!buckets_checked_) {
      buckets_checked_ = true;
      std::vector<std::int64_t> elements;
      for (const WeightTensor& w : out_.weights) elements.push_back(w.elements);
      const auto buckets = gradient_buckets(elements, plan_.options.data_parallel);
      if (buckets.size() != out_.buckets.size()) return false;
      for (std::size_t i = 0; i < buckets.size(); ++i) {
        if (buckets[i] != out_.buckets[i].weights) return false;
        out_.buckets[i].bytes = 0;
        for (const std::size_t j : buckets[i])
          out_.buckets[i].bytes += kF32Bytes * static_cast<double>(elements[j]);
      }
    }
    all_reduce_numbers(graph_.op(op), out_.buckets.at(b).bytes / kF32Bytes);
    return true;
  }

  // Writes the numbers and shapes of `fresh` over `op`, whose shape storage goes to the
  // spares; false when `fresh` is another kind of op (the structure changed). The op keeps its
  // names and precision.
  bool take_numbers(Operator& op, Operator&& fresh) {
    if (fresh.op_class != op.op_class || fresh.phase != op.phase || fresh.dtype != op.dtype ||
        fresh.in_place != op.in_place)
      return false;
    const Precision precision = op.precision;
    static_cast<OpNumbers&>(op) = fresh;
    op.precision = precision;
    op.input_elements = fresh.input_elements;
    op.output_shape.swap(fresh.output_shape);
    spare_.push_back(std::move(fresh));
    return true;
  }

  const Layer& layer_of(const LoweringPlan::Record& r) const {
    return r.synthesized ? *r.synthesized : net_.layers[r.layer];
  }

  bool forward(std::size_t index) {
    const LoweringPlan::Record& r = plan_.records[index];
    const Layer& layer = layer_of(r);
    if (layer.kind != r.kind->name) return false;
    Scratch& sc = records_[index];
    sc.inputs.resize(r.input_slots.size());
    for (std::size_t i = 0; i < r.input_slots.size(); ++i) sc.inputs[i] = slots_[r.input_slots[i]];
    sc.outputs = r.kind->infer(layer, sc.inputs);
    if (sc.outputs.size() != r.output_slots.size()) return false;
    if (r.run_dtype)
      for (auto& t : sc.outputs)
        if (is_float(t.dtype)) t.dtype = *r.run_dtype;
    // A kind that counts its ops says before its rules run whether the point unrolls it
    // differently (lowering afresh then checks the limit before making any).
    if (r.kind->op_count && r.kind->op_count(layer, sc.inputs, r.needs).forward !=
                                static_cast<double>(r.forward_ops.size()))
      return false;
    if (r.kind->weights)
      sc.weights = r.kind->weights(layer, sc.inputs);
    else
      sc.weights.clear();
    if (sc.weights.size() != r.weight_count) return false;
    if (r.counts_weights)
      for (std::size_t w = 0; w < sc.weights.size(); ++w) {
        out_.weights[r.first_weight + w].elements = sc.weights[w].elements;
        out_.parameters = add_parameters(layer, out_.parameters, sc.weights[w].elements);
      }
    for (std::size_t w = 0; w < r.weight_casts.size(); ++w)
      weight_cast_numbers(graph_.op(r.weight_casts[w]), sc.weights[w].elements, *r.run_dtype);
    ForwardContext ctx(layer, sc.inputs, sc.outputs, plan_.options.precision,
                       plan_.options.mode == Mode::kTrain, plan_.options.conv_bias_kernel);
    ctx.skip_names();
    ctx.reuse_shapes_of(&spare_);
    ctx.emitted().reserve(r.forward_ops.size());
    r.kind->forward(ctx);
    if (ctx.emitted().size() != r.forward_ops.size()) return false;
    for (std::size_t i = 0; i < r.forward_ops.size(); ++i)
      if (!take_numbers(graph_.op(r.forward_ops[i]), std::move(ctx.emitted()[i]))) return false;
    for (std::size_t i = 0; i < sc.outputs.size(); ++i) slots_[r.output_slots[i]] = sc.outputs[i];
    return true;
  }

  bool backward(std::size_t index) {
    const LoweringPlan::Record& r = plan_.records[index];
    const Scratch& sc = records_[index];
    if (r.kind->op_count && r.kind->op_count(layer_of(r), sc.inputs, r.needs).backward !=
                                static_cast<double>(r.backward_ops.size()))
      return false;
    BackwardContext ctx(layer_of(r), sc.inputs, sc.outputs, r.needs, plan_.options.precision);
    ctx.skip_names();
    ctx.reuse_shapes_of(&spare_);
    ctx.emitted().reserve(r.backward_ops.size());
    r.kind->backward(ctx);
    auto& emitted = ctx.emitted();
    if (emitted.size() != r.backward_ops.size() || ctx.passed().size() != r.passed) return false;
    for (std::size_t i = 0; i < emitted.size(); ++i) {
      const auto& want = r.backward_ops[i];
      if (emitted[i].chained != want.chained || emitted[i].grad_of_input != want.grad_of_input ||
          emitted[i].grad_of_weight != want.grad_of_weight ||
          !take_numbers(graph_.op(want.id), std::move(emitted[i].op)))
        return false;
    }
    for (const auto& c : r.grad_casts)
      grad_cast_numbers(graph_.op(c.cast), sc.weights[c.weight].elements, graph_.op(c.grad).dtype);
    return true;
  }

  const LoweringPlan& plan_;
  const BoundNetwork& net_;
  LoweredNetwork& out_;
  OpGraph& graph_;
  bool buckets_checked_ = false;  // the step's buckets compared with the plan's
  std::vector<TensorInfo>& slots_;
  std::vector<Scratch>& records_;
  std::vector<Operator>& spare_;
};

}  // namespace

bool relower(const LoweringPlan& plan, const BoundNetwork& network, LoweredNetwork& net) {
  const bool done = Relowerer(plan, network, net).run();
  if (done) check_numbers(net.graph);
  return done;
}

}  // namespace amdahl::graphs
