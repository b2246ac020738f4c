// util/input_log.h: the files a computation read, by content, as the loaders report them (a
// fingerprint of them changes when any file changes, an included one too).

#include "util/input_log.h"

#include <catch2/catch.hpp>

#include "scratch_dir.h"
#include "util/csv_table.h"
#include "util/hash.h"
#include "util/yaml_file.h"

using namespace amdahl;

TEST_CASE("InputLog: every file read while it lives, by content", "[util][input_log]") {
  const std::string a = test::write_scratch_file("input_log_a.yaml", "x: 1\n");
  const std::string b = test::write_scratch_file("input_log_b.csv", "k,v\n1,2\n");
  load_yaml_file(a);  // no log: nothing to record, nothing fails
  InputLog outer;
  {
    InputLog inner;
    load_yaml_file(a);
    load_yaml_file(a);  // the same bytes again: listed once
    CsvTable::read(b);
    CHECK(inner.files().size() == 2);
    CHECK(inner.files().count({a, fnv1a("x: 1\n", 5)}) == 1);
    CHECK(inner.files().count({b, fnv1a("k,v\n1,2\n", 8)}) == 1);
  }
  CHECK(outer.files().size() == 2);  // logs nest: the outer one saw them too

  // The file changed: another entry, with another hash.
  test::write_scratch_file("input_log_a.yaml", "x: 2\n");
  load_yaml_file(a);
  CHECK(outer.files().size() == 3);
  CHECK(outer.files().count({a, fnv1a("x: 2\n", 5)}) == 1);
}
