// Fuzz target: the ONNX importer (graphs/onnx/onnx_import.h) with its shape folding, then
// lowering an inference pass and predicting it: what `amdahl predict --onnx FILE` does.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "graphs/lower.h"
#include "graphs/onnx/onnx_import.h"
#include "hw/system_loader.h"
#include "model/prediction.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amdahl;
  static const hw::SystemSpec system = hw::load_system("minsky");
  const std::string path = fuzz::write_input(data, size, "input.onnx");
  fuzz::expect_clean([&] {
    // A symbolic batch is bound as --batch 2 would; a model without one takes no binding.
    graphs::BoundNetwork bound;
    try {
      bound = graphs::onnx::import_onnx(path, {{"batch", 2}});
    } catch (const UserError&) {
      bound = graphs::onnx::import_onnx(path, {});
    }
    graphs::LoweringOptions options;
    options.mode = graphs::Mode::kInfer;
    const graphs::LoweredNetwork lowered = graphs::lower(bound, options);
    model::PredictOptions predict;
    predict.mode = graphs::Mode::kInfer;
    model::predict(lowered, system, predict);
  });
  return 0;
}
