// Real exported models (scripts/make-testdata writes them into AMDAHL_TESTDATA): parameter
// counts equal torchvision's published ones (and torch's own count, params.txt), the ONNX
// ResNet-50 has the zoo ResNet-50's forward FLOPs, and the two predict the same step time.
// A missing file fails the test: run scripts/make-testdata first (scripts/test does).

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "graphs/lower.h"
#include "graphs/onnx/onnx_import.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "model/prediction.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {

std::string model_path(const std::string& name) {
  const std::string path = std::string(AMDAHL_TESTDATA) + "/" + name + ".onnx";
  INFO("missing " << path << ": run scripts/make-testdata " << AMDAHL_TESTDATA);
  REQUIRE(std::filesystem::exists(path));
  return path;
}

// The sequence models also have a symbolic seq_len.
Bindings sizes_for(const std::string& name, std::int64_t batch, std::int64_t seq_len) {
  if (name == "lstm_lm" || name == "transformer_encoder")
    return {{"batch", batch}, {"seq_len", seq_len}};
  return {{"batch", batch}};
}

std::map<std::string, std::int64_t> torch_counts() {
  std::map<std::string, std::int64_t> counts;
  std::ifstream in(std::string(AMDAHL_TESTDATA) + "/params.txt");
  std::string name;
  std::int64_t n = 0;
  while (in >> name >> n) counts[name] = n;
  return counts;
}

double forward_flops(const LoweredNetwork& net) {
  double f = 0;
  for (OpId id = 0; id < net.graph.size(); ++id)
    if (net.graph.op(id).phase == Phase::kForward) f += net.graph.op(id).flops;
  return f;
}

double gemm_conv_forward_flops(const LoweredNetwork& net) {
  double f = 0;
  for (OpId id = 0; id < net.graph.size(); ++id) {
    const Operator& op = net.graph.op(id);
    if (op.phase == Phase::kForward &&
        (op.op_class == OpClass::kConv || op.op_class == OpClass::kGemm))
      f += op.flops;
  }
  return f;
}

}  // namespace

TEST_CASE("imported parameter counts equal torchvision's", "[onnx][models]") {
  // Published: torchvision 0.14 model docs ("num_params"). Inception-v3 is exported without
  // the auxiliary classifier: 27,161,264 - 3,326,696 (AuxLogits) = 23,834,568.
  const std::map<std::string, std::int64_t> published = {
      {"resnet50", 25'557'032},
      {"vgg16", 138'357'544},
      {"alexnet", 61'100'840},
      {"mobilenet_v2", 3'504'872},
      {"inception_v3", 23'834'568},
      // LSTM LM: embedding 10000*650 + 2 layers x (4*650*(650+650) + 2*4*650) + 650*10000 + 10000
      {"lstm_lm", 10000 * 650 + 2 * (4 * 650 * 1300 + 8 * 650) + 650 * 10000 + 10000},
      // Transformer: 2 x (in_proj 3*256*256 + 768, out_proj 256*256 + 256,
      //                   feed-forward 256*1024 + 1024 + 1024*256 + 256, 2 layer norms 4*256)
      {"transformer_encoder",
       2 * (3 * 256 * 256 + 768 + 256 * 256 + 256 + 256 * 1024 + 1024 + 1024 * 256 + 256 + 1024)},
  };
  const auto torch = torch_counts();
  for (const auto& [name, expected] : published) {
    INFO(name);
    const BoundNetwork net = onnx::import_onnx(model_path(name), sizes_for(name, 2, 35));
    const LoweredNetwork lowered = lower(net, {.mode = Mode::kTrain});
    CHECK(lowered.parameters == expected);
    if (torch.count(name)) CHECK(lowered.parameters == torch.at(name));
  }
}

TEST_CASE("ONNX ResNet-50 has the zoo ResNet-50's forward FLOPs", "[onnx][models]") {
  const std::int64_t batch = 8;
  const LoweredNetwork onnx_net =
      lower(onnx::import_onnx(model_path("resnet50"), {{"batch", batch}}), {.mode = Mode::kInfer});
  // 4.09 GMAC per 224x224 image in convolutions and the classifier (He et al. 2016,
  // Table 1: 3.8e9 "FLOPs" (multiply-adds) for the original; torchvision's variant with
  // stride on the 3x3 conv counts 4.09 GMAC, torchvision docs "GFLOPS 4.09").
  const double kMacsPerImage = 4.09e9;
  const double kFormulaTolerance = 0.005;  // the published figure has three digits
  CHECK(gemm_conv_forward_flops(onnx_net) ==
        Approx(2.0 * kMacsPerImage * batch).epsilon(kFormulaTolerance));
  const auto zoo = zoo_names();
  if (std::find(zoo.begin(), zoo.end(), "resnet50") == zoo.end()) {
    WARN("graphs/zoo/resnet50.yaml is not there yet: compared with the published GMAC only");
    return;
  }
  const LoweredNetwork zoo_net =
      lower(bind_sizes(load_zoo_network("resnet50"), {{"batch", batch}}), {.mode = Mode::kInfer});
  const double kZooTolerance = 0.005;  // the bound: the same network, layer for layer
  CHECK(forward_flops(onnx_net) == Approx(forward_flops(zoo_net)).epsilon(kZooTolerance));
}

TEST_CASE("ONNX and zoo ResNet-50 predictions agree on minsky", "[onnx][models]") {
  const auto zoo = zoo_names();
  if (std::find(zoo.begin(), zoo.end(), "resnet50") == zoo.end()) {
    WARN("graphs/zoo/resnet50.yaml is not there yet: nothing to compare with");
    return;
  }
  const std::int64_t batch = 64;
  const hw::SystemSpec system = hw::load_system("minsky");
  for (Mode mode : {Mode::kTrain, Mode::kInfer}) {
    INFO(mode_name(mode));
    const LoweredNetwork a =
        lower(onnx::import_onnx(model_path("resnet50"), {{"batch", batch}}), {.mode = mode});
    const LoweredNetwork b =
        lower(bind_sizes(load_zoo_network("resnet50"), {{"batch", batch}}), {.mode = mode});
    model::PredictOptions options{.mode = mode, .batch = batch};
    const double ta = model::predict(a, system, options).step_time_s;
    const double tb = model::predict(b, system, options).step_time_s;
    const double kAgreement = 0.02;  // the bound
    CHECK(ta == Approx(tb).epsilon(kAgreement));
  }
}

TEST_CASE("every exported model lowers for training with a backward pass", "[onnx][models]") {
  for (const char* name : {"resnet50", "vgg16", "alexnet", "mobilenet_v2", "inception_v3",
                           "lstm_lm", "transformer_encoder"}) {
    INFO(name);
    const LoweredNetwork net =
        lower(onnx::import_onnx(model_path(name), sizes_for(name, 4, 16)), {.mode = Mode::kTrain});
    double forward = 0, backward = 0;
    int updates = 0;
    for (OpId id = 0; id < net.graph.size(); ++id) {
      const Operator& op = net.graph.op(id);
      if (op.phase == Phase::kForward) forward += op.flops;
      if (op.phase == Phase::kBackwardData || op.phase == Phase::kBackwardWeight)
        backward += op.flops;
      if (op.phase == Phase::kUpdate) ++updates;
    }
    // Backward costs about twice the forward (data and weight gradients); the first layer
    // has no data gradient, so a little less.
    CHECK(backward > 1.5 * forward);
    CHECK(backward < 2.5 * forward);
    CHECK(updates > 0);
  }
}
