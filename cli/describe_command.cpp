#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "hw/system_schema.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/table.h"

#ifdef AMDAHL_WITH_ONNX_IMPORT
#include "graphs/onnx/onnx_import.h"
#endif

namespace amdahl::cli {
namespace {

void describe_models(std::ostream& out) {
  Table t({"model", "sizes (defaults)", "parameters (train)", "fwd GFLOP", "description"});
  std::vector<std::string> notes;
  for (const auto& name : graphs::zoo_names()) {
    const graphs::Network net = graphs::load_zoo_network(name);
    std::string sizes;
    for (const auto& s : net.sizes)
      sizes += fmt::format("{}{}={}", sizes.empty() ? "" : " ", s.name,
                           s.has_default ? std::to_string(s.default_value) : "?");
    std::string params = "-", gflops = "-";
    try {
      const graphs::BoundNetwork bound = graphs::bind_sizes(net, {});
      const graphs::LoweredNetwork lowered = graphs::lower(bound, {.mode = graphs::Mode::kInfer});
      double flops = 0;
      for (graphs::OpId id = 0; id < lowered.graph.size(); ++id)
        flops += lowered.graph.op(id).flops;
      // Parameters of the training step: some live only in the loss (seq2seq's sampled
      // softmax projection), which inference does not lower.
      const double trained =
          static_cast<double>(graphs::lower(bound, {.mode = graphs::Mode::kTrain}).parameters);
      params = trained >= 1e5 ? fmt::format("{:.2f} M", trained / 1e6)
                              : fmt::format("{:.1f} K", trained / 1e3);
      gflops = fmt::format("{:.3f}", flops / 1e9);
    } catch (const UserError& e) {
      gflops = "error";
      notes.push_back(fmt::format("{}: {}", name, e.what()));
    }
    t.add({name, sizes, params, gflops, net.description});
    for (const auto& n : net.notes) notes.push_back(fmt::format("{}: {}", name, n));
  }
  t.print(out);
  out << "\nfwd GFLOP: one forward pass of the whole batch at the default sizes (1 FMA = 2 "
         "FLOP).\n";
  if (!notes.empty()) {
    out << "\nnotes:\n";
    for (const auto& n : notes) out << "  " << n << '\n';
  }
}

void describe_systems(std::ostream& out) {
  Table t({"system", "devices", "runtime", "uncalibrated", "description"});
  for (const auto& name : hw::catalog_system_names()) {
    const hw::SystemSpec s = hw::load_system(name);
    std::map<std::string, int> counts;
    for (const auto& d : s.devices) ++counts[d.model];
    std::string devices;
    for (const auto& [model, n] : counts)
      devices += fmt::format("{}{}x {}", devices.empty() ? "" : ", ", n, model);
    if (s.nodes > 1) devices = fmt::format("{} nodes x ({})", s.nodes, devices);
    t.add({name, devices, s.runtime.name, std::to_string(s.uncalibrated_parts().size()),
           s.description});
  }
  t.print(out);
  out << fmt::format("\ncatalog: {}\n", hw::catalog_dir());
}

void describe_hw(std::ostream& out) {
  out << "System file (hw/catalog/systems/*.yaml):\n"
      << hw::describe_schema(hw::system_schema(), 1);
  out << "\nDevice file (hw/catalog/devices/*.yaml):\n"
      << hw::describe_schema(hw::device_schema(), 1);
  out << "\nLink file (hw/catalog/links/*.yaml):\n" << hw::describe_schema(hw::link_schema(), 1);
  out << "\nUnits: bytes B kB MB GB TB (1000^n) KiB MiB GiB TiB (1024^n); bandwidth B/s with the "
         "same prefixes; FLOP/s with k M G T P; time s ms us ns; frequency Hz kHz MHz GHz.\n";
}

void describe_ops(std::ostream& out) {
  Table t({"kind", "class", "inputs", "parameters", "summary"});
  for (const auto& [name, kind] : graphs::layer_registry().kinds()) {
    std::string params;
    for (const auto& p : kind.params)
      params +=
          fmt::format("{}{}{}", params.empty() ? "" : " ", p.name,
                      p.required ? "" : "=" + (p.default_value.empty() ? "?" : p.default_value));
    const std::string inputs = kind.max_inputs < 0 ? fmt::format("{}+", kind.min_inputs)
                               : kind.min_inputs == kind.max_inputs
                                   ? std::to_string(kind.min_inputs)
                                   : fmt::format("{}-{}", kind.min_inputs, kind.max_inputs);
    t.add({name, std::string(op_class_name(kind.op_class)), inputs, params, kind.summary});
  }
  t.print(out);
#ifdef AMDAHL_WITH_ONNX_IMPORT
  out << fmt::format("\nONNX ops imported (--onnx FILE; each maps onto a kind above):\n  {}\n",
                     join(graphs::onnx::supported_onnx_ops()));
#endif
}

}  // namespace

void register_describe(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("describe", "list what is available: models, systems, ops, hw");
  cmd->add_option("what", *what, "models | systems | ops | hw")
      ->required()
      ->check(CLI::IsMember({"models", "systems", "ops", "hw"}));
  cmd->callback([what] {
    if (*what == "models")
      describe_models(std::cout);
    else if (*what == "systems")
      describe_systems(std::cout);
    else if (*what == "hw")
      describe_hw(std::cout);
    else
      describe_ops(std::cout);
  });
}

}  // namespace amdahl::cli
