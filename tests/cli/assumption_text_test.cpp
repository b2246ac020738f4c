// Assumption records in words: each kind's sentence from its names and numbers (quantities in
// the units amdahl prints), the list sorted and each line once, and a record short of its kind's
// values an internal error, never a read past its end.

#include "cli/assumption_text.h"

#include <catch2/catch.hpp>

#include "util/error.h"

using namespace amdahl;
using Catch::Matchers::Contains;

TEST_CASE("assumption text: each kind from its names and numbers", "[cli][assumption]") {
  CHECK(cli::assumption_text({AssumptionKind::kDefaultedKey, {"", "sync_latency", "10 us"}, {}}) ==
        "sync_latency = 10 us");
  CHECK(cli::assumption_text(
            {AssumptionKind::kDefaultedKey, {"Tesla P100", "memory.latency", "0 s"}, {}}) ==
        "Tesla P100: memory.latency = 0 s");
  // Bandwidths and times in the units the tables use.
  CHECK(cli::assumption_text({AssumptionKind::kUnmeasuredP2p, {"Toy link 10"}, {10e9}}) ==
        "Toy link 10 links: p2p not measured; transfers between devices use the nominal "
        "10 GB/s per direction");
  CHECK(cli::assumption_text({AssumptionKind::kUncalibratedRuntime, {"tf1"}, {20e-6}}) ==
        "uncalibrated: runtime tf1 (dispatch 20 us per op)");
  // Counts print as integers; a list of costs as key (fallback) pairs.
  CHECK_THAT(cli::assumption_text(
                 {AssumptionKind::kDdpBuckets, {"ring g0>g1>g0"}, {2, 13, 1 << 20, 25 << 20}}),
             Contains("over 2 GPUs (ring g0>g1>g0): gradients all-reduced in 13 buckets") &&
                 Contains("(first 1.049 MB, then 26.21 MB)"));  // 2^20 B, 25 x 2^20 B
  CHECK(cli::assumption_text({AssumptionKind::kHostCostFallback,
                              {"rt", "zero_grad", "0", "backward_node", "dispatch_per_op"},
                              {}}) ==
        "runtime rt: no host cost given for zero_grad (0), backward_node (dispatch_per_op)");
  // Tensors beyond the names listed are counted.
  CHECK_THAT(cli::assumption_text({AssumptionKind::kOnnxWeightInputs, {"a", "b"}, {5, 1562}}),
             Contains("(5 tensors, 1562 elements: a, b and 3 more)"));
}

TEST_CASE("assumption lines: sorted, each once", "[cli][assumption]") {
  const Assumption late{AssumptionKind::kUnlinkedCopies, {"gpu0"}, {}};
  const Assumption early{AssumptionKind::kResidentOnDevice, {"gpu0"}, {}};
  const auto lines = cli::assumption_lines({late, early, late});
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "gpu0 has no link to a host: input copies cost nothing");
  CHECK(lines[1] == "weights and step inputs resident on gpu0");
}

TEST_CASE("assumption text: a record short of its kind's values is an internal error",
          "[cli][assumption]") {
  CHECK_THROWS_AS(cli::assumption_text({AssumptionKind::kUncalibratedLink, {"nvlink0"}, {}}),
                  InternalError);
  CHECK_THROWS_AS(cli::assumption_text({AssumptionKind::kUncalibratedRuntime, {"rt"}, {}}),
                  InternalError);
}
