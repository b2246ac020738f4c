"""Helpers shared by the runtime fitters (fit_h200_runtime.py, fit_runtime_bench.py): the
input error they report as exit 2, the repository root, number formatting and the
least-squares line."""

import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class InputError(Exception):
    pass


def fmt(x):
    return f"{x:.4g}"


def fit_line(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope
