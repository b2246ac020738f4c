"""Hostile inputs of the explore area (docs/reliability.md)."""

from hostile import Case

CASES = []
