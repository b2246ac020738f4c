#pragma once
// Writing files so that a failed run changes nothing: each file is written to a temporary in
// its own folder, checked, and renamed over its target only when every file of the set is
// ready. On any failure the temporaries are removed and the targets are as they were.
//
// Every target is held to the output rule of util/path_policy.h (check_output_file) before
// anything is written and again just before the renames: an existing file only with
// `replace`, never a pipe, device, socket or folder, never a file this run reads. Each
// temporary has an unpredictable name and is created with O_CREAT|O_EXCL|O_NOFOLLOW, so a
// file or a symbolic link planted at a temporary's name is never written through.

#include <functional>
#include <string>
#include <vector>

namespace amdahl {

// One file of a set that belongs together (a calibrated device and its link; the files of an
// -o folder). `validate`, when given, is run on the written temporary before anything is
// renamed (a loader that throws UserError). `replace`: the command's --force (an existing
// regular file may be replaced). `updates`: the input this file is the new version of, which
// it may replace (check_output_file).
struct PendingFile {
  std::string path;
  std::string text;
  std::function<void(const std::string&)> validate;
  bool replace = false;
  std::string updates;
};

// Every temporary is written and validated before any of them replaces its target. Throws
// UserError naming the file and the reason (a missing folder, a full disk, a failed check, a
// target the output rule refuses).
void write_files_atomically(const std::vector<PendingFile>& files);
void write_file_atomically(const PendingFile& file);

}  // namespace amdahl
