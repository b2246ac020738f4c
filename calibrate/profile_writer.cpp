#include "calibrate/profile_writer.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/input_file.h"

namespace amdahl::calibrate {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

bool is_top_level_key(const std::string& line) {
  return !line.empty() && line[0] != ' ' && line[0] != '#' && line[0] != '-' &&
         line.find(':') != std::string::npos;
}

std::string key_of(const std::string& line) {
  const auto colon = line.find(':');
  std::string key = line.substr(0, colon);
  key.erase(0, key.find_first_not_of(' '));
  return key;
}

int indent_of(const std::string& line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string::npos ? -1 : static_cast<int>(first);
}

// "0.8412", "1.2e+05" -> as YAML numbers; 4 significant digits are below the measurements'
// own spread.
std::string num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

std::string quoted_yaml(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::string set_top_level_keys(const std::string& text,
                               const std::vector<std::pair<std::string, std::string>>& keys) {
  const std::vector<std::string> lines = lines_of(text);
  std::vector<std::string> out;
  std::set<std::string> done;
  const auto value_of = [&](const std::string& key) -> const std::string* {
    for (const auto& [k, v] : keys)
      if (k == key) return &v;
    return nullptr;
  };
  for (std::size_t i = 0; i < lines.size();) {
    const std::string* value = is_top_level_key(lines[i]) ? value_of(key_of(lines[i])) : nullptr;
    if (!value) {
      out.push_back(lines[i++]);
      continue;
    }
    const std::string key = key_of(lines[i]);
    out.push_back(fmt::format("{}: {}", key, *value));
    done.insert(key);
    ++i;
    while (i < lines.size() && !lines[i].empty() && lines[i][0] == ' ') ++i;  // its block
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  for (const auto& [k, v] : keys)
    if (!done.count(k)) out.push_back(fmt::format("{}: {}", k, v));
  std::string joined;
  for (const auto& l : out) joined += l + "\n";
  return joined;
}

std::string efficiency_entry(const ClassFit& fit, const std::string& source) {
  // Every parameter of hw/class_efficiency.h that its row says is written, in the table's order.
  std::string body;
  for (const hw::EfficiencyParamSpec& p : hw::efficiency_params()) {
    const double v = p.access.get(fit.params);
    if (p.written ? !p.written(fit.params) : v == p.default_value) continue;
    std::string text;
    switch (p.format) {
      case hw::WriteFormat::kSignificant:
        text = num(v * p.write_scale);
        break;
      case hw::WriteFormat::kInteger:
        text = fmt::format("{}", static_cast<long long>(v));
        break;
      case hw::WriteFormat::kWhole:
        text = fmt::format("{:.0f}", v * p.write_scale);
        break;
      case hw::WriteFormat::kText:
        text = p.type == hw::ParamType::kBool
                   ? std::string(v != 0 ? "true" : "false")
                   : std::string(p.choices.at(static_cast<std::size_t>(v)));
        break;
    }
    if (!p.write_unit.empty()) text += fmt::format(" {}", p.write_unit);
    body += fmt::format("{}{}: {}", body.empty() ? "" : ", ", p.key, text);
  }
  return fmt::format("{}: {{{}, source: {}}}", fit.entry.name(), body, quoted_yaml(source));
}

std::string render_calibrated_device(const std::string& base_text,
                                     const std::vector<ClassFit>& fits,
                                     const std::vector<std::string>& entry_sources,
                                     const std::string& calibration) {
  std::set<std::string> fitted;
  for (const auto& f : fits) fitted.insert(f.entry.name());
  const std::vector<std::string> lines = lines_of(base_text);
  std::vector<std::string> kept;
  std::vector<std::string> carried;  // base efficiency entries not fitted, verbatim
  for (std::size_t i = 0; i < lines.size();) {
    const std::string& line = lines[i];
    if (!is_top_level_key(line)) {
      kept.push_back(line);
      ++i;
      continue;
    }
    const std::string key = key_of(line);
    if (key != "calibrated" && key != "calibration" && key != "efficiency") {
      kept.push_back(line);
      ++i;
      continue;
    }
    // Skip the block: the key line and every following indented or blank line.
    std::size_t j = i + 1;
    while (j < lines.size() && (lines[j].empty() || lines[j][0] == ' ')) ++j;
    if (key == "efficiency") {
      int entry_indent = -1;
      bool keep_entry = false;
      for (std::size_t k = i + 1; k < j; ++k) {
        const int indent = indent_of(lines[k]);
        if (indent < 0 || lines[k].compare(static_cast<std::size_t>(indent), 1, "#") == 0)
          continue;  // blank or comment: regenerated
        if (entry_indent < 0) entry_indent = indent;
        if (indent == entry_indent) keep_entry = !fitted.count(key_of(lines[k]));
        if (keep_entry) carried.push_back(lines[k]);
      }
    }
    i = j;
  }
  while (!kept.empty() && kept.back().empty()) kept.pop_back();

  std::string out;
  for (const auto& l : kept) out += l + "\n";
  out += "calibrated: true\n";
  out += fmt::format("calibration: {}\n", quoted_yaml(calibration));
  out += "efficiency:\n";
  out += "  # Fitted by `amdahl calibrate` (docs/calibration.md); held-out error: every fifth\n";
  out += "  # shape, never used in the fit. Entries without a fit are kept from the base.\n";
  for (const auto& l : carried) out += l + "\n";
  for (std::size_t i = 0; i < fits.size(); ++i)
    out += "  " + efficiency_entry(fits[i], entry_sources.at(i)) + "\n";
  return out;
}

std::string read_text_file(const std::string& path) {
  check_input_file(path, kMaxTextInputBytes, "file");  // a regular file, an input of the run
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot read file", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace amdahl::calibrate
