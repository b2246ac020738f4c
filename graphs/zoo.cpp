#include "graphs/zoo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::graphs {
namespace fs = std::filesystem;

std::string zoo_dir() {
  if (const char* env = std::getenv("AMDAHL_ZOO"); env && *env) return env;
  return AMDAHL_ZOO_DIR;
}

std::vector<std::string> zoo_names() {
  std::vector<std::string> names;
  if (!fs::is_directory(zoo_dir())) return names;
  for (const auto& entry : fs::directory_iterator(zoo_dir()))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Network load_zoo_network(const std::string& name) {
  const auto names = zoo_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw UserError(fmt::format("unknown model '{}'; {}", name, suggestion(name, names)));
  return load_network((fs::path(zoo_dir()) / (name + ".yaml")).string());
}

std::map<std::string, std::string> zoo_pytorch_names() {
  std::map<std::string, std::string> by_pytorch_name;
  for (const auto& name : zoo_names()) {
    const Network net = load_zoo_network(name);
    if (net.pytorch_name.empty()) continue;
    const auto [it, inserted] = by_pytorch_name.emplace(net.pytorch_name, name);
    if (!inserted)
      throw UserError(
          fmt::format("{}: pytorch_name '{}' is already the PyTorch name of zoo network "
                      "'{}'; one PyTorch definition is one zoo network",
                      net.file, net.pytorch_name, it->second));
  }
  return by_pytorch_name;
}

}  // namespace amdahl::graphs
