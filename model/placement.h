#pragma once
// Placement: which device runs each op. A prediction involves at most two devices: the
// accelerator (PredictOptions::device, else the system's default device) and the host CPU
// that drives it (SystemSpec::host_of).
//
//   accelerator   every op on the accelerator (the default); the step's inputs are copied
//                 host to device over the link (pinned or pageable, RuntimeSpec); weights
//                 stay resident on the device
//   host          every op on the host CPU, run by the host thread; inputs are already in
//                 host memory, nothing is copied
//   CLASS=TARGET  per op class, e.g. "embedding=host" or "embedding=cpu0,softmax=host";
//                 unlisted classes stay on the accelerator. A tensor that crosses between
//                 the host and the accelerator is copied over the link on a copy engine
//                 (model/schedule.h); an input copy whose consumers all run on the host
//                 costs nothing.
// TARGET is `host`, `cpu`, `accelerator`, or the name of the accelerator or its host.
// When the accelerator is itself a CPU, host and accelerator are the same device.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graphs/op_graph.h"
#include "hw/system.h"

namespace amdahl::model {

enum class Side : std::uint8_t { kAccelerator, kHost };

struct PlacementSpec {
  std::string all = "accelerator";                        // target of unlisted classes
  std::vector<std::pair<OpClass, std::string>> by_class;  // overrides, in order
};

// Parses the text form above. Throws UserError naming the bad item and the valid choices
// (an unknown class lists the classes).
PlacementSpec parse_placement(const std::string& text);
// "accelerator", "host", or "embedding=host,..." (the parse_placement form).
std::string placement_text(const PlacementSpec& spec);

struct Placement {
  const hw::DeviceSpec* accelerator = nullptr;
  const hw::DeviceSpec* host = nullptr;  // nullptr when the system has no CPU
  const hw::LinkSpec* link = nullptr;    // host <-> accelerator; nullptr when none
  std::vector<Side> side;                // per op, in program order
  bool all_on_host = false;              // every op on the host device
};

// Resolves the targets against the system and assigns every op. Throws UserError for an
// unknown device, a target that is neither the accelerator nor its host, or host
// placement in a system without a CPU.
Placement place(const graphs::OpGraph& graph, const hw::SystemSpec& system,
                const std::string& device, const PlacementSpec& spec);

}  // namespace amdahl::model
