// A prediction's breakdowns by enum: slots by key, the host's slots after the enum's, present
// slots listed in name order (as the outputs print them), shares and the union of several.

#include "model/breakdown.h"

#include <catch2/catch.hpp>

using namespace amdahl;
using namespace amdahl::model;

TEST_CASE("breakdown: a slot per key, the host's after the enum's, named as outputs show them",
          "[model][breakdown]") {
  STATIC_REQUIRE(ClassBreakdown::kSlots == kOpClassCount + kHostSlotCount);
  STATIC_REQUIRE(BoundBreakdown::kSlots == kBoundCount);
  ClassBreakdown b;
  b[OpClass::kGemm] = 3;
  b[OpClass::kConv] = 1;
  b[HostSlot::kDispatch] = 2;
  CHECK(b[OpClass::kGemm] == 3);
  CHECK(b.at_slot(kOpClassCount) == 2);  // dispatch, the first host slot
  CHECK(ClassBreakdown::name(kOpClassCount) == "dispatch");
  CHECK(ClassBreakdown::name(kOpClassCount + 1) == "step start");
  CHECK(PhaseBreakdown::name(kPhaseCount + 1) == "step start");
  // Present slots in name order, not enum order: conv, dispatch, gemm.
  const auto named = b.named();
  REQUIRE(named.size() == 3);
  CHECK(named[0].first == "conv");
  CHECK(named[1].first == "dispatch");
  CHECK(named[2].first == "gemm");
  CHECK(b.total() == 6);
  CHECK_FALSE(b.empty());
  CHECK(ClassBreakdown{}.empty());
}

TEST_CASE("breakdown: shares of a whole, and the slots present in any of several",
          "[model][breakdown]") {
  BoundBreakdown a;
  a[Bound::kCompute] = 3;
  a[Bound::kDispatch] = 1;
  const BoundBreakdown s = a.shares_of(4);
  CHECK(s[Bound::kCompute] == Approx(0.75));
  CHECK(s[Bound::kDispatch] == Approx(0.25));
  CHECK(a.shares_of(0).empty());  // no step, no shares
  BoundBreakdown b;
  b[Bound::kMemory] = 2;
  // compute, dispatch, memory: name order over both; latency, in neither, is left out.
  const std::vector<int> rows = present_in_any({&a, &b});
  REQUIRE(rows.size() == 3);
  CHECK(BoundBreakdown::name(rows[0]) == "compute");
  CHECK(BoundBreakdown::name(rows[1]) == "dispatch");
  CHECK(BoundBreakdown::name(rows[2]) == "memory");
}
