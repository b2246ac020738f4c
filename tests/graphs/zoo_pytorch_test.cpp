// The zoo networks that are PyTorch definitions (`pytorch_name:`): the networks of the H200
// step measurements (../shared/data/h200/networks/steps.csv) resolve to them and have the
// measured networks' parameter counts exactly.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "util/csv_table.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
const std::string kSteps = std::string(AMDAHL_SHARED_DIR) + "/data/h200/networks/steps.csv";

std::int64_t parameters(const std::string& zoo_name) {
  return lower(bind_sizes(load_zoo_network(zoo_name), {}), {.mode = Mode::kTrain}).parameters;
}
}  // namespace

TEST_CASE("PyTorch names resolve to the torchvision and models.py zoo networks", "[graphs][zoo]") {
  const auto& zoo = zoo_pytorch_names();
  CHECK(zoo.at("resnet50") == "resnet50");
  CHECK(zoo.at("alexnet") == "alexnet-tv");  // torchvision's; the zoo's alexnet is Fathom's
  CHECK(zoo.at("seq2seq") == "seq2seq-pt");  // models.py's; the zoo's seq2seq is Fathom's
  CHECK(zoo.at("deepq") == "deepq-pt");
  CHECK(zoo.at("mobilenet_v2") == "mobilenet-v2");
  for (const auto& [pytorch, name] : zoo) CHECK(load_zoo_network(name).pytorch_name == pytorch);
}

TEST_CASE("every network of steps.csv has its measured parameter count", "[graphs][zoo]") {
  const CsvTable steps = CsvTable::read(kSteps);
  const auto& zoo = zoo_pytorch_names();
  const std::size_t model = steps.column("model"), params = steps.column("params");
  std::map<std::string, std::int64_t> checked;
  for (std::size_t row = 0; row < steps.size(); ++row) {
    const std::string& name = steps.cell(row, model);
    if (checked.contains(name)) continue;
    INFO(steps.where(row) << ": " << name);
    REQUIRE(zoo.contains(name));
    checked[name] = parameters(zoo.at(name));
    CHECK(checked[name] == static_cast<std::int64_t>(steps.number(row, params)));
  }
  CHECK(checked.size() == 4);
  // The same counts written out: torchvision's model cards and models.py's layers
  // (seq2seq-pt.yaml and deepq-pt.yaml derive them).
  CHECK(checked.at("resnet50") == 25'557'032);
  CHECK(checked.at("alexnet") == 61'100'840);
  CHECK(checked.at("seq2seq") == 22'857'488);
  CHECK(checked.at("deepq") == 1'693'362);
}

TEST_CASE("deepq-pt forward FLOPs by hand", "[graphs][zoo]") {
  // Per example, multiply-accumulates of each layer (output positions x window x channels):
  //   conv1 8x8/4, 4 -> 32 on 84x84: 20x20 outputs, 20*20*32 * 4*8*8  = 3,276,800
  //   conv2 4x4/2, 32 -> 64 on 20x20: 9x9 outputs,   9*9*64 * 32*4*4  = 2,654,208
  //   conv3 3x3/1, 64 -> 64 on 9x9: 7x7 outputs,     7*7*64 * 64*3*3  = 1,806,336
  //   fc4 3136 -> 512                                                = 1,605,632
  //   fc5 512 -> 18                                                  =     9,216
  // total 9,352,192; FLOPs 2 per MAC plus one bias add per output (12,800 + 5,184 + 3,136
  // + 512 + 18 = 21,650).
  const double macs = 3'276'800 + 2'654'208 + 1'806'336 + 1'605'632 + 9'216;
  const double bias = 12'800 + 5'184 + 3'136 + 512 + 18;
  constexpr std::int64_t kBatch = 32;
  const auto net =
      lower(bind_sizes(load_zoo_network("deepq-pt"), {{"batch", kBatch}}), {.mode = Mode::kInfer});
  double matrix_flops = 0;
  for (OpId id = 0; id < net.graph.size(); ++id) {
    const Operator& op = net.graph.op(id);
    if (op.phase == Phase::kForward && is_matrix_class(op.op_class)) matrix_flops += op.flops;
  }
  CHECK(matrix_flops == Approx(kBatch * (2 * macs + bias)));
}
