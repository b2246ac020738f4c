#pragma once
// Tensor shapes and element types.

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdahl::graphs {

enum class DType : std::uint8_t { kF32, kF16, kBf16, kF64, kI64, kI32, kI8, kBool };

std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
std::vector<std::string> dtype_names();
int dtype_bytes(DType t);

// Dimensions, outermost first. Up to four in place (NCHW and below), so that the shapes an
// operator and a tensor carry cost no allocation.
using Shape = boost::container::small_vector<std::int64_t, 4>;

std::int64_t elements(const Shape& s);
std::string shape_str(const Shape& s);  // "[64, 3, 224, 224]"

struct TensorInfo {
  Shape shape;
  DType dtype = DType::kF32;

  std::int64_t elements() const { return graphs::elements(shape); }
  double bytes() const { return static_cast<double>(elements()) * dtype_bytes(dtype); }
};

}  // namespace amdahl::graphs
