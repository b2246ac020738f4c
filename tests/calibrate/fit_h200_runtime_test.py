"""The H200 runtime block shipped in hw/catalog/systems/h200.yaml is what
calibrate/framework/fit_h200_runtime.py derives from ../shared/data/h200, byte for byte; a
missing data directory is exit 2 with nothing written.

Usage: fit_h200_runtime_test.py SCRIPT SYSTEM_YAML DATA_DIR WORK_DIR
"""

import os
import subprocess
import sys


def main():
    script, system, data, work = sys.argv[1:5]
    out = subprocess.run([sys.executable, script, "--data", data], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"fit_h200_runtime.py failed ({out.returncode}): {out.stderr}")
    with open(system, encoding="utf-8") as f:
        text = f.read()
    start = text.index("runtime:\n")
    end = text.index("default_device:", start)
    shipped = text[start:end]
    if shipped != out.stdout:
        sys.exit(f"{system}: the runtime block differs from the script's output:\n"
                 f"--- shipped\n{shipped}--- derived\n{out.stdout}")

    os.makedirs(work, exist_ok=True)
    target = os.path.join(work, "runtime.yaml")
    if os.path.exists(target):
        os.remove(target)
    bad = subprocess.run([sys.executable, script, "--data", os.path.join(work, "no-such-dir"),
                          "--out", target], capture_output=True, text=True, check=False)
    if bad.returncode != 2 or os.path.exists(target) or "no-such-dir" not in bad.stderr:
        sys.exit(f"missing data: expected exit 2, nothing written and the directory named; got "
                 f"{bad.returncode}, written={os.path.exists(target)}, stderr={bad.stderr!r}")
    print("runtime block reproduced; missing data rejected")


if __name__ == "__main__":
    main()
