#include "util/input_log.h"

#include <fstream>

#include "util/hash.h"

namespace amdahl {
namespace {
thread_local InputLog* active = nullptr;
}  // namespace

InputLog::InputLog() : outer_(active) { active = this; }

InputLog::~InputLog() { active = outer_; }

void InputLog::add(std::string_view path, std::uint64_t hash) {
  for (InputLog* log = active; log; log = log->outer_) log->files_.emplace(path, hash);
}

void log_input_contents(const std::string& path) {
  if (!active) return;
  std::ifstream in(path, std::ios::binary);
  char buffer[1 << 16];
  // A file that cannot be read hashes as what could be (its loader reports its own error).
  std::uint64_t h = kFnv1aBasis;
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
    h = fnv1a(buffer, static_cast<std::size_t>(in.gcount()), h);
  InputLog::add(path, h);
}

}  // namespace amdahl
