#pragma once
// The built-in network zoo: graphs/zoo/*.yaml (or $AMDAHL_ZOO).

#include <map>
#include <string>
#include <vector>

#include "graphs/network.h"

namespace amdahl::graphs {

std::string zoo_dir();
std::vector<std::string> zoo_names();  // sorted
// Throws UserError for an unknown name, listing the zoo.
Network load_zoo_network(const std::string& name);
// The zoo networks that are PyTorch definitions, by the name PyTorch measurement sets give
// them (`pytorch_name:`): PyTorch name -> zoo name. Throws UserError naming both files when
// two zoo networks claim one PyTorch name.
std::map<std::string, std::string> zoo_pytorch_names();

}  // namespace amdahl::graphs
