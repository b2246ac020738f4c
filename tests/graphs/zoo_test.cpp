// Every zoo network loads, binds at its default sizes and lowers in both modes; parameter
// counts and forward multiply-accumulates per sample equal published values.
//
// MACs count the GEMM-like forward ops only (convolution, linear, matmul, attention and
// recurrent GEMMs: m*n*k*batch of their implicit GEMM), per sample, as the published
// figures do (bias adds, activations, pooling and normalization left out).

#include "graphs/zoo.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "graphs/lower.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
// The acceptance tolerance for published counts.
constexpr double kPublishedTolerance = 0.005;

struct Published {
  const char* model;
  double parameters;
  double gmac_per_sample;  // forward, at the default sizes
  const char* source;
  Mode mode = Mode::kInfer;  // the mode the published MACs count
};

// torchvision figures: the model cards of torchvision 0.14 (parameters exact; "GFLOPS" there
// are multiply-accumulates, given to 2-3 digits; where the card rounds to 2 digits the value
// here is the same count to 3-4 digits from the layer shapes (AlexNet 0.714, MobileNet-v2
// 0.3006). Fathom figures: ../shared/data/fathom-workloads.md ("derived", per example).
const Published kPublished[] = {
    {"resnet18", 11'689'512, 1.814, "torchvision model card"},
    {"resnet50", 25'557'032, 4.089, "torchvision model card (4.09)"},
    {"resnet152", 60'192'808, 11.514, "torchvision model card (11.51)"},
    {"vgg16", 138'357'544, 15.47, "torchvision model card"},
    {"alexnet-tv", 61'100'840, 0.714, "torchvision model card (0.71)"},
    {"mobilenet-v2", 3'504'872, 0.3006, "torchvision model card (0.30)"},
    {"inception-v3", 27'161'264, 5.719, "torchvision model card (5.71; the aux head adds 0.1%)"},
    {"alexnet", 61.1e6, 0.717, "fathom-workloads.md alexnet"},
    {"vgg", 137.8e6, 13.62, "fathom-workloads.md vgg"},
    {"residual", 6.18e6, 0.877, "fathom-workloads.md residual"},
    {"deepq", 1.69e6, 9.35e-3, "fathom-workloads.md deepq (online network)"},
    {"autoenc", 0.47e6, 0.47e-3, "fathom-workloads.md autoenc"},
    {"speech", 2.19e6, 3.43, "fathom-workloads.md speech (per utterance)"},
    {"seq2seq", 34.6e6, 0.1845, "fathom-workloads.md seq2seq (bucket 40/50, training)",
     Mode::kTrain},
};

double forward_macs(const LoweredNetwork& net) {
  double macs = 0;
  for (OpId id = 0; id < net.graph.size(); ++id) {
    const Operator& op = net.graph.op(id);
    if (op.phase != Phase::kForward || op.gemm.empty()) continue;
    macs += static_cast<double>(op.gemm.m) * static_cast<double>(op.gemm.n) *
            static_cast<double>(op.gemm.k) *
            static_cast<double>(std::max<std::int64_t>(op.gemm.batch, 1));
  }
  return macs;
}

std::int64_t batch_of(const BoundNetwork& net) {
  const auto it = net.sizes.find("batch");
  return it == net.sizes.end() ? 1 : it->second;
}
}  // namespace

TEST_CASE("every zoo network lowers at its default sizes in both modes", "[graphs][zoo]") {
  for (const auto& name : zoo_names()) {
    INFO(name);
    const BoundNetwork bound = bind_sizes(load_zoo_network(name), {});
    const LoweredNetwork infer = lower(bound, {.mode = Mode::kInfer});
    const LoweredNetwork train = lower(bound, {.mode = Mode::kTrain});
    CHECK(infer.parameters > 0);
    CHECK(train.graph.size() > infer.graph.size());
    // Inference drops the loss, and with it the weights of a loss layer (seq2seq's sampled
    // softmax projection).
    CHECK(train.parameters >= infer.parameters);
  }
}

TEST_CASE("zoo parameter counts and forward MACs equal published values", "[graphs][zoo]") {
  for (const Published& p : kPublished) {
    INFO(p.model << " (" << p.source << ")");
    const BoundNetwork bound = bind_sizes(load_zoo_network(p.model), {});
    const LoweredNetwork net = lower(bound, {.mode = p.mode});
    CHECK(static_cast<double>(net.parameters) == Approx(p.parameters).epsilon(kPublishedTolerance));
    CHECK(forward_macs(net) / static_cast<double>(batch_of(bound)) / 1e9 ==
          Approx(p.gmac_per_sample).epsilon(kPublishedTolerance));
  }
}

TEST_CASE("memnet parameters: four 20 x 20 tables and a 10 x 20 temporal matrix", "[graphs][zoo]") {
  // fathom-workloads.md: "about 1.8 k" for bAbI task 1 (vocabulary 20, embedding 20, 10
  // memory slots): tables A, B, the shared hop matrix H and the answer matrix W, 20 x 20
  // each, plus the temporal matrix TA.
  const auto net = lower(bind_sizes(load_zoo_network("memnet"), {}), {.mode = Mode::kTrain});
  CHECK(net.parameters == 4 * 20 * 20 + 10 * 20);
}

TEST_CASE("inception-v3 without the auxiliary head", "[graphs][zoo]") {
  // torchvision's 27,161,264 less the auxiliary head: conv 768 -> 128 1x1 (98,304) + batch
  // norm (256), conv 128 -> 768 5x5 (2,457,600) + batch norm (1,536), fc 768 -> 1000
  // (769,000).
  const double aux = 98'304 + 256 + 2'457'600 + 1'536 + 769'000;
  const auto net =
      lower(bind_sizes(load_zoo_network("inception-v3"), {{"aux", 0}}), {.mode = Mode::kInfer});
  CHECK(static_cast<double>(net.parameters) == Approx(27'161'264 - aux));
}

TEST_CASE("resnet v1: the stride on the first 1x1 of a downsampling unit", "[graphs][zoo]") {
  // Moving a stage's stride from the 3x3 (v1.5) to the first 1x1 (v1) leaves the 3x3 as it
  // was (stride 1 on the halved map) and runs the 1x1 (in x width) on the halved map: H^2 / 4
  // instead of H^2 positions. Stages 2-4 (stage 1 does not stride): 256 x 128 at 56, 512 x 256
  // at 28, 1024 x 512 at 14, each in x width x 3 H^2 / 4 = 77,070,336 MACs fewer per image.
  // He et al. (CVPR 2016, table 1) give ResNet-50 v1 3.8 x 10^9 multiply-adds.
  const double fewer = 3 * 77'070'336.0;
  for (const char* model : {"resnet50", "resnet152"}) {
    INFO(model);
    const Network net = load_zoo_network(model);
    const auto lowered = [&](int v1) {
      return lower(bind_sizes(net, {{"batch", 1}, {"v1", v1}}), {.mode = Mode::kInfer});
    };
    const LoweredNetwork v15 = lowered(0), v1 = lowered(1);
    CHECK(forward_macs(v15) - forward_macs(v1) == Approx(fewer));
    CHECK(v1.parameters == v15.parameters);
  }
  const double resnet50_v1 = forward_macs(lower(
      bind_sizes(load_zoo_network("resnet50"), {{"batch", 1}, {"v1", 1}}), {.mode = Mode::kInfer}));
  CHECK(resnet50_v1 / 1e9 == Approx(3.86).epsilon(0.01));
}

TEST_CASE("bert-base parameters equal the published count", "[graphs][zoo]") {
  // Hugging Face bert-base-uncased BertModel (with the pooler): 109,482,240 parameters
  // (Devlin et al. 2019: "110M"); the classifier adds 768 x 2 + 2 for 2 classes.
  const auto net = lower(bind_sizes(load_zoo_network("bert-base"), {}), {.mode = Mode::kTrain});
  CHECK(net.parameters == 109'482'240 + 768 * 2 + 2);
}

TEST_CASE("the zoo holds the Fathom eight and the modern networks", "[graphs][zoo]") {
  const auto names = zoo_names();
  for (const char* model : {"seq2seq", "memnet", "speech", "autoenc", "residual", "vgg", "alexnet",
                            "deepq", "alexnet-tv", "vgg16", "resnet18", "resnet50", "resnet152",
                            "inception-v3", "mobilenet-v2", "bert-base", "gpt2-small"}) {
    INFO(model);
    CHECK(std::find(names.begin(), names.end(), model) != names.end());
  }
}

TEST_CASE("batch and set options change the lowered network", "[graphs][zoo]") {
  const Network net = load_zoo_network("resnet50");
  const auto at = [&](Bindings b) {
    return forward_macs(lower(bind_sizes(net, b), {.mode = Mode::kInfer}));
  };
  // MACs scale with the batch and with the image area (stride-32 feature maps: 224 -> 7,
  // 448 -> 14; the fc layer is a vanishing share).
  CHECK(at({{"batch", 8}}) == Approx(8 * at({{"batch", 1}})));
  CHECK(at({{"batch", 1}, {"image", 448}}) == Approx(4 * at({{"batch", 1}})).epsilon(0.01));
}

TEST_CASE("zoo suites: every member is a zoo network, and an unknown suite lists the suites",
          "[graphs][zoo]") {
  const auto names = zoo_names();
  REQUIRE(zoo_suites().count("fathom"));
  // The Fathom workloads as built (../shared/data/fathom-workloads.md): eight.
  CHECK(zoo_suite("fathom").size() == 8);
  for (const auto& [suite, members] : zoo_suites())
    for (const std::string& m : members) {
      INFO(suite << ": " << m);
      CHECK(std::find(names.begin(), names.end(), m) != names.end());
    }
  CHECK_THROWS_WITH(zoo_suite("fathm"), Catch::Contains("unknown suite 'fathm'") &&
                                            Catch::Contains("did you mean 'fathom'"));
}
