#pragma once
// A program run in a child process that cannot start any other process: the figure renderer
// runs gnuplot so, so that nothing gnuplot reads (a script, a data file) can execute a command
// through `system`, backquotes, `load "< cmd"`, `set print "| cmd"` or `set output "| cmd"`
// (docs/reliability.md, "output sinks"). The scripts amdahl writes hold no command to begin
// with (util/output_encoding.h, gnuplot_string); this is the second wall.
//
// The child, before it executes the program:
//  - works in the folder given, with standard input, output and error on /dev/null and every
//    other inherited file descriptor closed on exec;
//  - gets a minimal environment of its own (PATH, HOME = the folder, LANG): nothing inherited
//    that the program might read to run something (GNUPLOT_DRIVER_DIR, PAGER, SHELL,
//    LD_PRELOAD, ...) or to change its output (the user's ~/.gnuplot);
//  - sets PR_SET_NO_NEW_PRIVS and installs a seccomp filter (libseccomp, where amdahl was
//    built with it: AMDAHL_WITH_SECCOMP) under which fork and vfork fail with EPERM, clone
//    fails with EPERM unless it makes a thread (CLONE_THREAD), and clone3 fails with ENOSYS
//    (its flags cannot be inspected; glibc falls back to clone for threads). A process that
//    cannot create processes cannot run a shell command: popen, system and posix_spawn all
//    fail. The filter stays on the program after exec (it is why execve itself is allowed).

#include <filesystem>
#include <string>
#include <vector>

namespace amdahl {

struct ConfinedRun {
  bool found = false;    // the program is on PATH
  bool started = false;  // it began executing
  int exit_status = -1;  // its exit status; -1 when it did not start or died of a signal
  std::string failure;   // why it did not start (not found, no confinement), or its signal
};

// Runs `program`, looked up on this process's PATH, with `args` (argv[1..]) in `folder`, as
// described above, and waits for it. Never throws for the child's failures: they are in the
// result. When seccomp is built in but cannot be installed (a kernel without it), the program
// is not run: confinement is never silently skipped.
ConfinedRun run_confined(const std::string& program, const std::vector<std::string>& args,
                         const std::filesystem::path& folder);

// Whether run_confined denies process creation in this build (false without libseccomp).
bool confinement_built_in();

}  // namespace amdahl
