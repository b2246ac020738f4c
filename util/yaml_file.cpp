#include "util/yaml_file.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "util/input_file.h"
#include "util/input_log.h"
#include "util/suggest.h"

namespace amdahl {

SourceLocation YamlFile::where(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{path, 0, 0};
  return SourceLocation{path, mark.line + 1, mark.column + 1};
}

namespace {

// yaml-cpp keeps both entries of a key given twice in one map and a lookup sees the first, so a
// second `clock:` would be silently ignored: it is an error at the second, naming the first.
void check_duplicate_keys(const YamlFile& file, const YAML::Node& node, const std::string& path,
                          std::vector<Diagnostic>& found) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_duplicate_keys(file, node[i], fmt::format("{}[{}]", path, i), found);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, SourceLocation> seen;
  for (const auto& item : node) {
    if (!item.first.IsScalar()) continue;  // a complex key: the loaders reject it, located
    const std::string& key = item.first.Scalar();
    const std::string key_path = path.empty() ? key : path + "." + key;
    const SourceLocation here = file.where(item.first);
    if (const auto [it, fresh] = seen.emplace(key, here); !fresh)
      found.push_back(
          Diagnostic{here, excerpt(key_path),
                     fmt::format("duplicate key (first given at line {})", it->second.line), ""});
    check_duplicate_keys(file, item.second, key_path, found);
  }
}

}  // namespace

YamlFile parse_yaml_text(const std::string& text, const std::string& name) {
  try {
    YamlFile file{name, YAML::Load(text)};
    std::vector<Diagnostic> duplicates;
    check_duplicate_keys(file, file.root, "", duplicates);
    if (!duplicates.empty()) throw ConfigError(duplicates);
    return file;
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
  const std::string text = buffer.str();
  note_input(path, text);
  return parse_yaml_text(text, path);
}

std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return fmt::format("'{}'", excerpt(node.Scalar()));
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
