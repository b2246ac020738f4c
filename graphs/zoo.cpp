#include "graphs/zoo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

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

namespace {

std::map<std::string, std::string> read_pytorch_names() {
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

}  // namespace

const std::map<std::string, std::string>& zoo_pytorch_names() {
  // Read once per zoo folder: every zoo network is loaded to find its pytorch_name, and each
  // measured-runs file read needs the map.
  static std::mutex mutex;
  static std::map<std::string, std::map<std::string, std::string>> by_zoo;
  const std::lock_guard lock(mutex);
  const std::string dir = zoo_dir();
  if (const auto it = by_zoo.find(dir); it != by_zoo.end()) return it->second;
  return by_zoo.emplace(dir, read_pytorch_names()).first->second;
}

const std::string& zoo_network_for_pytorch(const std::string& pytorch_name,
                                           const std::string& where) {
  const auto& names = zoo_pytorch_names();
  if (const auto it = names.find(pytorch_name); it != names.end()) return it->second;
  std::vector<std::string> known;
  for (const auto& [name, zoo] : names) known.push_back(name);
  throw UserError(fmt::format(
      "{}: no zoo network is the PyTorch definition '{}' (the zoo's pytorch_name values: {}; {})",
      where, pytorch_name, join(known), suggestion(pytorch_name, known)));
}

const std::map<std::string, std::vector<std::string>>& zoo_suites() {
  static const std::map<std::string, std::vector<std::string>> kSuites{
      {"fathom", {"seq2seq", "memnet", "speech", "autoenc", "residual", "vgg", "alexnet", "deepq"}},
      {"cnn",
       {"alexnet-tv", "resnet18", "resnet50", "resnet152", "vgg16", "inception-v3",
        "mobilenet-v2"}},
      {"transformers", {"bert-base", "gpt2-small"}},
  };
  return kSuites;
}

const std::vector<std::string>& zoo_suite(const std::string& name) {
  const auto& suites = zoo_suites();
  const auto it = suites.find(name);
  if (it == suites.end()) {
    std::vector<std::string> names;
    for (const auto& [n, members] : suites) names.push_back(n);
    throw UserError(fmt::format("unknown suite '{}'; {}", name, suggestion(name, names)));
  }
  return it->second;
}

}  // namespace amdahl::graphs
