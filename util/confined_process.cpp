#include "util/confined_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#ifdef AMDAHL_WITH_SECCOMP
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#endif

namespace amdahl {

namespace {

// Where the child stopped before executing the program, reported to the parent through a
// close-on-exec pipe with errno (nothing arrives when the exec succeeded).
enum Step : int { kFolder, kStreams, kNoNewPrivileges, kFilter, kExec };

constexpr const char* kStepText[] = {"cannot enter its folder", "cannot open /dev/null",
                                     "cannot set no-new-privileges",
                                     "cannot install its seccomp filter", "cannot execute it"};

#ifdef AMDAHL_WITH_SECCOMP
// The seccomp filter as a BPF program, generated once in the parent (the child after fork
// makes only async-signal-safe calls, and installing a ready program is one prctl), or why
// there is none.
struct Filter {
  std::vector<sock_filter> program;
  std::string error;
};

Filter make_filter() {
  Filter f;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return {{}, "seccomp_init failed"};
  int clone3 = seccomp_syscall_resolve_name("clone3");
  if (clone3 == __NR_SCMP_ERROR)
    clone3 = 435;  // a libseccomp older than clone3: its number
                   // (the same on every architecture)
#if defined(__s390__) || defined(__s390x__)
  const scmp_arg_cmp not_thread = SCMP_A1(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);  // (stack, flags)
#else
  const scmp_arg_cmp not_thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
#endif
  int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fork), 0);
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(vfork), 0);
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, not_thread);
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), clone3, 0);
  // The program is exported through a pipe; it is a few hundred bytes, far below a pipe's
  // capacity.
  std::array<int, 2> pipe_fds{-1, -1};
  if (rc == 0 && pipe2(pipe_fds.data(), O_CLOEXEC) != 0) rc = -errno;
  if (rc == 0) rc = seccomp_export_bpf(ctx, pipe_fds[1]);
  seccomp_release(ctx);
  if (pipe_fds[1] >= 0) close(pipe_fds[1]);
  std::string bytes;
  if (rc == 0) {
    std::array<char, 4096> chunk{};
    for (ssize_t n; (n = read(pipe_fds[0], chunk.data(), chunk.size())) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        rc = -errno;
        break;
      }
      bytes.append(chunk.data(), static_cast<std::size_t>(n));
    }
  }
  if (pipe_fds[0] >= 0) close(pipe_fds[0]);
  if (rc != 0) return {{}, fmt::format("libseccomp: {}", std::strerror(-rc))};
  if (bytes.empty() || bytes.size() % sizeof(sock_filter) != 0)
    return {{}, "libseccomp exported no program"};
  f.program.resize(bytes.size() / sizeof(sock_filter));
  std::memcpy(f.program.data(), bytes.data(), bytes.size());
  return f;
}

const Filter& filter() {
  static const Filter f = make_filter();
  return f;
}
#endif

// `program` when it names a path, else the first executable regular file of that name on PATH.
std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

// Marks every descriptor from 3 up close-on-exec: nothing amdahl holds open (an output file, a
// checkpoint) reaches the program.
void close_inherited_on_exec() {
#ifdef SYS_close_range
  constexpr unsigned kCloexec = 1u << 2;  // CLOSE_RANGE_CLOEXEC (Linux 5.11)
  if (syscall(SYS_close_range, 3u, ~0u, kCloexec) == 0) return;
#endif
  const long max = sysconf(_SC_OPEN_MAX);
  for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); ++fd)
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

}  // namespace

bool confinement_built_in() {
#ifdef AMDAHL_WITH_SECCOMP
  return true;
#else
  return false;
#endif
}

ConfinedRun run_confined(const std::string& program, const std::vector<std::string>& args,
                         const std::filesystem::path& folder) {
  ConfinedRun r;
  const std::string path = find_program(program);
  if (path.empty()) {
    r.failure = fmt::format("{} is not installed (not found on PATH)", program);
    return r;
  }
  r.found = true;
#ifdef AMDAHL_WITH_SECCOMP
  if (!filter().error.empty()) {
    r.failure =
        fmt::format("{} not run: no seccomp filter to confine it ({})", program, filter().error);
    return r;
  }
  const sock_fprog filter_program{static_cast<unsigned short>(filter().program.size()),
                                  const_cast<sock_filter*>(filter().program.data())};
#endif
  // Everything the child needs, made before fork.
  const std::string home = "HOME=" + folder.string();
  std::array<const char*, 4> env{"PATH=/usr/local/bin:/usr/bin:/bin", home.c_str(), "LANG=C.UTF-8",
                                 nullptr};
  std::vector<const char*> argv{program.c_str()};
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  const std::string dir = folder.string();

  std::array<int, 2> report{-1, -1};
  if (pipe2(report.data(), O_CLOEXEC) != 0) {
    r.failure = fmt::format("{} not run: no pipe ({})", program, std::strerror(errno));
    return r;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const auto fail = [&](Step step) {
      const std::array<int, 2> what{step, errno};
      [[maybe_unused]] const ssize_t n = write(report[1], what.data(), sizeof what);
      _exit(127);
    };
    if (chdir(dir.c_str()) != 0) fail(kFolder);
    const int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) fail(kStreams);
    close_inherited_on_exec();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(kNoNewPrivileges);
#ifdef AMDAHL_WITH_SECCOMP
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter_program) != 0) fail(kFilter);
#endif
    execve(path.c_str(), const_cast<char* const*>(argv.data()),
           const_cast<char* const*>(env.data()));
    fail(kExec);
  }
  close(report[1]);
  if (pid < 0) {
    close(report[0]);
    r.failure = fmt::format("{} not run: cannot fork ({})", program, std::strerror(errno));
    return r;
  }
  std::array<int, 2> what{-1, 0};
  ssize_t n;
  while ((n = read(report[0], what.data(), sizeof what)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof what) && what[0] >= kFolder && what[0] <= kExec) {
    r.failure =
        fmt::format("{} not run: {} ({})", program, kStepText[what[0]], std::strerror(what[1]));
    return r;
  }
  r.started = true;
  if (WIFEXITED(status))
    r.exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.failure = fmt::format("{} killed by signal {}", program, WTERMSIG(status));
  return r;
}

}  // namespace amdahl
