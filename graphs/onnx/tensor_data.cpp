#include "graphs/onnx/tensor_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/input_file.h"
#include "util/input_log.h"
#include "util/suggest.h"

namespace amdahl::graphs::onnx {
namespace {

template <typename T>
std::vector<double> from_bytes(const std::string& raw, std::int64_t n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    out[static_cast<std::size_t>(i)] = static_cast<double>(v);
  }
  return out;
}

std::optional<std::vector<double>> decode_raw(int type, const std::string& raw, std::int64_t n) {
  using T = ::onnx::TensorProto;
  switch (type) {
    case T::FLOAT:
      return from_bytes<float>(raw, n);
    case T::DOUBLE:
      return from_bytes<double>(raw, n);
    case T::INT64:
      return from_bytes<std::int64_t>(raw, n);
    case T::UINT64:
      return from_bytes<std::uint64_t>(raw, n);
    case T::INT32:
      return from_bytes<std::int32_t>(raw, n);
    case T::UINT32:
      return from_bytes<std::uint32_t>(raw, n);
    case T::INT16:
      return from_bytes<std::int16_t>(raw, n);
    case T::UINT16:
      return from_bytes<std::uint16_t>(raw, n);
    case T::INT8:
      return from_bytes<std::int8_t>(raw, n);
    case T::UINT8:
    case T::BOOL:
      return from_bytes<std::uint8_t>(raw, n);
    default:
      return std::nullopt;  // fp16/bf16 constants are never shapes
  }
}

std::string read_external(const ::onnx::TensorProto& t, const std::string& model_dir,
                          std::int64_t bytes, const std::string& where) {
  std::string location;
  std::int64_t offset = 0;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") {
      const std::string& v = kv.value();
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), offset);
      if (ec != std::errc() || end != v.data() + v.size())
        throw UserError(fmt::format("{}: the external data of '{}' has offset '{}', not an integer",
                                    where, excerpt(t.name()), excerpt(v)));
    }
  }
  // The ONNX external-data rule: a location relative to the model's directory, without "..".
  const std::filesystem::path rel(location);
  const bool escapes = std::any_of(rel.begin(), rel.end(),
                                   [](const std::filesystem::path& part) { return part == ".."; });
  if (location.empty() || rel.is_absolute() || rel.has_root_name() || escapes)
    throw UserError(fmt::format(
        "{}: the external data of '{}' is at '{}'; ONNX requires a location relative to the "
        "model's directory, without '..'",
        where, excerpt(t.name()), excerpt(location)));
  const std::string path = (std::filesystem::path(model_dir) / rel).string();
  check_input_file(path, kMaxModelInputBytes, "external data");
  if (offset < 0 || bytes < 0)
    throw UserError(fmt::format("{}: the external data of '{}' has a negative offset or length",
                                where, excerpt(t.name())));
  std::ifstream in(path, std::ios::binary);
  std::string raw(static_cast<std::size_t>(bytes), '\0');
  if (!in || !in.seekg(offset) || !in.read(raw.data(), bytes))
    throw UserError(
        fmt::format("{}: cannot read the external data of '{}' from {}", where, t.name(), path));
  note_input(path, raw);
  return raw;
}

}  // namespace

Value constant_value(const ::onnx::TensorProto& t, const std::string& model_dir,
                     const std::string& where) {
  Value v;
  v.info.dtype = onnx_dtype(t.data_type(), fmt::format("{}: tensor '{}'", where, t.name()));
  for (std::int64_t d : t.dims()) v.info.shape.push_back(d);
  std::int64_t n = 0;
  try {
    n = v.info.elements();
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: tensor '{}': {}", where, excerpt(t.name()), e.what()));
  }
  if (n > kMaxFoldedElements) return v;
  using T = ::onnx::TensorProto;
  std::optional<std::vector<double>> data;
  if (t.data_location() == T::EXTERNAL) {
    data = decode_raw(t.data_type(),
                      read_external(t, model_dir, n * dtype_bytes(v.info.dtype), where), n);
  } else if (t.has_raw_data()) {
    if (static_cast<std::int64_t>(t.raw_data().size()) >= n * dtype_bytes(v.info.dtype))
      data = decode_raw(t.data_type(), t.raw_data(), n);
  } else if (t.float_data_size() == n) {
    data = std::vector<double>(t.float_data().begin(), t.float_data().end());
  } else if (t.int64_data_size() == n) {
    data = std::vector<double>(t.int64_data().begin(), t.int64_data().end());
  } else if (t.int32_data_size() == n) {
    data = std::vector<double>(t.int32_data().begin(), t.int32_data().end());
  } else if (t.double_data_size() == n) {
    data = std::vector<double>(t.double_data().begin(), t.double_data().end());
  }
  if (data) v.set_data(std::move(*data));
  return v;
}

}  // namespace amdahl::graphs::onnx
