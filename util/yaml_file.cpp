#include "util/yaml_file.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "util/input_file.h"
#include "util/suggest.h"

namespace amdahl {

SourceLocation YamlFile::where(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{path, 0, 0};
  return SourceLocation{path, mark.line + 1, mark.column + 1};
}

namespace {

// Counts the first document's nodes as the tree would hold them with every alias expanded
// (yaml_file.h): each anchor's expanded size and height is known when its node closes, an
// alias adds its anchor's. Throws ConfigError at the first alias or node past a limit.
class AliasBound : public YAML::EventHandler {
 public:
  explicit AliasBound(const std::string& name) : name_(name) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    pending_ = Anchor{name, mark};
  }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t id) override {
    const Anchor& a = anchor(id);
    if (a.open)
      fail(mark, fmt::format("alias *{} is inside the node its anchor &{} (line {}) names: a "
                             "node that contains itself (an alias may repeat a complete node only)",
                             excerpt(a.name), excerpt(a.name), a.mark.line + 1));
    if (static_cast<std::int64_t>(open_.size()) + a.height > kMaxYamlDepth)
      fail(mark, fmt::format("alias *{} (anchor &{}, line {}) nests the file deeper than {} levels",
                             excerpt(a.name), excerpt(a.name), a.mark.line + 1, kMaxYamlDepth));
    add(mark, a.nodes, a.height, &a);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Anchor {
    std::string name;
    YAML::Mark mark;
    std::int64_t nodes = 0;  // expanded
    std::int64_t height = 0;
    bool open = false;  // its node has not ended yet
  };
  struct Frame {
    YAML::Mark mark;
    YAML::anchor_t anchor = 0;
    std::int64_t nodes = 1;  // itself and its items so far, expanded
    std::int64_t height = 1;
  };

  // yaml-cpp numbers anchors 1, 2, ... in the order it meets them, each announced by
  // OnAnchor just before its node's event.
  Anchor& anchor(YAML::anchor_t id) {
    if (id == 0 || id > anchors_.size())
      throw InternalError(fmt::format("{}: YAML anchor {} was not announced", name_, id));
    return anchors_[id - 1];
  }
  void define(YAML::anchor_t id) {
    if (id == 0) return;
    if (id != anchors_.size() + 1)
      throw InternalError(fmt::format("{}: YAML anchor {} out of order", name_, id));
    anchors_.push_back(std::move(pending_));
    anchors_.back().open = true;
  }

  [[noreturn]] void fail(const YAML::Mark& mark, std::string rule) const {
    throw ConfigError({Diagnostic{SourceLocation{name_, mark.line + 1, mark.column + 1}, "",
                                  std::move(rule), ""}});
  }

  // A node of `nodes` nodes and `height` levels (expanded) added where the parser is; `via`:
  // the anchor of the alias that adds it.
  void add(const YAML::Mark& mark, std::int64_t nodes, std::int64_t height, const Anchor* via) {
    total_ += nodes;
    if (total_ > kMaxYamlNodes)
      fail(mark,
           via ? fmt::format("alias *{} repeats the {} nodes of anchor &{} (line {}): with its "
                             "aliases expanded the file has more than {} nodes",
                             excerpt(via->name), nodes, excerpt(via->name), via->mark.line + 1,
                             kMaxYamlNodes)
               : fmt::format("the file has more than {} nodes", kMaxYamlNodes));
    if (open_.empty()) return;
    Frame& parent = open_.back();
    parent.nodes += nodes;
    parent.height = std::max(parent.height, height + 1);
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t id) {
    define(id);
    add(mark, 1, 1, nullptr);
    if (id != 0) close_anchor(id, 1, 1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t id) {
    if (static_cast<std::int64_t>(open_.size()) >= kMaxYamlDepth)
      fail(mark, fmt::format("lists and maps nest deeper than {} levels", kMaxYamlDepth));
    define(id);
    total_ += 1;
    if (total_ > kMaxYamlNodes)
      fail(mark, fmt::format("the file has more than {} nodes", kMaxYamlNodes));
    open_.push_back(Frame{mark, id});
  }
  void close() {
    const Frame done = open_.back();
    open_.pop_back();
    if (!open_.empty()) {
      open_.back().nodes += done.nodes;
      open_.back().height = std::max(open_.back().height, done.height + 1);
    }
    if (done.anchor != 0) close_anchor(done.anchor, done.nodes, done.height);
  }
  void close_anchor(YAML::anchor_t id, std::int64_t nodes, std::int64_t height) {
    Anchor& a = anchor(id);
    a.open = false;
    a.nodes = nodes;
    a.height = height;
  }

  const std::string& name_;
  Anchor pending_;
  std::vector<Anchor> anchors_;
  std::vector<Frame> open_;
  std::int64_t total_ = 0;
};

// Throws ConfigError at the character of `text` that passes kMaxYamlFlowIndicators.
void check_flow_indicators(const std::string& text, const std::string& name) {
  std::int64_t count = 0;
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if ((c == '[' || c == ']' || c == '{' || c == '}' || c == ',') &&
               ++count > kMaxYamlFlowIndicators) {
      throw ConfigError({Diagnostic{
          SourceLocation{name, line, static_cast<int>(i - line_start) + 1}, "",
          fmt::format("more than {} of the characters [ ] {{ }} , (a file of at most {} nodes "
                      "needs fewer; write long lists in block style, one '- ' item per line)",
                      kMaxYamlFlowIndicators, kMaxYamlNodes),
          ""}});
    }
  }
}

// Throws ConfigError when `text`'s first document (the one YAML::Load reads) breaks the alias
// limits of yaml_file.h; its syntax errors are yaml-cpp's exceptions.
void check_alias_expansion(const std::string& text, const std::string& name) {
  check_flow_indicators(text, name);
  std::istringstream in(text);
  YAML::Parser parser(in);
  AliasBound bound(name);
  parser.HandleNextDocument(bound);
}

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
    check_alias_expansion(text, name);
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
  return parse_yaml_text(buffer.str(), path);
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
