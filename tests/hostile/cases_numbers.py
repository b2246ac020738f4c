"""Hostile inputs of the numbers area (docs/reliability.md)."""

from hostile import Case

CASES = []
