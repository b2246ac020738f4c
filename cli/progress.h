#pragma once
// A progress bar on stderr for long commands (report, sweep, calibrate): drawn only when stderr
// is a terminal, so logs and pipes stay quiet. "[#####     ] 12/48 alexnet (train)".

#include <cstddef>
#include <string>

namespace amdahl::cli {

class Progress {
 public:
  Progress();  // checks whether stderr is a terminal
  // Redraws the bar; the line ends once done == total.
  void update(std::size_t done, std::size_t total, const std::string& what = "");
  bool shown() const { return tty_; }

 private:
  bool tty_ = false;
};

}  // namespace amdahl::cli
