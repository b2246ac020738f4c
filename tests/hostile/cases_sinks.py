"""Output sinks: names from input files reach generated scripts, DOT, HTML, CSV and the terminal
as data, never as code or raw control bytes (docs/reliability.md)."""

from hostile import Case

CASES = [
    Case(name="batch-zero", args=["predict", "--model", "alexnet", "--batch", "0"],
         message="--batch"),
]
