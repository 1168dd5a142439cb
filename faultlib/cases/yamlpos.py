"""Kept for imports written before :mod:`faultlib.readers`: the one YAML reader lives there."""

from faultlib.readers.yamldoc import PositionedYaml, dotted

__all__ = ["PositionedYaml", "dotted"]
