#pragma once
// The input files a computation read, by content. While an InputLog is alive, every file the
// loaders read on its thread is listed in it with a hash of the bytes read: YAML files (system,
// device and link files, every include, network files), CSV files, ONNX models and their
// external data. A fingerprint of the list covers every input a result depended on, included
// files too (explore's checkpoint: a changed device file is another exploration), with nothing
// for the caller to enumerate and so nothing to forget.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace amdahl {

class InputLog {
 public:
  // Active on this thread until destroyed; logs nest (a file read is listed in each).
  InputLog();
  ~InputLog();
  InputLog(const InputLog&) = delete;
  InputLog& operator=(const InputLog&) = delete;

  // (path as opened, FNV-1a hash of the bytes read), each distinct pair once, sorted.
  const std::set<std::pair<std::string, std::uint64_t>>& files() const { return files_; }

 private:
  friend void log_input_contents(const std::string& path);
  static void add(std::string_view path, std::uint64_t hash);
  InputLog* outer_;
  std::set<std::pair<std::string, std::uint64_t>> files_;
};

// Lists `path` with a hash of its bytes in every InputLog active on this thread (hashed as read,
// not held: a model may be gigabytes); nothing to do when none is. Called for every file amdahl
// reads through util/path_policy.h's note_input_file (itself called by check_input_file), so
// that no loader has to remember it.
void log_input_contents(const std::string& path);

}  // namespace amdahl
