#include "hw/schema.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {

Field string_field(std::string key, std::string description) {
  return Field{
      .key = std::move(key), .type = FieldType::kString, .description = std::move(description)};
}
Field int_field(std::string key, std::string description) {
  // An integer is stored in an int: larger values are an error, never truncated.
  return Field{.key = std::move(key),
               .type = FieldType::kInt,
               .description = std::move(description),
               .max_value = std::numeric_limits<int>::max()};
}
Field number_field(std::string key, std::string description) {
  return Field{
      .key = std::move(key), .type = FieldType::kNumber, .description = std::move(description)};
}
Field bool_field(std::string key, std::string description) {
  return Field{
      .key = std::move(key), .type = FieldType::kBool, .description = std::move(description)};
}
Field quantity_field(std::string key, Dimension d, std::string description) {
  return Field{.key = std::move(key),
               .type = FieldType::kQuantity,
               .dimension = d,
               .description = std::move(description)};
}
Field enum_field(std::string key, std::vector<std::string> choices, std::string description) {
  return Field{.key = std::move(key),
               .type = FieldType::kEnum,
               .description = std::move(description),
               .choices = std::move(choices)};
}
Field map_field(std::string key, std::vector<Field> children, std::string description) {
  return Field{.key = std::move(key),
               .type = FieldType::kMap,
               .description = std::move(description),
               .children = std::move(children)};
}
Field list_field(std::string key, std::vector<Field> children, std::string description) {
  return Field{.key = std::move(key),
               .type = FieldType::kList,
               .description = std::move(description),
               .children = std::move(children)};
}
Field string_list_field(std::string key, std::string description) {
  return Field{
      .key = std::move(key), .type = FieldType::kStringList, .description = std::move(description)};
}
Field keyed_map_field(std::string key, std::vector<std::string> keys, std::vector<Field> children,
                      std::string description) {
  return Field{.key = std::move(key),
               .type = FieldType::kKeyedMap,
               .description = std::move(description),
               .choices = std::move(keys),
               .children = std::move(children)};
}

const Value& Record::value(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end())
    throw InternalError(fmt::format("record '{}' has no value '{}'", path_, key));
  return it->second;
}

std::int64_t Record::integer(const std::string& key) const {
  return static_cast<std::int64_t>(std::llround(value(key).number));
}

const Record& Record::map(const std::string& key) const {
  const Value& v = value(key);
  if (v.records.empty()) throw InternalError(fmt::format("'{}.{}' is not a map", path_, key));
  return v.records.front();
}

std::string Record::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

double Record::number_or(const std::string& key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

std::vector<Record::Defaulted> Record::defaulted_paths() const {
  std::vector<Defaulted> out;
  for (const auto& [key, v] : values_) {
    const std::string here = path_.empty() ? key : path_ + "." + key;
    if (v.defaulted) out.push_back({here, v.text});
    for (const auto& r : v.records) {
      auto nested = r.defaulted_paths();
      out.insert(out.end(), nested.begin(), nested.end());
    }
  }
  return out;
}

namespace {

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string type_rule(const Field& f) {
  switch (f.type) {
    case FieldType::kString:
      return "expected a string";
    case FieldType::kInt:
      return "expected an integer";
    case FieldType::kNumber:
      return "expected a number";
    case FieldType::kBool:
      return "expected true or false";
    case FieldType::kQuantity:
      return fmt::format("expected {} such as '{}'", dimension_name(f.dimension),
                         dimension_example(f.dimension));
    case FieldType::kEnum:
      return fmt::format("expected one of: {}", join(f.choices));
    case FieldType::kMap:
      return "expected a map";
    case FieldType::kList:
      return "expected a list of maps";
    case FieldType::kStringList:
      return "expected a list of strings";
    case FieldType::kKeyedMap:
      return fmt::format("expected a map with keys from: {}", join(f.choices));
  }
  return "?";
}

// False (after a diagnostic) when `v` is outside the field's declared range.
bool check_range(const Field& f, const Value& v, const std::string& path, Diagnostics& diags) {
  const bool below = f.min_exclusive ? v.number <= f.min_value : v.number < f.min_value;
  const bool above = v.number > f.max_value;
  if (!below && !above) return true;
  const bool two_sided = !std::isinf(f.min_value) && !std::isinf(f.max_value) &&
                         f.max_value != std::numeric_limits<int>::max();
  std::string rule;
  if (f.max_value == 1 && f.min_value == 0 && f.min_exclusive)
    rule = "must be a fraction in (0, 1]";
  else if (two_sided)
    rule = fmt::format("must be within [{}, {}]", f.min_value, f.max_value);
  else if (above)
    rule = fmt::format("must be at most {}", f.max_value);
  else if (f.min_exclusive && f.min_value == 0)
    rule = "must be positive";
  else if (f.min_value == 0)
    rule = "must not be negative";
  else
    rule = fmt::format("must be at least {}", f.min_value);
  diags.add(v.where, path, rule, fmt::format("'{}'", excerpt(v.text)));
  return false;
}

}  // namespace

bool check_value(const Field& f, const Value& v, const std::string& path, Diagnostics& diags) {
  if (!check_range(f, v, path, diags)) return false;
  if (f.type != FieldType::kQuantity) return true;
  const DimensionRange range = dimension_range(f.dimension);
  if (v.number >= range.min && v.number <= range.max) return true;
  diags.add(
      v.where, path,
      fmt::format("outside the range amdahl models for {}: [{}, {}]", dimension_name(f.dimension),
                  format_quantity(range.min, f.dimension), format_quantity(range.max, f.dimension)),
      fmt::format("'{}'", excerpt(v.text)));
  return false;
}

namespace {

// Reads a scalar field from a present node. Returns false (after a diagnostic) when invalid.
bool read_scalar(const Field& f, const YAML::Node& node, Value& v, const std::string& path,
                 Diagnostics& diags) {
  if (!node.IsScalar()) {
    diags.add(v.where, path, type_rule(f), describe_node(node));
    return false;
  }
  v.text = node.Scalar();
  switch (f.type) {
    case FieldType::kString:
      return true;
    case FieldType::kEnum:
      for (const auto& c : f.choices)
        if (c == v.text) return true;
      diags.add(v.where, path, fmt::format("unknown value; {}", suggestion(v.text, f.choices)),
                fmt::format("'{}'", excerpt(v.text)));
      return false;
    case FieldType::kBool:
      if (v.text == "true" || v.text == "false") {
        v.boolean = v.text == "true";
        return true;
      }
      break;
    case FieldType::kInt:
    case FieldType::kNumber: {
      char* end = nullptr;
      v.number = std::strtod(v.text.c_str(), &end);
      const bool whole = end != v.text.c_str() && *end == '\0' && std::isfinite(v.number);
      const bool integral = f.type != FieldType::kInt || v.number == std::floor(v.number);
      if (whole && integral) {
        check_range(f, v, path, diags);
        return true;
      }
      break;
    }
    case FieldType::kQuantity:
      try {
        const Quantity q = parse_quantity(v.text);
        if (q.dimension == f.dimension) {
          v.number = q.value;
          return check_value(f, v, path, diags);
        }
        diags.add(v.where, path, type_rule(f),
                  fmt::format("{} '{}'", dimension_name(q.dimension), excerpt(v.text)));
      } catch (const UserError&) {
        diags.add(v.where, path, type_rule(f), fmt::format("'{}'", excerpt(v.text)));
      }
      return false;
    default:
      break;
  }
  diags.add(v.where, path, type_rule(f), fmt::format("'{}'", excerpt(v.text)));
  return false;
}

Value read_value(const YamlFile& file, const YAML::Node& node, const Field& f,
                 const std::string& path, Diagnostics& diags) {
  Value v;
  v.type = f.type;
  v.where = file.where(node);
  switch (f.type) {
    case FieldType::kMap:
      if (!node.IsMap()) {
        diags.add(v.where, path, type_rule(f), describe_node(node));
        break;
      }
      v.records.push_back(read_record(file, node, f.children, path, diags));
      break;
    case FieldType::kList:
      if (!node.IsSequence()) {
        diags.add(v.where, path, type_rule(f), describe_node(node));
        break;
      }
      for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string item_path = fmt::format("{}[{}]", path, i);
        if (!node[i].IsMap()) {
          diags.add(file.where(node[i]), item_path, "expected a map", describe_node(node[i]));
          continue;
        }
        v.records.push_back(read_record(file, node[i], f.children, item_path, diags));
      }
      break;
    case FieldType::kStringList:
      if (!node.IsSequence()) {
        diags.add(v.where, path, type_rule(f), describe_node(node));
        break;
      }
      for (std::size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsScalar()) {
          diags.add(file.where(node[i]), fmt::format("{}[{}]", path, i), "expected a string",
                    describe_node(node[i]));
          continue;
        }
        v.strings.push_back(node[i].Scalar());
      }
      break;
    case FieldType::kKeyedMap:
      if (!node.IsMap()) {
        diags.add(v.where, path, type_rule(f), describe_node(node));
        break;
      }
      for (const auto& item : node) {
        const std::string key = item.first.as<std::string>();
        const std::string item_path = join_path(path, key);
        bool known = false;
        for (const auto& c : f.choices) known = known || c == key;
        if (!known) {
          diags.add(file.where(item.first), item_path,
                    fmt::format("unknown key; {}", suggestion(key, f.choices)),
                    fmt::format("'{}'", excerpt(key)));
          continue;
        }
        if (!item.second.IsMap()) {
          diags.add(file.where(item.second), item_path, "expected a map",
                    describe_node(item.second));
          continue;
        }
        Record r = read_record(file, item.second, f.children, item_path, diags);
        r.set_name(key);
        v.records.push_back(std::move(r));
      }
      break;
    default:
      read_scalar(f, node, v, path, diags);
  }
  return v;
}

}  // namespace

Record read_record(const YamlFile& file, const YAML::Node& node, const std::vector<Field>& fields,
                   const std::string& path, Diagnostics& diags) {
  Record record({}, path, file.where(node));
  std::vector<std::string> known;
  for (const auto& f : fields) known.push_back(f.key);
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    bool is_known = false;
    for (const auto& k : known) is_known = is_known || k == key;
    if (!is_known) {
      diags.add(file.where(item.first), join_path(path, key),
                fmt::format("unknown key; {}", suggestion(key, known)),
                fmt::format("'{}'", excerpt(key)));
    }
  }
  for (const auto& f : fields) {
    const std::string key_path = join_path(path, f.key);
    const YAML::Node child = node[f.key];
    if (child && !child.IsNull()) {
      record.set(f.key, read_value(file, child, f, key_path, diags));
    } else if (!f.default_text.empty()) {
      Value v;
      v.type = f.type;
      v.where = file.where(node);
      v.defaulted = true;
      Diagnostics internal;
      read_scalar(f, YAML::Node(f.default_text), v, key_path, internal);
      if (!internal.empty())
        throw InternalError(fmt::format("schema default of {} is invalid: {}", key_path,
                                        internal.items().front().str()));
      v.where = file.where(node);
      v.defaulted = true;
      record.set(f.key, v);
    } else if (f.required) {
      diags.add(file.where(node), key_path,
                fmt::format("required key is missing ({})", f.description));
    }
  }
  return record;
}

std::string describe_schema(const std::vector<Field>& fields, int indent) {
  std::string out;
  const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  for (const auto& f : fields) {
    std::string kind;
    switch (f.type) {
      case FieldType::kQuantity:
        kind = std::string(dimension_name(f.dimension));
        break;
      case FieldType::kEnum:
        kind = "one of " + join(f.choices, "|");
        break;
      case FieldType::kKeyedMap:
        kind = "map keyed by " + join(f.choices, "|");
        break;
      case FieldType::kList:
        kind = "list";
        break;
      case FieldType::kStringList:
        kind = "list of strings";
        break;
      case FieldType::kMap:
        kind = "map";
        break;
      case FieldType::kInt:
        kind = "integer";
        break;
      case FieldType::kNumber:
        kind = "number";
        break;
      case FieldType::kBool:
        kind = "true|false";
        break;
      case FieldType::kString:
        kind = "string";
        break;
    }
    std::string status = f.required
                             ? "required"
                             : (f.default_text.empty() ? "optional" : "default " + f.default_text);
    out += fmt::format("{}{:<{}} {} [{}; {}]\n", pad, f.key + ":",
                       24 - indent * 2 > 8 ? 24 - indent * 2 : 8, f.description, kind, status);
    if (!f.children.empty()) out += describe_schema(f.children, indent + 1);
  }
  return out;
}

}  // namespace amdahl::hw
