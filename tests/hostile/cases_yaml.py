"""Hostile inputs of the yaml area (docs/reliability.md)."""

from hostile import Case

CASES = []
