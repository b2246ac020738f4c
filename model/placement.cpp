#include "model/placement.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::model {
namespace {

const std::vector<std::string>& side_words() {
  static const std::vector<std::string> kWords{"accelerator", "host", "cpu"};
  return kWords;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

PlacementSpec parse_placement(const std::string& text) {
  PlacementSpec spec;
  const std::string t = trim(text);
  if (t.empty())
    throw UserError("--place: expected accelerator, host, cpu or CLASS=TARGET[,CLASS=TARGET]");
  if (t.find('=') == std::string::npos && t.find(',') == std::string::npos) {
    spec.all = t;
    return spec;
  }
  std::size_t pos = 0;
  while (pos <= t.size()) {
    const std::size_t comma = std::min(t.find(',', pos), t.size());
    const std::string item = trim(t.substr(pos, comma - pos));
    pos = comma + 1;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UserError(fmt::format("--place: expected CLASS=TARGET (got '{}')", item));
    const std::string cls = trim(item.substr(0, eq));
    const std::string target = trim(item.substr(eq + 1));
    const auto c = parse_op_class(cls);
    if (!c)
      throw UserError(fmt::format("--place: unknown op class '{}'; {}", cls,
                                  suggestion(cls, op_class_names())));
    spec.by_class.emplace_back(*c, target);
  }
  return spec;
}

std::string placement_text(const PlacementSpec& spec) {
  if (spec.by_class.empty()) return spec.all;
  std::vector<std::string> items;
  if (spec.all != "accelerator") items.push_back(fmt::format("default={}", spec.all));
  for (const auto& [c, target] : spec.by_class)
    items.push_back(fmt::format("{}={}", op_class_name(c), target));
  return join(items, ",");
}

Placement place(const graphs::OpGraph& graph, const hw::SystemSpec& system,
                const std::string& device, const PlacementSpec& spec) {
  Placement pl;
  pl.accelerator = &system.device(device.empty() ? system.default_device : device);
  if (pl.accelerator->kind == hw::DeviceKind::kCpu) {
    pl.host = pl.accelerator;
  } else {
    const hw::HostRoute route = system.host_route(pl.accelerator->name);
    pl.host = route.host;
    pl.link = route.link;
  }

  auto resolve = [&](const std::string& target) -> Side {
    if (target == "accelerator" || target == pl.accelerator->name) return Side::kAccelerator;
    if (target == "host" || target == "cpu" || (pl.host && target == pl.host->name)) {
      if (!pl.host)
        throw UserError(
            fmt::format("--place {}: system '{}' has no host CPU", target, system.name));
      return Side::kHost;
    }
    std::vector<std::string> valid = side_words();
    valid.push_back(pl.accelerator->name);
    if (pl.host && pl.host != pl.accelerator) valid.push_back(pl.host->name);
    throw UserError(fmt::format("--place: '{}' is not the accelerator ({}) or its host; {}", target,
                                pl.accelerator->name, suggestion(target, valid)));
  };

  std::array<Side, kOpClassCount> by_class{};
  by_class.fill(resolve(spec.all));
  for (const auto& [c, target] : spec.by_class) by_class[static_cast<int>(c)] = resolve(target);
  if (pl.host == pl.accelerator) by_class.fill(Side::kHost);

  const std::size_t n = graph.size();
  pl.side.resize(n);
  const graphs::Graph& g = graph.graph();
  // Program order is topological, so consumers come later: walk backwards to see, for each
  // input copy, whether any consumer needs it on the accelerator.
  for (graphs::OpId id = n; id-- > 0;) {
    const graphs::Operator& op = graph.op(id);
    if (op.op_class != OpClass::kTransfer) {
      pl.side[id] = by_class[static_cast<int>(op.op_class)];
      continue;
    }
    Side s = Side::kHost;
    if (pl.host != pl.accelerator) {
      bool consumed = false;
      for (auto [it, end] = boost::out_edges(id, g); it != end; ++it) {
        consumed = true;
        if (pl.side[boost::target(*it, g)] == Side::kAccelerator) s = Side::kAccelerator;
      }
      if (!consumed) s = by_class[static_cast<int>(op.op_class)];
    }
    pl.side[id] = s;
  }
  pl.all_on_host = true;
  for (Side s : pl.side) pl.all_on_host = pl.all_on_host && s == Side::kHost;
  return pl;
}

}  // namespace amdahl::model
