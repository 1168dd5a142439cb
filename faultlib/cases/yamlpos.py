"""YAML with positions: parse safely and map JSON paths to 1-based source lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from faultlib.errors import CaseError


class PositionedYaml:
    """A YAML document parsed with ``yaml.SafeLoader`` plus the line of every node.

    Args:
        path: the file (used in error messages).
        text: its content.

    Raises:
        CaseError: the YAML does not parse (with the line and column of the problem).
    """

    def __init__(self, path: Path, text: str):
        self.path = path
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            self.data = yaml.safe_load(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else None
            col = f" (column {mark.column + 1})" if mark else ""
            raise CaseError(f"invalid YAML: {exc.problem or exc}{col}", path=path, line=line) from exc
        except yaml.YAMLError as exc:
            raise CaseError(f"invalid YAML: {exc}", path=path) from exc
        self._lines: dict[tuple, int] = {}
        if node is not None:
            self._index(node, ())

    def _index(self, node: yaml.Node, path: tuple) -> None:
        self._lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = path + (key.value,)
                self._index(value, child)
                self._lines[child] = key.start_mark.line + 1  # point at the key
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._index(item, path + (i,))

    def line_of(self, path: list[Any] | tuple) -> int | None:
        """Line of the deepest existing node on ``path`` (a missing field reports its parent)."""
        path = tuple(path)
        while path not in self._lines and path:
            path = path[:-1]
        return self._lines.get(path)


def dotted(path: list[Any] | tuple) -> str:
    """``["inject", "local", 0, "shim"]`` -> ``inject.local[0].shim``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"
