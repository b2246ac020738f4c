#include "options.h"

#include <cstddef>
#include <sstream>

namespace amdahl::cudabench {
namespace {

enum class OptionId { kQuick, kOut, kOnly, kDevice, kHelp };

struct OptionSpec {
  OptionId id;
  const char* name;
  const char* value_name;  // nullptr for a flag
  const char* help;
};

constexpr OptionSpec kOptionSpecs[] = {
    {OptionId::kQuick, "--quick", nullptr,
     "fewer shapes and repetitions (under a minute on an H200)"},
    {OptionId::kOut, "--out", "FILE", "write the CSV to FILE instead of stdout"},
    {OptionId::kOnly, "--only", "GROUPS", "comma-separated groups to run (default: all)"},
    {OptionId::kDevice, "--device", "N", "CUDA device index (default 0)"},
    {OptionId::kHelp, "--help", nullptr, "print this help and exit"},
};

const OptionSpec* find_spec(const std::string& name) {
  for (const OptionSpec& spec : kOptionSpecs) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) throw UsageError("--only: empty group name in '" + text + "'");
    items.push_back(item);
  }
  if (items.empty()) throw UsageError("--only: no group named");
  return items;
}

int parse_device(const std::string& text) {
  std::size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 0) {
    throw UsageError("--device: expected a device index >= 0 (got '" + text + "')");
  }
  return value;
}

}  // namespace

Options parse_options(int argc, const char* const* argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    const OptionSpec* spec = find_spec(name);
    if (spec == nullptr) throw UsageError("unknown option '" + argument + "' (see --help)");

    std::string value;
    if (spec->value_name == nullptr) {
      if (equals != std::string::npos)
        throw UsageError(name + " takes no value (got '" + argument + "')");
    } else if (equals != std::string::npos) {
      value = argument.substr(equals + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError(name + " needs a value " + spec->value_name);
    }

    switch (spec->id) {
      case OptionId::kQuick:
        options.quick = true;
        break;
      case OptionId::kHelp:
        options.help = true;
        break;
      case OptionId::kOut:
        if (value.empty()) throw UsageError("--out: empty file name");
        options.out_path = value;
        break;
      case OptionId::kOnly:
        options.only = split_list(value);
        break;
      case OptionId::kDevice:
        options.device = parse_device(value);
        break;
    }
  }
  return options;
}

std::string usage_text(const std::string& program, const std::vector<std::string>& groups) {
  std::ostringstream text;
  text << "usage: " << program << " [options]\n\n"
       << "CUDA microbenchmarks for amdahl; writes amdahl measurements v1 CSV.\n\noptions:\n";
  for (const OptionSpec& spec : kOptionSpecs) {
    std::string left = spec.name;
    if (spec.value_name != nullptr) left += std::string(" ") + spec.value_name;
    text << "  " << left << std::string(left.size() < 16 ? 16 - left.size() : 1, ' ') << spec.help
         << '\n';
  }
  text << "\ngroups:\n";
  for (const std::string& group : groups) text << "  " << group << '\n';
  return text.str();
}

}  // namespace amdahl::cudabench
