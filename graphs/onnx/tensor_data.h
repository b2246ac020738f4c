#pragma once
// Constants from ONNX TensorProtos (initializers, Constant nodes): shape, element type and,
// for tensors up to kKnownElements, the elements (inline fields, raw_data, or an external
// data file next to the model, as onnx.save_model(save_as_external_data=True) writes).

#include <onnx/onnx_pb.h>

#include <string>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {

// Larger constants are weights: only their shapes matter.
inline constexpr std::int64_t kKnownElements = 1 << 16;

// `model_dir` resolves external data; `where` locates errors. Throws UserError for an
// unsupported element type or external data that cannot be read.
Value constant_value(const ::onnx::TensorProto& t, const std::string& model_dir,
                     const std::string& where);

}  // namespace amdahl::graphs::onnx
