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
// two zoo networks claim one PyTorch name. Read once per zoo folder in a process.
const std::map<std::string, std::string>& zoo_pytorch_names();
// The zoo network that is the PyTorch definition `pytorch_name`. Throws UserError
// "`where`: no zoo network is the PyTorch definition 'X' (the zoo's pytorch_name values: ...)"
// with the nearest name when none is (`where` names the file, line and column).
const std::string& zoo_network_for_pytorch(const std::string& pytorch_name,
                                           const std::string& where);

// Named suites of zoo networks (`amdahl report --suite`), name -> members:
//   fathom        the Fathom workloads as built (../shared/data/fathom-workloads.md)
//   cnn           the torchvision convolutional networks
//   transformers  BERT-base and GPT-2 small
const std::map<std::string, std::vector<std::string>>& zoo_suites();
// The members of suite `name`. Throws UserError for an unknown suite, listing the suites.
const std::vector<std::string>& zoo_suite(const std::string& name);

}  // namespace amdahl::graphs
