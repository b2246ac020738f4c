#pragma once
// Constants from ONNX TensorProtos (initializers, Constant nodes): shape, element type and,
// for tensors up to kMaxFoldedElements (import_context.h), the elements (inline fields, raw_data,
// or an external data file next to the model, as onnx.save_model(save_as_external_data=True)
// writes).

#include <onnx/onnx_pb.h>

#include <string>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {

// `model_dir` resolves external data; `where` locates errors. Throws UserError for an
// unsupported element type, a negative dim or more than 2^63 elements, or external data that
// cannot be read.
Value constant_value(const ::onnx::TensorProto& t, const std::string& model_dir,
                     const std::string& where);

}  // namespace amdahl::graphs::onnx
