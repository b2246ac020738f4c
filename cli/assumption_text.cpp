#include "cli/assumption_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "hw/units.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::cli {
namespace {

std::string quantity(double v, hw::Dimension d) { return hw::format_quantity(v, d); }

// The names from position `from` on, joined by ", ".
std::string names_from(const Assumption& a, std::size_t from) {
  std::vector<std::string> rest(a.names.begin() + static_cast<std::ptrdiff_t>(from), a.names.end());
  return join(rest, ", ");
}

}  // namespace

std::string assumption_text(const Assumption& a) {
  // The kind's names and numbers by position (util/assumption.h).
  const auto name = [&a](std::size_t i) -> const std::string& {
    if (i >= a.names.size()) throw InternalError("assumption: too few names for its kind");
    return a.names[i];
  };
  const auto number = [&a](std::size_t i) {
    if (i >= a.numbers.size()) throw InternalError("assumption: too few numbers for its kind");
    return a.numbers[i];
  };
  constexpr auto kTime = hw::Dimension::kTime;
  constexpr auto kBytes = hw::Dimension::kBytes;
  constexpr auto kBandwidth = hw::Dimension::kBandwidth;
  const std::string overlap =
      "on a stream of their own beside the compute stream, one after another";
  switch (a.kind) {
    case AssumptionKind::kDefaultedKey:
      return name(0).empty() ? fmt::format("{} = {}", name(1), name(2))
                             : fmt::format("{}: {} = {}", name(0), name(1), name(2));
    case AssumptionKind::kEfficiencyFrom:
      return fmt::format("{}: efficiency entries from {} ({}, {})", name(0), name(1), name(2),
                         name(3));
    case AssumptionKind::kDefaultEfficiency:
      return fmt::format(
          "{}: efficiency.default not given; using compute {}, memory {} of the roofline", name(0),
          number(0), number(1));
    case AssumptionKind::kNominalBandwidth:
      return fmt::format("{}: {} not measured; using the nominal {}", name(0), name(1),
                         quantity(number(0), kBandwidth));
    case AssumptionKind::kCollectiveDefault:
      return fmt::format("{} = {}: {}", name(0), name(1), name(2));
    case AssumptionKind::kUnmeasuredP2p:
      return fmt::format(
          "{} links: p2p not measured; transfers between devices use the nominal {} per "
          "direction",
          name(0), quantity(number(0), kBandwidth));
    case AssumptionKind::kHostCostFallback: {
      std::vector<std::string> costs;
      for (std::size_t i = 1; i + 1 < a.names.size(); i += 2)
        costs.push_back(fmt::format("{} ({})", name(i), name(i + 1)));
      return fmt::format("runtime {}: no host cost given for {}", name(0), join(costs, ", "));
    }
    case AssumptionKind::kClassDispatch:
      return fmt::format(
          "runtime {}: no host cost given for op classes {}; dispatch_per_op ({}) applies", name(0),
          names_from(a, 1), quantity(number(0), kTime));
    case AssumptionKind::kClassDefaultEntry:
      return fmt::format(
          "{} ({}): no efficiency parameters for {}; its 'default' entry applies (compute {}, "
          "memory {})",
          name(0), name(1), name(2), number(0), number(1));
    case AssumptionKind::kUncalibratedDevice:
      return fmt::format("uncalibrated: device {} ({}) (efficiencies are the file's defaults)",
                         name(0), name(1));
    case AssumptionKind::kUncalibratedLink:
      return fmt::format("uncalibrated: link {} ({})", name(0), name(1));
    case AssumptionKind::kUncalibratedRuntime:
      return fmt::format("uncalibrated: runtime {} (dispatch {} per op)", name(0),
                         quantity(number(0), kTime));
    case AssumptionKind::kNoPrecisionRate:
      return fmt::format("{} has no {} rate; costed at its fp32 rate", name(0), name(1));
    case AssumptionKind::kNonMatrixRate:
      return fmt::format(
          "{}: its {} rate is a {} rate; non-matrix ops at {} costed at the fp32 {} rate", name(0),
          name(1), name(2), name(1), name(3));
    case AssumptionKind::kDdpBuckets:
      return fmt::format(
          "data parallel over {:.0f} GPUs ({}): gradients all-reduced in {:.0f} buckets as "
          "PyTorch DDP does (first {}, then {}), {}; NCCL's kernels are assumed not to slow the "
          "compute kernels they overlap",
          number(0), name(0), number(1), quantity(number(2), kBytes), quantity(number(3), kBytes),
          overlap);
    case AssumptionKind::kPerVariableAllReduce:
      return fmt::format(
          "data parallel over {:.0f} GPUs ({}): {:.0f} gradients all-reduced one variable at a "
          "time as TensorFlow 1.x's replicated variables with NCCL do (no gradient repacking), "
          "each once its gradient is complete, {}; NCCL's kernels are assumed not to slow the "
          "compute kernels they overlap",
          number(0), name(0), number(1), overlap);
    case AssumptionKind::kParameterServer:
      return fmt::format(
          "data parallel over {:.0f} GPUs ({}): {:.0f} gradients exchanged one variable at a "
          "time with TensorFlow 1.x's parameter server on {}, each once its gradient is "
          "complete, {}; the update is costed on each GPU (TensorFlow runs it once, on the "
          "parameter device) and the variables' copies back at the end of the step (TensorFlow "
          "reads them as the next step's forward pass needs them)",
          number(0), name(0), number(1), name(1), overlap);
    case AssumptionKind::kAllOnHost:
      return fmt::format("all ops on the host {} ({}); inputs already in host memory", name(0),
                         name(1));
    case AssumptionKind::kResidentOnDevice:
      return fmt::format("weights and step inputs resident on {}", name(0));
    case AssumptionKind::kInputsCopied:
      return fmt::format("weights resident on {}; step inputs copied from {} host memory", name(0),
                         name(1));
    case AssumptionKind::kPlacementCrossing:
      return fmt::format("placement {}: tensors crossing {} <-> {} copied on a copy engine{}",
                         name(0), name(1), name(2),
                         name(3).empty() ? "" : " (no link: at no cost)");
    case AssumptionKind::kUnlinkedCopies:
      return fmt::format("{} has no link to a host: input copies cost nothing", name(0));
    case AssumptionKind::kOnnxWeightInputs: {
      std::string names = names_from(a, 0);
      if (number(0) > static_cast<double>(a.names.size()))
        names += fmt::format(" and {:.0f} more", number(0) - static_cast<double>(a.names.size()));
      return fmt::format(
          "ONNX graph inputs that feed only weight slots are weights ({:.0f} tensors, {:.0f} "
          "elements: {}): resident on the device, counted as parameters, not copied per step",
          number(0), number(1), names);
    }
  }
  throw InternalError("unknown assumption kind");
}

std::vector<std::string> assumption_lines(const std::vector<Assumption>& assumptions) {
  std::vector<std::string> lines;
  lines.reserve(assumptions.size());
  for (const Assumption& a : assumptions) lines.push_back(assumption_text(a));
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

}  // namespace amdahl::cli
