#include "graphs/layer.h"

#include <fmt/format.h>

#include "util/error.h"

namespace amdahl::graphs {
namespace {
template <typename T>
const T& get(const Layer& layer, std::string_view key, const char* type) {
  const ParamValue* value = layer.param(key);
  if (!value) throw InternalError(fmt::format("layer '{}' has no parameter '{}'", layer.name, key));
  if (const T* v = std::get_if<T>(value)) return *v;
  throw InternalError(fmt::format("layer '{}' parameter '{}' is not {}", layer.name, key, type));
}
}  // namespace

std::int64_t Layer::get_int(std::string_view key) const {
  if (const ParamValue* value = param(key)) {
    if (const auto* i = std::get_if<std::int64_t>(value)) return *i;
    if (const auto* list = std::get_if<IntList>(value); list && list->size() == 1)
      return list->front();
  }
  return get<std::int64_t>(*this, key, "an integer");
}

IntList Layer::get_int_list(std::string_view key) const {
  if (const ParamValue* value = param(key))
    if (const auto* v = std::get_if<std::int64_t>(value)) return {*v};
  return get<IntList>(*this, key, "a list of integers");
}

IntList Layer::get_ints(std::string_view key, std::size_t n) const {
  // One lookup and no allocation: rules call this per op and per sweep point.
  const ParamValue* value = param(key);
  if (const auto* i = value ? std::get_if<std::int64_t>(value) : nullptr) return IntList(n, *i);
  const auto* given = value ? std::get_if<IntList>(value) : nullptr;
  const IntList& list = given ? *given : get<IntList>(*this, key, "a list of integers");
  if (list.size() == 1) return IntList(n, list.front());
  if (list.size() != n)
    throw UserError(fmt::format("{}: parameter '{}' needs 1 or {} values (got {})", error_prefix(),
                                key, n, list.size()));
  return IntList(list.begin(), list.end());
}

double Layer::get_float(std::string_view key) const {
  if (const ParamValue* value = param(key)) {
    if (const auto* f = std::get_if<double>(value)) return *f;
    if (const auto* i = std::get_if<std::int64_t>(value)) return static_cast<double>(*i);
  }
  return get<double>(*this, key, "a number");
}

bool Layer::get_bool(std::string_view key) const { return get<bool>(*this, key, "a boolean"); }

const std::string& Layer::get_string(std::string_view key) const {
  return get<std::string>(*this, key, "a string");
}

std::string Layer::error_prefix() const {
  return fmt::format("{}: layer '{}' ({})", where.str(), name, kind);
}

}  // namespace amdahl::graphs
