#include "util/yaml_file.h"

#include <catch2/catch.hpp>
#include <string>

using amdahl::ConfigError;
using amdahl::kMaxYamlDepth;
using amdahl::kMaxYamlFlowIndicators;
using amdahl::kMaxYamlNodes;
using amdahl::parse_yaml_text;

namespace {

// The message parse_yaml_text throws for `text` (empty when it parses).
std::string error_of(const std::string& text) {
  try {
    parse_yaml_text(text, "f.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// "a0: &a0 [x, x, ..., x]" (width items), then each level k a list of `width` aliases to the
// level before: level k stands for 1 + width * size(k - 1) nodes.
std::string laughs(int levels, int width) {
  std::string text = "a0: &a0 [";
  for (int i = 0; i < width; ++i) text += i ? ", x" : "x";
  text += "]\n";
  for (int k = 1; k < levels; ++k) {
    text += "a" + std::to_string(k) + ": &a" + std::to_string(k) + " [";
    for (int i = 0; i < width; ++i) text += (i ? ", *a" : "*a") + std::to_string(k - 1);
    text += "]\n";
  }
  return text;
}

}  // namespace

TEST_CASE("aliases to complete nodes load as copies", "[util][yaml]") {
  const auto file = parse_yaml_text("base: &b {clock: 1 GHz}\nother: *b\n", "f.yaml");
  CHECK(file.root["other"]["clock"].Scalar() == "1 GHz");
}

TEST_CASE("an alias inside the node its anchor names is an error at the alias", "[util][yaml]") {
  // yaml-cpp links the alias to its open anchor: a cycle that every walk of the tree followed
  // until the stack overflowed (SIGSEGV).
  const std::string self = error_of("description: &d [*d]\n");
  CHECK_THAT(self, Catch::Contains("f.yaml:1:18: alias *d is inside the node its anchor &d"));
  const std::string nested = error_of("a: &top\n  b:\n    - c: *top\n");
  CHECK_THAT(nested, Catch::Contains("f.yaml:3:10: alias *top"));
}

TEST_CASE("aliases may not expand a file past the node limit", "[util][yaml]") {
  // Each level is a list of 10 aliases to the one before: level k stands for about 10^(k+1)
  // nodes, so 4 levels (about 12,000 nodes) stay below 10^5 and 9 ("billion laughs") do not.
  CHECK(error_of(laughs(4, 10)).empty());
  const std::string bomb = error_of(laughs(9, 10));
  CHECK_THAT(bomb, Catch::Contains("f.yaml:5:") &&
                       Catch::Contains("alias *a3 repeats the 11111 nodes of anchor &a3 (line 4): "
                                       "with its aliases expanded the file has more than 100000 "
                                       "nodes"));
  // Under any key, known or not: the count comes before any loader reads a key.
  std::string under = "name: x\nunknown_key:\n  ";
  for (char c : laughs(9, 10)) under += c == '\n' ? "\n  " : std::string(1, c);
  CHECK_THAT(error_of(under), Catch::Contains("more than 100000 nodes"));
}

TEST_CASE("a file may hold at most kMaxYamlNodes nodes even without aliases", "[util][yaml]") {
  // A block list: the list and its items.
  std::string list;
  for (std::int64_t i = 1; i < kMaxYamlNodes; ++i) list += "- 0\n";
  CHECK(error_of(list).empty());
  CHECK_THAT(error_of(list + "- 0\n"), Catch::Contains("the file has more than 100000 nodes"));
  // In flow style yaml-cpp reads the whole collection ahead: its commas and brackets are
  // counted in the text before, the one past the limit located.
  std::string flow = "[0";
  for (std::int64_t i = 1; i < kMaxYamlFlowIndicators; ++i) flow += ",0";
  CHECK_THAT(error_of(flow + "]"),
             Catch::Contains("f.yaml:1:400001: more than 200000 of the characters [ ] { } ,"));
}

TEST_CASE("nesting is bounded before yaml-cpp's tree is built", "[util][yaml]") {
  const auto nested = [](int depth) {
    return std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']');
  };
  CHECK(error_of(nested(kMaxYamlDepth)).empty());
  CHECK_THAT(error_of(nested(kMaxYamlDepth + 1)),
             Catch::Contains("f.yaml:1:257: lists and maps nest deeper than 256 levels"));
  // 100,000 levels: yaml-cpp's own recursion would give up at 2,000; the count stops first.
  CHECK_THAT(error_of(nested(100'000)), Catch::Contains("nest deeper than 256 levels"));
  // 10^7 levels: yaml-cpp would read them all ahead (157 s, 2.8 GB); the text's count stops it.
  CHECK_THAT(error_of(nested(10'000'000)), Catch::Contains("f.yaml:1:200001: more than 200000"));
  // Block lists one inside the other, "- - - ... x".
  std::string block;
  for (int i = 0; i < 1000; ++i) block += "- ";
  CHECK_THAT(error_of(block + "x\n"), Catch::Contains("nest deeper than 256 levels"));
  // An alias counts the levels of the node it repeats: 1 (the map) + 60 + 200 > 256.
  const std::string deep =
      "a: &a " + nested(200) + "\nb: " + std::string(60, '[') + "*a" + std::string(60, ']') + "\n";
  CHECK_THAT(error_of(deep), Catch::Contains("alias *a (anchor &a, line 1) nests the file deeper"));
}

TEST_CASE("syntax errors and duplicate keys stay located errors", "[util][yaml]") {
  CHECK_THAT(error_of("a: [1, 2\n"), Catch::Contains("f.yaml:"));
  CHECK_THAT(error_of("b: *nowhere\n"), Catch::Contains("malformed YAML"));
  CHECK_THAT(error_of("a: 1\na: 2\n"), Catch::Contains("f.yaml:2:1: a: duplicate key"));
}
