#pragma once
// The built-in network zoo: graphs/zoo/*.yaml (or $AMDAHL_ZOO).

#include <string>
#include <vector>

#include "graphs/network.h"

namespace amdahl::graphs {

std::string zoo_dir();
std::vector<std::string> zoo_names();  // sorted
// Throws UserError for an unknown name, listing the zoo.
Network load_zoo_network(const std::string& name);

}  // namespace amdahl::graphs
