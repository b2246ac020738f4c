#pragma once
// Error types. The library throws; only main prints and exits.
//   UserError     - the input is wrong (a file, an option, a name); exit status 2.
//   InternalError - amdahl itself is wrong; exit status 70.

#include <stdexcept>
#include <string>

namespace amdahl {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace amdahl
