#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/json_text.h"
#include "cli/output_files.h"
#include "cli/workload.h"
#include "util/output_encoding.h"

namespace amdahl::cli {
namespace {

void print_dot(std::ostream& out, const graphs::LoweredNetwork& net) {
  const auto& g = net.graph;
  out << fmt::format(
      "digraph {} {{\n  rankdir=TB;\n  // cheap layout settings: large training graphs render "
      "in seconds\n  splines=false; nslimit=1; nslimit1=1; mclimit=0.1; remincross=false; "
      "searchsize=10;\n  node [shape=box, fontsize=10];\n",
      dot_string(net.name));
  for (graphs::OpId id = 0; id < g.size(); ++id) {
    const auto& op = g.op(id);
    // The name a quoted ID of its own (dot_string), joined to the rest with DOT's '+'.
    out << fmt::format("  n{} [label={} + \"\\n{} {}\\n{:.3g} GFLOP\"];\n", id, dot_string(op.name),
                       op_class_name(op.op_class), phase_name(op.phase), op.flops / 1e9);
  }
  for (graphs::OpId id = 0; id < g.size(); ++id)
    for (graphs::OpId s : g.successors(id)) out << fmt::format("  n{} -> n{};\n", id, s);
  out << "}\n";
}

nlohmann::json graph_json(const graphs::LoweredNetwork& net) {
  const auto& g = net.graph;
  nlohmann::json ops = nlohmann::json::array();
  for (graphs::OpId id = 0; id < g.size(); ++id) {
    const auto& op = g.op(id);
    ops.push_back({{"id", id},
                   {"name", op.name},
                   {"layer", op.layer},
                   {"kind", op.kind},
                   {"class", op_class_name(op.op_class)},
                   {"phase", phase_name(op.phase)},
                   {"precision", precision_name(op.precision)},
                   {"dtype", graphs::dtype_name(op.dtype)},
                   {"output_shape", op.output_shape},
                   {"flops", op.flops},
                   {"bytes_read", op.bytes_read},
                   {"bytes_written", op.bytes_written},
                   {"inputs", g.predecessors(id)}});
  }
  return {{"network", net.name}, {"parameters", net.parameters}, {"ops", ops}};
}

}  // namespace

void register_graph(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  o->format = "dot";
  CLI::App* cmd = app.add_subcommand("graph", "print the lowered operator DAG");
  add_workload_options(cmd, *o, false, {"dot", "json"});
  cmd->callback([o] {
    OutputDir out(o->out_dir, o->force);
    const graphs::BoundNetwork bound = load_bound_network(*o, size_overrides(*o));
    // No system: the optimizer is lowered per tensor.
    const graphs::LoweredNetwork net = graphs::lower(bound, lowering_options(*o, hw::SystemSpec{}));
    if (o->format == "json")
      std::cout << json_text(graph_json(net), 1) << '\n';
    else
      print_dot(std::cout, net);
    if (out) {
      std::ostringstream dot;
      print_dot(dot, net);
      out.add("graph.dot", dot.str());
      out.add("graph.json", json_text(graph_json(net), 1) + "\n");
      out.commit();
    }
  });
}

}  // namespace amdahl::cli
