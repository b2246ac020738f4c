#pragma once
// Builds small bound networks in code for tests.

#include <initializer_list>
#include <string>

#include "graphs/network.h"

namespace amdahl::graphs::test {

inline Layer layer(std::string name, std::string kind, std::vector<std::string> inputs,
                   ParamMap params) {
  Layer l;
  l.name = std::move(name);
  l.kind = std::move(kind);
  l.inputs = std::move(inputs);
  l.params = std::move(params);
  l.where = SourceLocation{"test", 1, 1};
  return l;
}

// Parameters with the kind's defaults filled in, as bind() would.
Layer with_defaults(Layer l);

}  // namespace amdahl::graphs::test
