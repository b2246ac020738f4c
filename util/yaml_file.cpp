#include "util/yaml_file.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "util/input_file.h"

namespace amdahl {

SourceLocation YamlFile::where(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{path, 0, 0};
  return SourceLocation{path, mark.line + 1, mark.column + 1};
}

YamlFile parse_yaml_text(const std::string& text, const std::string& name) {
  try {
    return YamlFile{name, YAML::Load(text)};
  } catch (const YAML::Exception& e) {
    throw ConfigError({Diagnostic{SourceLocation{name, e.mark.line + 1, e.mark.column + 1}, "",
                                  fmt::format("malformed YAML: {}", e.msg), ""}});
  }
}

YamlFile load_yaml_file(const std::string& path) {
  check_input_file(path, kMaxTextInputBytes, "file");
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open file", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_yaml_text(buffer.str(), path);
}

std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return fmt::format("'{}'", node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "an undefined node";
  }
}

}  // namespace amdahl
