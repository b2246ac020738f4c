// Command-line options of amdahl-cudabench.
//
// Each option is declared once (options.cpp: name, value, help); the parser and the help text
// both read that table. Bad input throws UsageError, whose message names the offending
// argument.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace amdahl::cudabench {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  bool quick = false;             // --quick: fewer shapes and repetitions, under a minute
  bool help = false;              // --help
  std::string out_path;           // --out FILE; empty writes the CSV to stdout
  std::vector<std::string> only;  // --only a,b: groups to run; empty runs all
  int device = 0;                 // --device N
};

// Parses argv[1..argc). Accepts "--name value" and "--name=value". Group names in --only are
// split but not checked here (main knows the groups).
Options parse_options(int argc, const char* const* argv);

// The help text; groups lists "name: description" lines for --only.
std::string usage_text(const std::string& program, const std::vector<std::string>& groups);

}  // namespace amdahl::cudabench
