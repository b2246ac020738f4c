#pragma once
// Located diagnostics collected while validating an input, reported all at once.
// Each reads "file:line:col: key.path: rule (got value)".

#include <string>
#include <vector>

#include "util/error.h"

namespace amdahl {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown

  std::string str() const;
};

struct Diagnostic {
  SourceLocation where;
  std::string key_path;  // e.g. "devices[1].memory.bandwidth"
  std::string rule;      // what was expected
  std::string got;       // what was found; empty when nothing was found

  std::string str() const;
};

// Collects diagnostics; throw_if_any() raises one ConfigError holding all of them.
class Diagnostics {
 public:
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void add(const SourceLocation& where, std::string key_path, std::string rule,
           std::string got = {});
  bool empty() const { return items_.empty(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> items_;
};

// A UserError carrying every diagnostic of one input; what() has one line per diagnostic.
class ConfigError : public UserError {
 public:
  explicit ConfigError(std::vector<Diagnostic> items);
  const std::vector<Diagnostic>& items() const { return items_; }

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace amdahl
