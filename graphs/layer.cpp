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

std::string ParamDecl::range_rule() const {
  const bool lower = std::isfinite(min_value), upper = std::isfinite(max_value);
  if (lower && upper) return fmt::format("must be in [{:g}, {:g}]", min_value, max_value);
  if (lower) return fmt::format("must be >= {:g}", min_value);
  if (upper) return fmt::format("must be <= {:g}", max_value);
  return "must be finite";
}

void check_param_ranges(const std::vector<ParamDecl>& decls, const Layer& layer) {
  for (const ParamDecl& d : decls) {
    const ParamValue* value = layer.param(d.name);
    if (!value) continue;
    auto fail = [&](double v) {
      throw UserError(fmt::format("parameter '{}': {} (got {:g})", d.name, d.range_rule(), v));
    };
    if (const auto* i = std::get_if<std::int64_t>(value)) {
      if (!d.in_range(static_cast<double>(*i))) fail(static_cast<double>(*i));
    } else if (const auto* f = std::get_if<double>(value)) {
      if (!d.in_range(*f)) fail(*f);
    } else if (const auto* list = std::get_if<IntList>(value)) {
      for (const std::int64_t v : *list)
        if (!d.in_range(static_cast<double>(v))) fail(static_cast<double>(v));
    }
  }
}

}  // namespace amdahl::graphs
