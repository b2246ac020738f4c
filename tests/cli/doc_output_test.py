#!/usr/bin/env python3
"""The sample outputs in the docs are the tool's current output.

usage: doc_output_test.py AMDAHL SOURCE SHARED WORK FILE.md... [--update]

Checks two kinds of fenced blocks in each FILE (relative to SOURCE):
  - a block with lines `$ COMMAND`: each command's output follows it, up to the next `$`;
  - a block right after a line `<!-- output: COMMAND -->`: the whole block is its output.
Each command runs with bash in SOURCE, `scripts/amdahl` replaced by AMDAHL; stderr is merged
into stdout and a non-zero exit status shows as a last line `exit N`.

What a shown block may leave out, and the only normalizations:
  - a line `...` stands for any number of lines (a block not starting with it starts at the
    output's first line, one not ending with it ends at its last);
  - a line ending in `...` shows the start of the output's line;
  - a CSV block whose header names some of the output's columns shows those columns;
  - `../shared` in a command is SHARED, and a path under /tmp/ is under WORK (shown as /tmp/).
Otherwise lines compare exactly (trailing blanks aside). --update rewrites the shown lines
from the output, keeping what each block leaves out; review the diff before committing.
"""

import os
import re
import shutil
import subprocess
import sys
import time

# Commands not run here, with the reason (matched against the command's start); none is now:
# every command of README.md's tour and docs/validation.md runs in under a second.
SKIPPED = {}
SLOW_S = 20  # a command slower than this should be skipped above, with its reason
OUTPUT_MARKER = re.compile(r"^<!-- output: (.*) -->$")


def parse(lines):
    """Yields each checked block as [(command, its line's index, [its output lines' indices])]."""
    i = 0
    while i < len(lines):
        marker = OUTPUT_MARKER.match(lines[i])
        fenced = marker and i + 1 < len(lines) and lines[i + 1].startswith("```")
        if lines[i].startswith("```") or fenced:
            start = i + 1 if marker else i
            end = start + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            body = list(range(start + 1, end))
            if marker:
                yield [(marker.group(1), i, body)]
            elif any(lines[j].startswith("$ ") for j in body):
                runs = []
                for j in body:
                    if lines[j].startswith("$ "):
                        runs.append((lines[j][2:], j, []))
                    elif runs:
                        runs[-1][2].append(j)
                yield runs
            i = end + 1
        else:
            i += 1


def run(command, amdahl, source, shared, work):
    # The block's /tmp/ paths first: the binary's and the data's own paths may lie under /tmp.
    command = command.replace("/tmp/", work + "/")
    command = re.sub(r"^scripts/amdahl\b", lambda m: amdahl, command)
    if os.path.realpath(os.path.join(source, "../shared")) != os.path.realpath(shared):
        command = command.replace("../shared", shared)
    started = time.monotonic()
    p = subprocess.run(["bash", "-c", command], cwd=source, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - started
    out = p.stdout.replace(work + "/", "/tmp/").splitlines()
    if p.returncode != 0:
        out.append(f"exit {p.returncode}")
    return [line.rstrip() for line in out], seconds


def key(line):
    if line.startswith("---"):
        return "---"
    return line.split(",")[0] if "," in line and " " not in line else (line.split() or [""])[0]


def project_csv(expected, actual):
    """The output's columns named by the block's CSV header (the block shows some columns)."""
    if not expected or not actual or " " in actual[0] or "," not in actual[0]:
        return actual
    shown, header = expected[0].split(","), actual[0].split(",")
    if shown == header or not set(shown) <= set(header):
        return actual
    columns = [header.index(name) for name in shown]
    return [",".join(line.split(",")[c] for c in columns) if line.count(",") == len(header) - 1
            else line for line in actual]


def same(shown, line):
    return shown == line or (shown.endswith("...") and line.startswith(shown[:-3]))


def compare(expected, actual):
    """Yields (index in expected, replacement or None, problem) for each difference."""
    segments, current = [], []
    for i, line in enumerate(expected):
        if line == "...":
            segments.append(current)
            current = []
        else:
            current.append(i)
    segments.append(current)
    position = 0
    for n, segment in enumerate(segments):
        if not segment:
            continue
        shown = [expected[i] for i in segment]
        anchored = n == 0
        starts = [0] if anchored else range(position, len(actual) - len(shown) + 1)
        found = next((s for s in starts if s + len(shown) <= len(actual) and
                      all(key(a) == key(b) for a, b in zip(shown, actual[s:s + len(shown)]))), None)
        if found is None:
            yield segment[0], None, ("these lines are not in the output in this order:\n  " +
                                     "\n  ".join(shown))
            return
        for i, e, a in zip(segment, shown, actual[found:found + len(shown)]):
            if not same(e, a):
                if e.endswith("..."):
                    a = a[:len(e) - 3] + "..."
                yield i, a, f"shown: {e}\n  now:   {a}"
        position = found + len(shown)
    if (not expected or expected[-1] != "...") and position != len(actual):
        rest = "\n  ".join(actual[position:])
        yield max(len(expected) - 1, 0), None, f"the output goes on:\n  {rest}"


def main(argv):
    update = "--update" in argv
    amdahl, source, shared, work, *files = [a for a in argv[1:] if a != "--update"]
    amdahl = os.path.abspath(amdahl)
    failures = 0
    for name in files:
        path = os.path.join(source, name)
        with open(path) as f:
            lines = f.read().split("\n")
        blocks = list(parse(lines))
        if not blocks:
            failures += 1
            print(f"{name}: no `$ COMMAND` block and no `<!-- output: COMMAND -->` marker to check")
        for runs in blocks:
            shutil.rmtree(work, ignore_errors=True)  # a block's commands may use each other's files
            os.makedirs(work)
            for command, at, body in runs:
                reason = next((r for s, r in SKIPPED.items() if command.startswith(s)), None)
                if reason:
                    print(f"{name}: skipped `{command}`: {reason}")
                    continue
                actual, seconds = run(command, amdahl, source, shared, work)
                expected = [lines[j].rstrip() for j in body]
                actual = project_csv(expected, actual)
                if seconds > SLOW_S:
                    print(f"{name}: `{command}` took {seconds:.0f} s, over {SLOW_S} s: list it "
                          "in SKIPPED")
                for i, replacement, problem in compare(expected, actual):
                    if update and replacement is not None:
                        lines[body[i]] = replacement
                        continue
                    failures += 1
                    print(f"{name}:{(body[i] if body else at) + 1}: `{command}`: {problem}")
        if update:
            with open(path, "w") as f:
                f.write("\n".join(lines))
    if failures:
        print(f"{failures} difference(s); the tool is the truth: rerun with --update (or edit the "
              "block where the lines shown no longer exist) and review the diff")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
