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

// A short rendering of a scalar or the node's type, for "(got ...)" in messages.
std::string describe_node(const YAML::Node& node);

}  // namespace amdahl
