// ONNX Einsum, any equation the standard allows: explicit ("bij,bjk->bik") or implicit output
// (the letters that appear once, in alphabetical order, after the ellipsis dims), "..." for
// broadcast dims, one or more inputs. Lowered onto the registry's kinds as torch.einsum runs
// it:
//   - a letter repeated within one input (a diagonal, "ii->i") gathers the diagonal's
//     elements (a copy of them; reshape views around it);
//   - a letter in one input only and not in the output is summed there first (reduce_sum);
//   - two inputs are one batched matrix product: batch letters (in both and kept), contracted
//     letters (in both, not kept: K), free letters of A (M) and of B (N), so a matmul of
//     [batch..., M, K] x [batch..., K, N] with FLOPs 2 * batch * M * N * K. A layout that is
//     not [batch, M, K] or [batch, K, M] (matmul's transpose flags) is permuted first by a
//     transpose (a copy), as torch's permute + reshape copies; the operand order that needs
//     the fewest is chosen. No contracted letter: a broadcast multiply (mul). A constant
//     operand without batch letters (a weight) makes a linear layer of K x N parameters;
//   - more inputs contract pairwise from the left, keeping the letters later inputs or the
//     output need;
//   - the result is permuted to the output's order when it differs (transpose).

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {
namespace {

using Node = ::onnx::NodeProto;
using Labels = std::vector<int>;

// Label ids: letters in ASCII order (the implicit output's order: A-Z, then a-z), then the
// ellipsis dims from the outermost.
constexpr int kLetters = 52;

int letter_id(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : 26 + (c - 'a'); }

std::string label_name(int id) {
  if (id >= kLetters) return fmt::format("...[{}]", id - kLetters);
  return std::string(1, static_cast<char>(id < 26 ? 'A' + id : 'a' + (id - 26)));
}

bool has(const Labels& l, int id) { return std::find(l.begin(), l.end(), id) != l.end(); }

// A tensor in the lowering and the label of each of its dims.
struct Operand {
  std::string name;
  Value value;
  Labels labels;
  const Shape& shape() const { return value.info.shape; }
};

class EinsumLowering {
 public:
  EinsumLowering(ImportContext& ctx, const Node& node) : ctx_(ctx), node_(node) {
    for (char c : ctx.attr_string(node, "equation", ""))
      if (c != ' ') equation_.push_back(c);
  }

  void run() {
    std::vector<Operand> ops = parse();
    bool all_constant = true, trainable = false;
    for (const Operand& op : ops) {
      all_constant = all_constant && op.value.is_constant();
      trainable = trainable || op.value.trainable;
    }
    if (all_constant) {
      Value v;
      v.info = TensorInfo{shape_of(output_), ops.front().value.info.dtype};
      v.trainable = trainable;
      ctx_.count(node_, v.info.shape);
      ctx_.define(node_.output(0), std::move(v));
      return;
    }
    for (Operand& op : ops) op = diagonal(op);
    Operand acc = ops.front();
    if (ops.size() == 1) acc = sum_unused(acc, output_);
    for (std::size_t k = 1; k < ops.size(); ++k) {
      Labels keep = output_;
      for (std::size_t j = k + 1; j < ops.size(); ++j)
        keep.insert(keep.end(), ops[j].labels.begin(), ops[j].labels.end());
      acc = combine(acc, ops[k], keep, k + 1 == ops.size());
    }
    acc = permute(acc, output_, "output");
    ctx_.define(node_.output(0), acc.value);
  }

 private:
  [[noreturn]] void error(const std::string& why) const {
    ctx_.fail(node_, fmt::format("equation '{}': {}", equation_, why));
  }

  // One term's letters, -1 where its ellipsis sits.
  Labels parse_term(const std::string& t) const {
    Labels out;
    bool ellipsis = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const char c = t[i];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        out.push_back(letter_id(c));
      } else if (c == '.' && t.compare(i, 3, "...") == 0 && !ellipsis) {
        ellipsis = true;
        out.push_back(-1);
        i += 2;
      } else {
        error(fmt::format(
            "term '{}' has {}; a term is letters and at most one '...'", t,
            c == '.' ? std::string("a '.' outside one '...'") : fmt::format("'{}'", c)));
      }
    }
    return out;
  }

  // The operands, their labels with the ellipsis expanded, each label's size, and the output.
  std::vector<Operand> parse() {
    const auto arrow = equation_.find("->");
    const std::string lhs = equation_.substr(0, arrow);
    std::vector<std::string> terms{""};
    for (char c : lhs) {
      if (c == ',')
        terms.emplace_back();
      else
        terms.back().push_back(c);
    }
    if (static_cast<int>(terms.size()) != node_.input_size())
      error(fmt::format("{} terms for {} inputs", terms.size(), node_.input_size()));
    std::vector<Labels> parsed;
    std::vector<int> ellipsis_rank;
    int rank_e = 0;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      parsed.push_back(parse_term(terms[i]));
      const auto rank = static_cast<int>(ctx_.input(node_, static_cast<int>(i)).info.shape.size());
      const bool e = has(parsed.back(), -1);
      const int letters = static_cast<int>(parsed.back().size()) - (e ? 1 : 0);
      if (e ? rank < letters : rank != letters)
        error(fmt::format("input {} has rank {}; its term '{}' names {} dims", i, rank, terms[i],
                          letters));
      ellipsis_rank.push_back(rank - letters);
      rank_e = std::max(rank_e, rank - letters);
    }
    std::vector<Operand> ops;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      Operand op{node_.input(static_cast<int>(i)), ctx_.input(node_, static_cast<int>(i)), {}};
      for (int id : parsed[i])
        if (id >= 0)
          op.labels.push_back(id);
        else
          for (int j = rank_e - ellipsis_rank[i]; j < rank_e; ++j)
            op.labels.push_back(kLetters + j);
      for (std::size_t d = 0; d < op.labels.size(); ++d) {
        const int l = op.labels[d];
        const std::int64_t n = op.shape()[d];
        auto [it, fresh] = size_.emplace(l, n);
        if (fresh || it->second == n || n == 1) continue;
        if (it->second != 1)
          error(fmt::format("'{}' is {} in one place and {} in input {} (sizes must agree or be 1)",
                            label_name(l), it->second, n, i));
        it->second = n;
      }
      ops.push_back(std::move(op));
    }
    if (arrow == std::string::npos) {
      // Implicit: the ellipsis dims, then the letters that appear once, alphabetically.
      for (int j = 0; j < rank_e; ++j) output_.push_back(kLetters + j);
      std::map<int, int> seen;
      for (const Labels& t : parsed)
        for (int id : t)
          if (id >= 0) ++seen[id];
      for (const auto& [id, n] : seen)
        if (n == 1) output_.push_back(id);
    } else {
      const std::string out = equation_.substr(arrow + 2);
      for (int id : parse_term(out)) {
        if (id < 0) {
          for (int j = 0; j < rank_e; ++j) output_.push_back(kLetters + j);
          continue;
        }
        if (!size_.count(id))
          error(fmt::format("'{}' of the output is in no input", label_name(id)));
        if (has(output_, id)) error(fmt::format("'{}' repeats in the output", label_name(id)));
        output_.push_back(id);
      }
    }
    return ops;
  }

  Shape shape_of(const Labels& labels) const {
    Shape s;
    for (int l : labels) s.push_back(size_.at(l));
    return s;
  }

  Operand emit(const char* kind, Params p, const Operand& in, Labels labels, const char* suffix) {
    const std::string name = ctx_.temp(node_, suffix);
    std::vector<Value> out = ctx_.emit(node_, kind, std::move(p), {in.name}, {name}, suffix);
    return Operand{name, out.front(), std::move(labels)};
  }

  Operand reshape(const Operand& in, const Shape& shape, Labels labels, const char* suffix) {
    if (shape == in.shape()) return Operand{in.name, in.value, std::move(labels)};
    return emit("reshape", {{"shape", shape}}, in, std::move(labels), suffix);
  }

  Operand permute(const Operand& in, const Labels& order, const char* suffix) {
    if (in.labels == order) return in;
    IntList perm;
    for (int l : order)
      perm.push_back(std::find(in.labels.begin(), in.labels.end(), l) - in.labels.begin());
    return emit("transpose", {{"perm", perm}}, in, order, suffix);
  }

  // A letter repeated within the operand: its diagonal, gathered from a flat view.
  Operand diagonal(const Operand& in) {
    Labels unique;
    for (std::size_t d = 0; d < in.labels.size(); ++d) {
      const int l = in.labels[d];
      const auto first = std::find(in.labels.begin(), in.labels.end(), l) - in.labels.begin();
      if (static_cast<std::size_t>(first) == d) {
        unique.push_back(l);
      } else if (in.shape()[d] != in.shape()[static_cast<std::size_t>(first)]) {
        error(
            fmt::format("'{}' repeats in one input with sizes {} and {} (a diagonal needs "
                        "equal sizes)",
                        label_name(l), in.shape()[static_cast<std::size_t>(first)], in.shape()[d]));
      }
    }
    if (unique.size() == in.labels.size()) return in;
    Shape diag;
    for (int l : unique)
      diag.push_back(in.shape()[static_cast<std::size_t>(
          std::find(in.labels.begin(), in.labels.end(), l) - in.labels.begin())]);
    const Operand flat = reshape(in, {in.value.info.elements()}, {}, "diagonal_view");
    const Operand picked =
        emit("gather", {{"axis", std::int64_t{0}}, {"indices_shape", Shape{elements(diag)}}}, flat,
             {}, "diagonal");
    return reshape(picked, diag, unique, "diagonal_shape");
  }

  // Sums the labels of `in` that are not in `keep`.
  Operand sum_unused(const Operand& in, const Labels& keep) {
    IntList axes;
    Labels rest;
    for (std::size_t d = 0; d < in.labels.size(); ++d)
      if (has(keep, in.labels[d]))
        rest.push_back(in.labels[d]);
      else
        axes.push_back(static_cast<std::int64_t>(d));
    if (axes.empty()) return in;
    return emit("reduce_sum", {{"axes", axes}, {"keepdims", false}}, in, rest, "sum");
  }

  // Drops dims of `in` whose labels are in `drop` (each of size 1): a view.
  Operand squeeze(const Operand& in, const Labels& drop) {
    Labels rest;
    Shape s;
    for (std::size_t d = 0; d < in.labels.size(); ++d)
      if (!has(drop, in.labels[d])) {
        rest.push_back(in.labels[d]);
        s.push_back(in.shape()[d]);
      }
    if (rest.size() == in.labels.size()) return in;
    return reshape(in, s, rest, "squeeze");
  }

  static Labels concat(std::initializer_list<const Labels*> parts) {
    Labels out;
    for (const Labels* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  }
  static Labels in_order(const Labels& of, const std::function<bool(int)>& pick) {
    Labels out;
    for (int l : of)
      if (pick(l)) out.push_back(l);
    return out;
  }

  std::int64_t product(const Operand& op, const Labels& labels) const {
    Shape s;
    for (int l : labels)
      s.push_back(op.shape()[static_cast<std::size_t>(
          std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin())]);
    return ctx_.count(node_, s);
  }
  Shape dims(const Operand& op, const Labels& labels) const {
    Shape s;
    for (int l : labels)
      s.push_back(op.shape()[static_cast<std::size_t>(
          std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin())]);
    return s;
  }

  // The product of two operands keeping the labels of `keep`.
  Operand combine(Operand a, Operand b, const Labels& keep, bool last) {
    // A contracted letter of size 1 on one side broadcasts: it is summed on the other side.
    Labels drop_a, drop_b;
    for (std::size_t d = 0; d < a.labels.size(); ++d) {
      const int l = a.labels[d];
      if (has(keep, l) || !has(b.labels, l)) continue;
      if (a.shape()[d] == 1) drop_a.push_back(l);
      if (dims(b, {l}).front() == 1) drop_b.push_back(l);
    }
    a = squeeze(a, drop_a);
    b = squeeze(b, drop_b);
    const Labels keep_a = concat({&keep, &b.labels}), keep_b = concat({&keep, &a.labels});
    a = sum_unused(a, keep_a);
    b = sum_unused(b, keep_b);
    // The operand order whose layouts need the fewest copies (the last product also counts the
    // permutation to the output).
    const Plan ab = plan(a, b, keep, last), ba = plan(b, a, keep, last);
    return ba.copies < ab.copies ? multiply(b, a, ba) : multiply(a, b, ab);
  }

  struct Plan {
    Labels batch, contracted, free_a, free_b;
    bool trans_a = false, trans_b = false, copy_a = false, copy_b = false;
    int copies = 0;
  };

  Plan plan(const Operand& a, const Operand& b, const Labels& keep, bool last) const {
    Plan best;
    best.copies = 1 << 20;
    const auto in_b = [&](int l) { return has(b.labels, l); };
    const auto in_a = [&](int l) { return has(a.labels, l); };
    const Labels free_a = in_order(a.labels, [&](int l) { return !in_b(l); });
    const Labels free_b = in_order(b.labels, [&](int l) { return !in_a(l); });
    for (const Operand* from : {&a, &b}) {
      Plan p;
      p.batch = in_order(from->labels, [&](int l) { return in_a(l) && in_b(l) && has(keep, l); });
      p.contracted =
          in_order(from->labels, [&](int l) { return in_a(l) && in_b(l) && !has(keep, l); });
      p.free_a = free_a;
      p.free_b = free_b;
      if (p.contracted.empty()) {
        p.copy_a = a.labels != concat({&p.batch, &p.free_a});
        p.copy_b = b.labels != concat({&p.batch, &p.free_b});
      } else if (a.value.is_constant() || b.value.is_constant()) {
        const Operand& x = a.value.is_constant() ? b : a;
        const Labels& fx = a.value.is_constant() ? p.free_b : p.free_a;
        const bool copy = x.labels != concat({&fx, &p.contracted});
        (a.value.is_constant() ? p.copy_b : p.copy_a) = copy;
      } else {
        p.trans_a = a.labels == concat({&p.batch, &p.contracted, &p.free_a});
        p.copy_a = !p.trans_a && a.labels != concat({&p.batch, &p.free_a, &p.contracted});
        p.trans_b = b.labels == concat({&p.batch, &p.free_b, &p.contracted});
        p.copy_b = !p.trans_b && b.labels != concat({&p.batch, &p.contracted, &p.free_b});
      }
      p.copies = (p.copy_a ? 1 : 0) + (p.copy_b ? 1 : 0);
      if (last && result_labels(p, a.value.is_constant()) != output_) ++p.copies;
      if (p.copies < best.copies) best = p;
    }
    return best;
  }

  // A weight product puts the runtime operand's free letters first.
  static Labels result_labels(const Plan& p, bool a_constant) {
    if (!p.contracted.empty() && a_constant) return concat({&p.free_b, &p.free_a});
    return concat({&p.batch, &p.free_a, &p.free_b});
  }

  Operand multiply(Operand a, Operand b, const Plan& p) {
    if (p.contracted.empty()) return broadcast_product(a, b, p);
    if (a.value.is_constant() || b.value.is_constant()) return weight_product(a, b, p);
    if (p.copy_a) a = permute(a, concat({&p.batch, &p.free_a, &p.contracted}), "transpose_a");
    if (p.copy_b) b = permute(b, concat({&p.batch, &p.contracted, &p.free_b}), "transpose_b");
    const std::int64_t m = product(a, p.free_a), n = product(b, p.free_b);
    const std::int64_t k = product(a, p.contracted);
    Shape sa = dims(a, p.batch), sb = dims(b, p.batch), out;
    for (std::size_t i = 0; i < sa.size(); ++i) out.push_back(std::max(sa[i], sb[i]));
    for (const Shape& part : {dims(a, p.free_a), dims(b, p.free_b)})
      out.insert(out.end(), part.begin(), part.end());
    sa.insert(sa.end(), {p.trans_a ? k : m, p.trans_a ? m : k});
    sb.insert(sb.end(), {p.trans_b ? n : k, p.trans_b ? k : n});
    a = reshape(a, sa, {}, "matrix_a");
    b = reshape(b, sb, {}, "matrix_b");
    const std::string name = ctx_.temp(node_, "product");
    const std::vector<Value> product_value =
        ctx_.emit(node_, "matmul", {{"transpose_a", p.trans_a}, {"transpose_b", p.trans_b}},
                  {a.name, b.name}, {name}, "matmul");
    return reshape(Operand{name, product_value.front(), {}}, out, result_labels(p, false),
                   "result");
  }

  // A runtime operand times a constant one without batch letters: a linear layer (the
  // constant its K x N weight) over the runtime operand's contracted dims.
  Operand weight_product(Operand a, Operand b, const Plan& p) {
    const bool a_weight = a.value.is_constant();
    Operand x = a_weight ? b : a;
    const Operand& w = a_weight ? a : b;
    const Labels& fx = a_weight ? p.free_b : p.free_a;
    const Labels& fw = a_weight ? p.free_a : p.free_b;
    if (!p.batch.empty())
      error(
          fmt::format("the constant operand '{}' has the batch letters {} (in both operands "
                      "and kept); a constant is supported as a weight, without batch letters",
                      w.name, [&] {
                        std::string s;
                        for (int l : p.batch) s += label_name(l);
                        return s;
                      }()));
    if (a_weight ? p.copy_b : p.copy_a) x = permute(x, concat({&fx, &p.contracted}), "transpose_x");
    Shape out = dims(x, fx);
    const Shape fw_dims = dims(w, fw);
    out.insert(out.end(), fw_dims.begin(), fw_dims.end());
    Shape s = dims(x, fx);
    s.push_back(product(x, p.contracted));
    x = reshape(x, s, {}, "rows");
    const std::int64_t n = product(w, fw);
    const std::string name = ctx_.temp(node_, "linear");
    const std::vector<Value> y = ctx_.emit(node_, "linear", {{"out_features", n}, {"bias", false}},
                                           {x.name}, {name}, "linear");
    return reshape(Operand{name, y.front(), {}}, out, concat({&fx, &fw}), "result");
  }

  // No contracted letter: the broadcast product [batch, M, 1...] * [batch, 1..., N] (mul).
  Operand broadcast_product(Operand a, Operand b, const Plan& p) {
    if (p.copy_a) a = permute(a, concat({&p.batch, &p.free_a}), "transpose_a");
    if (p.copy_b) b = permute(b, concat({&p.batch, &p.free_b}), "transpose_b");
    Shape sa = dims(a, concat({&p.batch, &p.free_a})), sb = dims(b, p.batch);
    for (std::size_t i = 0; i < p.free_b.size(); ++i) sa.push_back(1);
    for (std::size_t i = 0; i < p.free_a.size(); ++i) sb.push_back(1);
    const Shape fb = dims(b, p.free_b);
    sb.insert(sb.end(), fb.begin(), fb.end());
    a = reshape(a, sa, {}, "broadcast_a");
    b = reshape(b, sb, {}, "broadcast_b");
    const std::string name = ctx_.temp(node_, "product");
    Params params;
    std::vector<std::string> inputs{a.name, b.name};
    if (a.value.is_constant() || b.value.is_constant()) {
      const Operand& c = a.value.is_constant() ? a : b;
      params = {{"constant_shape", c.shape()},
                {"constant_first", a.value.is_constant()},
                {"trainable", c.value.trainable}};
      inputs = {a.value.is_constant() ? b.name : a.name};
    }
    const std::vector<Value> out =
        ctx_.emit(node_, "mul", std::move(params), inputs, {name}, "mul");
    return Operand{name, out.front(), concat({&p.batch, &p.free_a, &p.free_b})};
  }

  ImportContext& ctx_;
  const Node& node_;
  std::string equation_;
  std::map<int, std::int64_t> size_;
  Labels output_;
};

}  // namespace

void add_einsum_rules(OnnxRuleTable& t) {
  t["Einsum"] = [](ImportContext& ctx, const Node& node) { EinsumLowering(ctx, node).run(); };
}

}  // namespace amdahl::graphs::onnx
