#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "util/output_encoding.h"

namespace amdahl::cli {

Progress::Progress() : tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::update(std::size_t done, std::size_t total, const std::string& what) {
  if (!tty_) return;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total ? kWidth * std::min(done, total) / total : kWidth;
  const std::string line = fmt::format("\r[{}{}] {}/{} {:<40.40}{}", std::string(filled, '#'),
                                       std::string(kWidth - filled, ' '), done, total,
                                       printable(what), done >= total ? "\n" : "");
  // Past std::cerr, whose guard (util/printable_stream.h) would show the carriage return that
  // redraws the bar as \x0d; the name in it is printable.
  std::cerr.flush();
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace amdahl::cli
