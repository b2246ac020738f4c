"""The adversarial regression corpus (docs/reliability.md): hostile inputs run through the
amdahl binary, each in a scratch folder of its own, under a time limit and a memory limit.

A case file is a module cases_AREA.py beside this one with a list CASES of Case. Each case
writes its files into a fresh folder, runs `amdahl ARGS` there (cwd = that folder) and
fails unless:
  - the exit status is `exit` (2 for a user error; a tuple: any of them),
  - standard output or error contains every string of `message` (a str or a list),
  - nothing under the folder named in `absent` exists afterwards (a command that ran,
    a file written where it must not be),
  - each file in `unchanged` has the bytes it had before the run,
  - `check(folder, result)`, when given, returns None (else the text of the failure),
  - the run took at most `seconds` (10) and its peak resident memory was at most 2 GB,
  - no line of the output holds a raw control byte other than newline and tab.
Placeholders in args and file texts: {dir} the case's folder, {fixtures} tests/fixtures,
{shared} ../shared, {source} the source tree.

Usage (Debian's /usr/bin/python3, for its onnx and numpy): hostile.py AMDAHL SCRATCH SOURCE SHARED [--sanitized] [--only FILE_STEM] [-k SUBSTRING]
"""

import argparse
import importlib.util
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Union

MAX_SECONDS = 10.0
MAX_RSS_BYTES = 2 << 30


@dataclass
class Symlink:
    """A symbolic link written in place of a file: its target, with placeholders."""
    target: str


@dataclass
class Fifo:
    """A named pipe written in place of a file."""


@dataclass
class Case:
    name: str
    args: list
    exit: Union[int, tuple] = 2
    message: Union[str, list] = field(default_factory=list)
    files: dict = field(default_factory=dict)
    absent: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    check: Optional[Callable] = None
    seconds: float = MAX_SECONDS
    env: dict = field(default_factory=dict)


@dataclass
class Result:
    rc: int
    out: str
    err: str
    seconds: float
    max_rss: int


def _fill(text, values):
    for k, v in values.items():
        text = text.replace("{" + k + "}", v)
    return text


def _write_files(folder: Path, files: dict, values: dict):
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Symlink):
            os.symlink(_fill(content.target, values), path)
        elif isinstance(content, Fifo):
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(_fill(content, values))


def _run(cmd, cwd, seconds, env, sanitized):
    """(exit status or None when killed at the limit, seconds, stdout, stderr, peak RSS)."""
    limit = seconds * (6 if sanitized else 1)

    def limits():
        os.setsid()
        if not sanitized:  # ASan reserves terabytes of address space; its RSS is checked instead
            resource.setrlimit(resource.RLIMIT_AS, (3 * MAX_RSS_BYTES, 3 * MAX_RSS_BYTES))

    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env, preexec_fn=limits)
    chunks = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda s=s, k=k: chunks[k].append(s.read()))
               for s, k in ((proc.stdout, "out"), (proc.stderr, "err"))]
    for r in readers:
        r.start()
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > limit and not killed:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.01)
    elapsed = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # anything the command left running
    except ProcessLookupError:
        pass
    for r in readers:
        r.join()
    rc = None if killed else proc.returncode
    return rc, elapsed, b"".join(chunks["out"]), b"".join(chunks["err"]), usage.ru_maxrss * 1024


def load_cases(here: Path, only):
    cases = []
    for path in sorted(here.glob("cases_*.py")):
        stem = path.stem[len("cases_"):]
        if only and stem != only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        cases += [(stem, c) for c in module.CASES]
    return cases


def run_case(amdahl, scratch: Path, source, shared, case: Case, sanitized):
    folder = scratch / case.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    values = {"dir": str(folder), "fixtures": str(Path(source) / "tests" / "fixtures"),
              "shared": str(shared), "source": str(source)}
    _write_files(folder, case.files, values)
    before = {rel: (folder / rel).read_bytes() for rel in case.unchanged
              if (folder / rel).is_file()}
    env = dict(os.environ)
    env.update(case.env)
    args = [_fill(a, values) for a in case.args]
    rc, elapsed, out, err, max_rss = _run([os.path.abspath(amdahl)] + args, folder, case.seconds, env, sanitized)
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    problems = []
    if rc is None:
        problems.append(f"still running after {elapsed:.1f} s (killed)")
    elif rc not in (case.exit if isinstance(case.exit, tuple) else (case.exit,)):
        problems.append(f"exit {rc}, expected {case.exit}")
    if max_rss > MAX_RSS_BYTES:
        problems.append(f"peak memory {max_rss / 2**30:.2f} GB > 2 GB")
    for m in [case.message] if isinstance(case.message, str) else case.message:
        m = _fill(m, values)
        if m not in out and m not in err:
            problems.append(f"output lacks {m!r}")
    for rel in case.absent:
        if os.path.lexists(folder / _fill(rel, values)):
            problems.append(f"{rel} exists")
    for rel, data in before.items():
        path = folder / rel
        if not path.is_file() or path.is_symlink() or path.read_bytes() != data:
            problems.append(f"{rel} was changed")
    for text, what in ((out, "stdout"), (err, "stderr")):
        raw = sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or ord(c) == 127})
        if raw:
            problems.append(f"{what} holds raw control bytes {[hex(ord(c)) for c in raw]}")
    if case.check and not problems:
        why = case.check(folder, Result(rc, out, err, elapsed, max_rss))
        if why:
            problems.append(why)
    return problems, elapsed, out, err


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("amdahl")
    parser.add_argument("scratch")
    parser.add_argument("source")
    parser.add_argument("shared")
    parser.add_argument("--sanitized", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("-k")
    a = parser.parse_args()
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    cases = load_cases(here, a.only)
    if a.k:
        cases = [(s, c) for s, c in cases if a.k in c.name]
    names = [c.name for _, c in cases]
    if len(set(names)) != len(names):
        sys.exit(f"hostile: case names repeat: {sorted({n for n in names if names.count(n) > 1})}")
    if not cases:
        sys.exit("hostile: no case selected")
    scratch = Path(a.scratch).resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    failed = 0
    for stem, case in cases:
        problems, elapsed, out, err = run_case(a.amdahl, scratch, Path(a.source).resolve(),
                                               Path(a.shared).resolve(), case, a.sanitized)
        if problems:
            failed += 1
            print(f"FAIL {stem}/{case.name} ({elapsed:.2f} s): " + "; ".join(problems))
            print("  stdout: " + out[-1500:].replace("\n", "\n  "))
            print("  stderr: " + err[-1500:].replace("\n", "\n  "))
        else:
            print(f"ok   {stem}/{case.name} ({elapsed:.2f} s)")
    print(f"{len(cases) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


# A case file imports this module by its name.
sys.modules.setdefault("hostile", sys.modules[__name__])

if __name__ == "__main__":
    main()
