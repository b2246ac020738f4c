#pragma once
// A schema declares each key of a YAML input once: its type, unit, whether it is required
// or its default, its allowed values and a description. The same declaration drives
// parsing (into a Record), validation (all violations collected, each located), unknown-key
// errors with "did you mean", and `amdahl describe hw`.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "hw/units.h"
#include "util/diagnostics.h"
#include "util/yaml_file.h"

namespace amdahl::hw {

enum class FieldType {
  kString,
  kInt,
  kNumber,
  kBool,
  kQuantity,    // "<number> <unit>" of a given Dimension
  kEnum,        // one of `choices`
  kMap,         // fixed keys: `children`
  kList,        // list of maps, each with keys `children`
  kStringList,  // list of strings
  kKeyedMap,    // map whose keys are from `choices`; each value a map with keys `children`
};

struct Field {
  std::string key;
  FieldType type = FieldType::kString;
  Dimension dimension = Dimension::kDimensionless;
  bool required = false;
  std::string default_text;  // applied when absent; empty = no default
  std::string description;
  std::vector<std::string> choices;
  std::vector<Field> children;
  double min_value = -std::numeric_limits<double>::infinity();
  double max_value = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;

  // Builders, so declarations read as one line each.
  Field& req() {
    required = true;
    return *this;
  }
  Field& def(std::string text) {
    default_text = std::move(text);
    return *this;
  }
  Field& positive() {
    min_value = 0;
    min_exclusive = true;
    return *this;
  }
  Field& fraction() {
    min_value = 0;
    min_exclusive = true;
    max_value = 1;
    return *this;
  }
  Field& non_negative() {
    min_value = 0;
    return *this;
  }
  Field& at_least(double v) {
    min_value = v;
    return *this;
  }
  Field& within(double lo, double hi) {  // [lo, hi]
    min_value = lo;
    max_value = hi;
    return *this;
  }
};

Field string_field(std::string key, std::string description);
Field int_field(std::string key, std::string description);
Field number_field(std::string key, std::string description);
Field bool_field(std::string key, std::string description);
Field quantity_field(std::string key, Dimension d, std::string description);
Field enum_field(std::string key, std::vector<std::string> choices, std::string description);
Field map_field(std::string key, std::vector<Field> children, std::string description);
Field list_field(std::string key, std::vector<Field> children, std::string description);
Field string_list_field(std::string key, std::string description);
Field keyed_map_field(std::string key, std::vector<std::string> keys, std::vector<Field> children,
                      std::string description);

class Record;

// One parsed value; which member is meaningful depends on the field's type.
struct Value {
  FieldType type = FieldType::kString;
  double number = 0;                 // kNumber, kQuantity (SI), kInt
  bool boolean = false;              // kBool
  std::string text;                  // kString, kEnum; the raw text of every scalar
  std::vector<Record> records;       // kMap (one), kList, kKeyedMap (named)
  std::vector<std::string> strings;  // kStringList
  SourceLocation where;
  bool defaulted = false;  // true when the schema's default was applied
};

// The validated content of one map: every declared key that was given or has a default.
class Record {
 public:
  Record() = default;
  Record(std::string name, std::string path, SourceLocation where)
      : name_(std::move(name)), path_(std::move(path)), where_(std::move(where)) {}

  const std::string& name() const { return name_; }  // key in a kKeyedMap, else empty
  const std::string& path() const { return path_; }  // "devices[0].memory"
  const SourceLocation& where() const { return where_; }

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  const Value& value(const std::string& key) const;  // InternalError when absent
  double number(const std::string& key) const { return value(key).number; }
  std::int64_t integer(const std::string& key) const;
  bool boolean(const std::string& key) const { return value(key).boolean; }
  const std::string& text(const std::string& key) const { return value(key).text; }
  const Record& map(const std::string& key) const;
  const std::vector<Record>& list(const std::string& key) const { return value(key).records; }
  std::string text_or(const std::string& key, const std::string& fallback) const;
  double number_or(const std::string& key, double fallback) const;

  // Every value filled in from a default (nested records' too): its path and value as text,
  // for the assumptions list.
  struct Defaulted {
    std::string path;
    std::string text;
  };
  std::vector<Defaulted> defaulted_paths() const;

  void set(const std::string& key, Value v) { values_[key] = std::move(v); }
  void set_name(std::string name) { name_ = std::move(name); }

 private:
  std::string name_;
  std::string path_;
  SourceLocation where_;
  std::map<std::string, Value> values_;
};

// Validates `node` (a map) against `fields`; every violation goes to `diagnostics` and the
// returned Record holds what could be read.
Record read_record(const YamlFile& file, const YAML::Node& node, const std::vector<Field>& fields,
                   const std::string& path, Diagnostics& diagnostics);

// Checks a number already read for `f` (v.number, SI; v.text quoted back) against the field's
// range and, for a quantity, the range amdahl models for its dimension (hw/units.h): false
// after a diagnostic when outside. What read_record applies to every number of a file, for
// values that come from elsewhere (amdahl explore's --vary).
bool check_value(const Field& f, const Value& v, const std::string& path, Diagnostics& diags);

// Human-readable documentation of a schema, one line per key, nested keys indented.
std::string describe_schema(const std::vector<Field>& fields, int indent = 0);

}  // namespace amdahl::hw
