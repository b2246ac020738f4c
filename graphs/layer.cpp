#include "graphs/layer.h"

#include <fmt/format.h>

#include "util/error.h"

namespace amdahl::graphs {
namespace {
template <typename T>
const T& get(const Layer& layer, const std::string& key, const char* type) {
  const auto it = layer.params.find(key);
  if (it == layer.params.end())
    throw InternalError(fmt::format("layer '{}' has no parameter '{}'", layer.name, key));
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  throw InternalError(fmt::format("layer '{}' parameter '{}' is not {}", layer.name, key, type));
}
}  // namespace

std::int64_t Layer::get_int(const std::string& key) const {
  const auto it = params.find(key);
  if (it != params.end())
    if (const auto* list = std::get_if<std::vector<std::int64_t>>(&it->second);
        list && list->size() == 1)
      return list->front();
  return get<std::int64_t>(*this, key, "an integer");
}

std::vector<std::int64_t> Layer::get_int_list(const std::string& key) const {
  const auto it = params.find(key);
  if (it != params.end())
    if (const auto* v = std::get_if<std::int64_t>(&it->second)) return {*v};
  return get<std::vector<std::int64_t>>(*this, key, "a list of integers");
}

std::vector<std::int64_t> Layer::get_ints(const std::string& key, std::size_t n) const {
  // The common cases with one lookup and one allocation (rules call this per op and per
  // sweep point); anything else, errors included, goes the general way below.
  if (const auto it = params.find(key); it != params.end()) {
    if (const auto* i = std::get_if<std::int64_t>(&it->second))
      return std::vector<std::int64_t>(n, *i);
    if (const auto* list = std::get_if<std::vector<std::int64_t>>(&it->second)) {
      if (list->size() == 1) return std::vector<std::int64_t>(n, list->front());
      if (list->size() == n) return *list;
    }
  }
  std::vector<std::int64_t> v = get_int_list(key);
  if (v.size() == 1) v.resize(n, v.front());
  if (v.size() != n)
    throw UserError(fmt::format("{}: parameter '{}' needs 1 or {} values (got {})", error_prefix(),
                                key, n, v.size()));
  return v;
}

double Layer::get_float(const std::string& key) const {
  const auto it = params.find(key);
  if (it != params.end())
    if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  return get<double>(*this, key, "a number");
}

bool Layer::get_bool(const std::string& key) const { return get<bool>(*this, key, "a boolean"); }

const std::string& Layer::get_string(const std::string& key) const {
  return get<std::string>(*this, key, "a string");
}

std::string Layer::error_prefix() const {
  return fmt::format("{}: layer '{}' ({})", where.str(), name, kind);
}

}  // namespace amdahl::graphs
