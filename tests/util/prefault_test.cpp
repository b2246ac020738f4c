// util/prefault.h maps pages ahead of their first writes; it must never change what the
// memory holds or what a resized vector contains.

#include "util/prefault.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "graphs/op_graph.h"

using namespace amdahl;

TEST_CASE("prefault leaves the contents of the range unchanged", "[util][prefault]") {
  // 3 MiB plus an odd offset: partial pages at both ends, whole pages between.
  std::vector<std::uint8_t> bytes(3 * kPrefaultMinBytes + 777);
  std::iota(bytes.begin(), bytes.end(), std::uint8_t{0});
  prefault(bytes.data() + 13, bytes.size() - 13);
  prefault(bytes.data(), 0);
  prefault(bytes.data() + 5, 100);  // under the minimum: nothing to do
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != static_cast<std::uint8_t>(i)) FAIL("byte " << i << " changed");
}

TEST_CASE("resize_prefaulted keeps the old elements and default-constructs the new",
          "[util][prefault]") {
  std::vector<double> v{1.5, 2.5};
  const std::size_t n = 2 * kPrefaultMinBytes / sizeof(double) + 3;
  resize_prefaulted(v, n);
  REQUIRE(v.size() == n);
  CHECK(v[0] == 1.5);
  CHECK(v[1] == 2.5);
  CHECK(std::all_of(v.begin() + 2, v.end(), [](double x) { return x == 0.0; }));
  resize_prefaulted(v, 1);  // shrinking is a plain resize
  CHECK(v.size() == 1);
}

TEST_CASE("an op graph of many ops prefaulted as it grows keeps every op", "[util][prefault]") {
  graphs::OpGraph g;
  const std::size_t n = 40'000;  // several prefaulted chunks of the vertex storage
  g.reserve(n / 2);              // and a reallocation past the reserved room
  for (std::size_t i = 0; i < n; ++i) {
    graphs::Operator op;
    op.flops = static_cast<double>(i);
    g.add(std::move(op));
    if (i > 0) g.depend(i - 1, i, static_cast<double>(i));
  }
  REQUIRE(g.size() == n);
  bool all = true;
  for (std::size_t i = 0; i < n; ++i) all = all && g.op(i).flops == static_cast<double>(i);
  CHECK(all);
  CHECK(g.edge_bytes(n - 2, n - 1) == static_cast<double>(n - 1));
}
