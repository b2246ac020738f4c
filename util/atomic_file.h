#pragma once
// Writing files so that a failed run changes nothing: each file is written to a temporary in
// its own folder, checked, and renamed over its target only when every file of the set is
// ready. On any failure the temporaries are removed and the targets are as they were.

#include <functional>
#include <string>
#include <vector>

namespace amdahl {

// One file of a set that belongs together (a calibrated device and its link; the files of an
// -o folder). `validate`, when given, is run on the written temporary before anything is
// renamed (a loader that throws UserError).
struct PendingFile {
  std::string path;
  std::string text;
  std::function<void(const std::string&)> validate;
};

// Every temporary is written and validated before any of them replaces its target. Throws
// UserError naming the file and the reason (a missing folder, a full disk, a failed check).
void write_files_atomically(const std::vector<PendingFile>& files);
void write_file_atomically(const std::string& path, const std::string& text,
                           const std::function<void(const std::string&)>& validate = {});

}  // namespace amdahl
