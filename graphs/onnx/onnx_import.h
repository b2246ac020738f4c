#pragma once
// ONNX import: reads a ModelProto (opsets 9 to 17) with the ONNX protobuf library, binds its
// symbolic dims, folds its shape-computing subgraphs to constants and maps every node onto a
// registered layer kind (graphs/layer_kind.h), so an imported network is lowered and costed
// by the same rules as a zoo network.
//
// Sizes: a dim_param NAME is bound by `sizes[NAME]` (--set NAME=VALUE); `sizes["batch"]`
// (--batch) binds "batch", or, when the model has no dim of that name, the symbolic first
// dim of the first graph input (exports name it "batch_size", "N", ...).
// Training: a softmax cross-entropy loss over the last dim of the first graph output is
// appended (with an int64 "labels" input), as the zoo networks end; inference drops it.
// Weights may be initializers (inline or external data) or graph inputs; parameters are
// counted by the layer kinds from their geometry, not from the initializers. A graph input of
// a fixed float shape that feeds only weight slots is a weight (no step input, no per-step
// copy); the BoundNetwork's assumptions say so.

#include <string>
#include <vector>

#include "graphs/expr.h"
#include "graphs/network.h"

namespace amdahl::graphs::onnx {

inline constexpr int kMinOpset = 9;
inline constexpr int kMaxOpset = 17;

// Throws UserError (one line) for an unreadable, truncated or non-ONNX file, an opset
// outside [kMinOpset, kMaxOpset], an unsupported op (naming the op, the node and the
// supported ops), an unbound symbolic dim (naming it and the option that binds it), a
// binding of a size the model does not have, a shape the model's nodes do not agree on, a
// weight that does not fit its input, an index or axis out of range, a malformed node, or a
// shape computation past the fold limits (import_context.h); errors about a node name it.
BoundNetwork import_onnx(const std::string& path, const Bindings& sizes);

// The ONNX op types the importer maps, sorted.
std::vector<std::string> supported_onnx_ops();

}  // namespace amdahl::graphs::onnx
