#pragma once
// Builds small ONNX models in memory for the importer's tests: graph inputs (fixed or
// symbolic dims), initializers, nodes with attributes, saved to the process's scratch directory;
// and the helpers the tests share (the error an import throws, an op of a lowering).

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "graphs/lower.h"
#include "graphs/onnx/onnx_import.h"
#include "scratch_dir.h"
#include "util/error.h"

namespace amdahl::graphs::test {

struct ModelBuilder {
  ::onnx::ModelProto model;
  ::onnx::GraphProto* g;

  explicit ModelBuilder(int opset = 14) {
    model.set_ir_version(8);
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = model.mutable_graph();
    g->set_name("test");
  }
  // dims: a number, or a symbolic name.
  void input(const std::string& name, const std::vector<std::string>& dims,
             int type = ::onnx::TensorProto::FLOAT) {
    auto* in = g->add_input();
    in->set_name(name);
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (const auto& d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-')
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
  }
  // A float initializer of zeros, or an int64 one holding `ints`.
  void initializer(const std::string& name, const IntList& dims, const IntList& ints = {}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    for (auto d : dims) t->add_dims(d);
    if (ints.empty()) {
      t->set_data_type(::onnx::TensorProto::FLOAT);
      std::int64_t n = 1;
      for (auto d : dims) n *= d;
      for (std::int64_t i = 0; i < n; ++i) t->add_float_data(0.0f);
    } else {
      t->set_data_type(::onnx::TensorProto::INT64);
      for (auto v : ints) t->add_int64_data(v);
    }
  }
  // A float initializer holding `values` (a scalar when dims is empty).
  void floats(const std::string& name, const IntList& dims, const std::vector<float>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    for (auto d : dims) t->add_dims(d);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (float v : values) t->add_float_data(v);
  }
  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                          const std::vector<std::string>& out, const std::string& name = {}) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + std::to_string(g->node_size()) : name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  std::string save(const std::string& file) const {
    const std::string path = amdahl::test::scratch_file(file);
    std::ofstream f(path, std::ios::binary);
    model.SerializeToOstream(&f);
    return path;
  }
};

inline void set_ints(::onnx::NodeProto* n, const char* name, const IntList& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}
inline void set_int(::onnx::NodeProto* n, const char* name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_string(::onnx::NodeProto* n, const char* name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

// The UserError importing `path` throws, or "no error".
inline std::string import_error(const std::string& path, const Bindings& sizes = {}) {
  try {
    graphs::onnx::import_onnx(path, sizes);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// The forward op of the first layer of `kind` in a lowering.
inline const Operator& forward_op(const LoweredNetwork& lowered, const std::string& kind) {
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    if (lowered.graph.op(id).kind == kind && lowered.graph.op(id).phase == Phase::kForward)
      return lowered.graph.op(id);
  FAIL("no forward op of kind " << kind);
  throw;
}

}  // namespace amdahl::graphs::test
