#include "util/diagnostics.h"

#include <fmt/format.h>

#include "util/suggest.h"

namespace amdahl {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

namespace {
constexpr std::size_t kKeyPathChars = 200;
}  // namespace

std::string Diagnostic::str() const {
  std::string out = where.str();
  out += ": ";
  // What came from the file is escaped and shortened here, once for every message: a key or a
  // value may be huge or hold terminal escapes.
  if (!key_path.empty()) out += excerpt(key_path, kKeyPathChars) + ": ";
  out += rule;
  if (!got.empty()) out += fmt::format(" (got {})", excerpt(got, kExcerptChars + 2));
  return out;
}

void Diagnostics::add(const SourceLocation& where, std::string key_path, std::string rule,
                      std::string got) {
  items_.push_back(Diagnostic{where, std::move(key_path), std::move(rule), std::move(got)});
}

void Diagnostics::throw_if_any() const {
  if (!items_.empty()) throw ConfigError(items_);
}

namespace {
std::string join_lines(const std::vector<Diagnostic>& items) {
  std::string out;
  for (const auto& d : items) {
    if (!out.empty()) out += '\n';
    out += d.str();
  }
  return out;
}
}  // namespace

ConfigError::ConfigError(std::vector<Diagnostic> items)
    : UserError(join_lines(items)), items_(std::move(items)) {}

}  // namespace amdahl
