#include "util/suggest.h"

#include <catch2/catch.hpp>

using amdahl::closest;
using amdahl::edit_distance;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[util]") {
  CHECK(edit_distance("bandwidth", "bandwidth") == 0);
  CHECK(edit_distance("bandwith", "bandwidth") == 1);  // one insertion
  CHECK(edit_distance("kitten", "sitting") == 3);      // the textbook example
}

TEST_CASE("closest suggests near names only", "[util]") {
  const std::vector<std::string> keys{"capacity", "bandwidth", "l2_cache"};
  CHECK(closest("bandwith", keys) == "bandwidth");
  CHECK(closest("zzzzzz", keys).empty());
}
