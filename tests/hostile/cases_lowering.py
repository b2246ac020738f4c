"""Hostile inputs of the lowering area (docs/reliability.md)."""

from hostile import Case

CASES = []
