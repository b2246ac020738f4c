#pragma once
// Loading one YAML file with its locations kept. Parse errors become a located UserError.

#include <yaml-cpp/yaml.h>

#include <string>

#include "util/diagnostics.h"

namespace amdahl {

struct YamlFile {
  std::string path;
  YAML::Node root;

  // The location of `node` in this file (yaml-cpp marks are 0-based).
  SourceLocation where(const YAML::Node& node) const;
};

// Reads and parses `path`. Throws ConfigError "path:line:col: ..." on a syntax error and
// UserError when the file cannot be read.
YamlFile load_yaml_file(const std::string& path);

// Parses YAML text that came from `name` (used by tests and inline inputs).
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
