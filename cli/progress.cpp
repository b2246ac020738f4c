#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

namespace amdahl::cli {

Progress::Progress() : tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::update(std::size_t done, std::size_t total, const std::string& what) {
  if (!tty_) return;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total ? kWidth * std::min(done, total) / total : kWidth;
  std::cerr << fmt::format("\r[{}{}] {}/{} {:<40.40}", std::string(filled, '#'),
                           std::string(kWidth - filled, ' '), done, total, what)
            << (done >= total ? "\n" : "") << std::flush;
}

}  // namespace amdahl::cli
