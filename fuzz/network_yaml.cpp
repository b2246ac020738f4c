// Fuzz target: the network YAML loader with its size expressions, blocks and repeats
// (graphs/network.h), then binding, lowering a training step and predicting it on the
// reference system: what `amdahl predict --graph FILE` does.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "graphs/lower.h"
#include "graphs/network.h"
#include "hw/system_loader.h"
#include "model/prediction.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amdahl;
  static const hw::SystemSpec system = hw::load_system("minsky");
  const std::string path = fuzz::write_input(data, size, "input.yaml");
  fuzz::expect_clean([&] {
    const graphs::BoundNetwork bound = graphs::bind_sizes(graphs::load_network(path), {});
    graphs::LoweringOptions options;
    options.mode = graphs::Mode::kTrain;
    const graphs::LoweredNetwork lowered = graphs::lower(bound, options);
    model::PredictOptions predict;
    model::predict(lowered, system, predict);
  });
  return 0;
}
