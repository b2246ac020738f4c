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
  friend void note_input(std::string_view path, std::string_view bytes);
  friend void note_input_file(const std::string& path);
  static void add(std::string_view path, std::uint64_t hash);
  InputLog* outer_;
  std::set<std::pair<std::string, std::uint64_t>> files_;
};

// A loader's report of the bytes it read from `path` (all of them, or the part it used);
// nothing to do when no InputLog is active on this thread.
void note_input(std::string_view path, std::string_view bytes);
// The same for a file a loader streams without holding its bytes (an ONNX model): reads and
// hashes it, only when an InputLog is active.
void note_input_file(const std::string& path);

}  // namespace amdahl
