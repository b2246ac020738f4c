#pragma once
// Loading one YAML file with its locations kept. Parse errors become a located UserError.
// Every YAML the tool reads (network, system, device, link and DeepBench dataset files, the
// fuzz targets) is parsed here, and only here.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "util/diagnostics.h"

namespace amdahl {

struct YamlFile {
  std::string path;
  YAML::Node root;

  // The location of `node` in this file (yaml-cpp marks are 0-based).
  SourceLocation where(const YAML::Node& node) const;
};

// YAML aliases repeat a node without copying it: yaml-cpp's tree shares the aliased node, so a
// file of a few hundred bytes can stand for 10^9 nodes ("billion laughs") and an alias inside
// the node it names (`a: &d [*d]`) makes a cycle that any walk of the tree follows until the
// stack overflows. Before the tree is built, the text's events are counted with every alias
// expanded (parse_yaml_text): an alias inside its own anchor's node, more expanded nodes than
// kMaxYamlNodes or nesting deeper than kMaxYamlDepth (aliases expanded) is a ConfigError
// located at the alias (or the node) that passes the limit, naming the anchor.
//
// The shipped files have at most a few thousand nodes and nest at most 8 deep. yaml-cpp takes
// 5-40 us per node to parse, build and walk (the 2-core VM, idle to loaded), and the loaders
// walk an aliased node once per reference, so 100,000 expanded nodes stay within a few seconds.
inline constexpr std::int64_t kMaxYamlNodes = 100'000;
// The loaders and the duplicate-key check recurse once per level, and yaml-cpp's parser several
// frames per level (it gives up itself only at 2,000): 256 levels keep every walk far from the
// stack's end.
inline constexpr int kMaxYamlDepth = 256;
// yaml-cpp's scanner reads a whole flow collection (`[...]`, `{...}`) ahead before it passes on
// its first event (a possible simple key stays open until the collection closes): 10^7 nested
// brackets took 157 s and 2.8 GB before the first event reached the count. Each node of a flow
// collection needs a ',' or a bracket, so a file within kMaxYamlNodes has fewer of the
// characters [ ] { } , than kMaxYamlFlowIndicators (those in scalars and comments count too:
// a few per line of prose); the text is checked for it before yaml-cpp reads it.
inline constexpr std::int64_t kMaxYamlFlowIndicators = 2 * kMaxYamlNodes;

// Reads and parses `path`. Throws ConfigError "path:line:col: ..." on a syntax error and
// UserError when the file cannot be read.
YamlFile load_yaml_file(const std::string& path);

// Parses YAML text that came from `name` (used by tests and inline inputs). Throws ConfigError
// for malformed YAML, a key given twice in one map, and the alias limits above.
YamlFile parse_yaml_text(const std::string& text, const std::string& name);

// Runs `read` (a loader walking `file`'s nodes) and turns yaml-cpp's conversion errors (a key
// or value that is a list or a map where a plain value belongs, as in a complex key `? [a, b]`)
// into a ConfigError located at the node, instead of an internal error.
template <class Read>
auto with_yaml_errors(const YamlFile& file, Read&& read) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    throw ConfigError({Diagnostic{
        SourceLocation{file.path, e.mark.is_null() ? 0 : e.mark.line + 1,
                       e.mark.is_null() ? 0 : e.mark.column + 1},
        "", "expected a plain value (a string or a number) here, not a list or a map", ""}});
  }
}

// A short rendering of a scalar or the node's type, for "(got ...)" in messages.
std::string describe_node(const YAML::Node& node);

}  // namespace amdahl
