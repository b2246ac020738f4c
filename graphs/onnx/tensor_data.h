#pragma once
// Constants from ONNX TensorProtos (initializers, Constant nodes): shape, element type and,
// for tensors up to kMaxFoldedElements (import_context.h), the elements (inline fields, raw_data,
// or an external data file next to the model, as onnx.save_model(save_as_external_data=True)
// writes).

#include <onnx/onnx_pb.h>

#include <string>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {

// `model` is the model file: external data is read from its folder, under ONNX's rule (a
// relative location without "..") and amdahl's (util/path_policy.h: the location must resolve,
// symbolic links followed, inside the model's folder or an --allow-path folder). `where`
// locates errors. Throws UserError for an unsupported element type, a negative dim or more
// than 2^63 elements, or external data that cannot or may not be read.
Value constant_value(const ::onnx::TensorProto& t, const std::string& model,
                     const std::string& where);

}  // namespace amdahl::graphs::onnx
