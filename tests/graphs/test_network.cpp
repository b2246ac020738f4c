#include "test_network.h"

#include "graphs/layer_kind.h"

namespace amdahl::graphs::test {

Layer with_defaults(Layer l) {
  Network net;
  net.name = "t";
  LayerDecl decl;
  decl.name = l.name;
  decl.kind = l.kind;
  net.layers.push_back(decl);
  const BoundNetwork bound = bind_sizes(net, {});
  for (const auto& [k, v] : bound.layers.front().params) l.params.emplace(k, v);
  return l;
}

}  // namespace amdahl::graphs::test
