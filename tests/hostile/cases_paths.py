"""Hostile inputs of the paths area (docs/reliability.md)."""

from hostile import Case

CASES = []
