#pragma once
// Which files amdahl may open because of what an input file or the command line says: one
// rule for reading and one for writing, applied after symbolic links are resolved, so that a
// hostile input can neither make amdahl read (and quote) a file outside the folders the user
// named nor make it replace a file, a device or a pipe the user did not mean to replace.
//
// Reading. A path written inside an input file (a system's `include:`, `efficiency_from:`,
// `measured_runs:`, an ONNX tensor's external data) is relative to the folder of the file that
// names it and must resolve (links followed) inside one of a scope's folders: the folder of
// the file the user named on the command line, folders the caller adds (the catalog) and the
// folders of allow_path (the command line's --allow-path DIR). Outside them it is an error
// naming the resolved path only; nothing of the file is read.
//
// Writing. A file amdahl writes (calibrate --out/--residuals/--csv/--link-out, the files of
// -o DIR, --plot) must be absent, or, with `replace` (--force), a regular file (or a link to
// one: the rename replaces the link, not its target). Something that is not a regular file (a
// pipe, a device, a socket, a folder) is refused even with --force, and so is a file this run
// has read (compared by device and inode, so a hard link or a symbolic link to an input is
// caught too): an output never destroys its own input, but for the one input it is declared
// the new version of (a device file refitted in place).

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace amdahl {

// Adds `dir` to every scope made after it, for the rest of the process (--allow-path DIR).
void allow_path(const std::string& dir);

// `p` made absolute with every symbolic link resolved (the part that exists), "." and ".."
// removed; lexically normal when it cannot be resolved.
std::filesystem::path resolved_path(const std::filesystem::path& p);

// The folders files named by the input files of one top-level file may resolve into.
class PathScope {
 public:
  // `folders` (an empty one is the current folder; the first is usually that of the file the
  // user named), then allow_path's.
  explicit PathScope(const std::vector<std::string>& folders);

  // `named` as `naming_file` names it: relative to naming_file's folder unless absolute. The
  // path to open (lexically normal, links kept for the messages that name it). Throws
  // UserError "WHAT PATH is outside the folders amdahl reads from (...); --allow-path DIR adds
  // one" when its resolution lies outside every folder of the scope.
  std::string resolve(const std::string& naming_file, const std::string& named,
                      std::string_view what) const;

  const std::vector<std::filesystem::path>& roots() const { return roots_; }

 private:
  std::vector<std::filesystem::path> roots_;  // resolved
};

// Records `path` (an existing file about to be read) as an input of this run, for
// check_output_file, and lists its contents in any active InputLog (util/input_log.h).
// util/input_file.h's check_input_file calls it for every file amdahl reads.
void note_input_file(const std::string& path);
// Undoes note_input_file for a file amdahl wrote and read back to check it (a validated
// temporary, util/atomic_file.h): an output, not an input.
void forget_input_file(const std::string& path);

// Throws UserError "WHAT PATH: ..." unless `path` may be written under the rule above:
//   absent (a dangling symbolic link counts as present);
//   present: only with `replace`, and only a regular file (links followed) that is not an
//   input of this run.
// `what` names the option ("--out", "-o"); empty for none. `updates`: the one input this
// output is the new version of (calibrate's --base refitted in place, --out naming it), which
// it may replace (with `replace`) although the run reads it.
void check_output_file(const std::string& path, bool replace, std::string_view what = {},
                       const std::string& updates = {});

// A file written in place during a run (explore's checkpoint), opened without following a
// symbolic link: with `append`, an existing regular file (never a pipe or a device); else a
// new file (O_EXCL: nothing of that name may exist, not even a dangling link). Throws
// UserError "WHAT PATH: cannot ... (reason)".
std::FILE* open_in_place(const std::string& path, bool append, std::string_view what);

}  // namespace amdahl
