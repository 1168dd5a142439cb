"""YAML with positions, hardened: ``yaml.SafeLoader`` only, every node's line, and bounds.

Refused, each with the line (and field) where it is:

- nesting deeper than ``max_depth`` (checked on the event stream, before anything recursive runs);
- more than ``max_nodes`` nodes once aliases are expanded (a 1 KB "billion laughs" document expands
  to 10^9 nodes), and aliases that contain themselves (recursive aliases);
- mapping keys that are not strings (``1:``, ``true:``, ``~:``, a mapping as a key) and duplicate keys;
- scalars that are not JSON values: timestamps, binary, sets, ordered maps, any explicit tag;
- non-finite floats (``.nan``, ``.inf``; kept as floats with ``nonfinite=True``, for documents where they are
  data: an open-ended bin edge) and integers outside the signed 64-bit range;
- invalid UTF-8, NUL bytes and other characters YAML does not allow.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import yaml

from faultlib.errors import InputError
from faultlib.readers.files import DEFAULT, Limits, MiB, decode_text, read_bytes

_TAG = "tag:yaml.org,2002:"
SCALAR_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null")}
MERGE_TAG = _TAG + "merge"
INT64 = 1 << 63
#: libyaml's parser when PyYAML was built with it (the wheels are): the same safe constructors, 3-5x faster
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def dotted(path: list[Any] | tuple) -> str:
    """``["inject", "local", 0, "shim"]`` -> ``inject.local[0].shim``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class PositionedYaml:
    """A YAML document parsed safely and within bounds, plus the line of every node.

    Args:
        path: the file (used in error messages).
        text: its content.
        limits: depth, expanded-node and (for files) size bounds.
        int_keys: also accept integer mapping keys (``id2label: {0: cat}``), kept as ``int``.
        nonfinite: keep ``.inf``, ``-.inf`` and ``.nan`` as floats instead of refusing them.

    Attributes:
        data: the document as JSON values (dict, list, str, int, float, bool, None).

    Raises:
        InputError: the YAML does not parse, or breaks a bound or rule of the module docstring
            (with the line, column and field of the problem).
    """

    def __init__(self, path: Path | str, text: str, *, limits: Limits = DEFAULT, int_keys: bool = False,
                 nonfinite: bool = False):
        self.path = path
        self.limits = limits
        self.int_keys = int_keys
        self.nonfinite = nonfinite
        self._lines: dict[tuple, int] = {}
        with _translated(path, text, limits):
            self._check_depth(text, SAFE_LOADER)
            loader = SAFE_LOADER(text)
            try:
                self._accept(loader.get_single_node(), loader)
            finally:
                loader.dispose()

    def _accept(self, node: yaml.Node | None, loader) -> None:
        """Check ``node``'s graph, index its lines and construct it with ``loader``."""
        if node is not None:
            self._check_graph(node)
            self._index(node)
        self.data = loader.construct_document(node) if node is not None else None

    def _fail(self, message: str, node: yaml.Node | None, path: tuple = ()) -> InputError:
        line = node.start_mark.line + 1 if node is not None else None
        return InputError(message, path=self.path, line=line, field=dotted(path) if path else None)

    def _check_depth(self, text: str, loader_class) -> None:
        depth = 0
        for event in yaml.parse(text, Loader=loader_class):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > self.limits.max_depth:
                    line = event.start_mark.line + 1
                    raise InputError(f"nested more than {self.limits.max_depth} levels deep: flatten the document",
                                     path=self.path, line=line)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1

    def _check_graph(self, root: yaml.Node) -> None:
        """Refuse recursive aliases and count nodes after alias expansion, in time linear in the
        number of distinct nodes (sizes are memoised, never expanded)."""
        sizes: dict[int, int] = {}
        visiting: set[int] = set()
        stack: list[tuple[yaml.Node, bool]] = [(root, False)]
        while stack:
            node, finished = stack.pop()
            key = id(node)
            if finished:
                visiting.discard(key)
                sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
                if sizes[key] > self.limits.max_nodes:
                    if len(sizes) >= self.limits.max_nodes:  # as large as that without any alias
                        raise self._fail(f"has more than {self.limits.max_nodes:,} nodes: a document this large is "
                                         "not read here (split it)", node)
                    raise self._fail(f"expands to more than {self.limits.max_nodes:,} nodes through aliases "
                                     "(an alias bomb?): write the values out or use fewer aliases", node)
                continue
            if key in sizes:
                continue
            visiting.add(key)
            stack.append((node, True))
            for child in _children(node):
                if id(child) in visiting:
                    raise self._fail("recursive alias: an anchor refers to itself", child)
                if id(child) not in sizes:
                    stack.append((child, False))

    def _index(self, root: yaml.Node) -> None:
        """Record the line of every node and check keys and scalars (the graph is bounded by now)."""
        stack: list[tuple[yaml.Node, tuple]] = [(root, ())]
        while stack:
            node, path = stack.pop()
            self._lines.setdefault(path, node.start_mark.line + 1)
            if isinstance(node, yaml.ScalarNode):
                self._check_scalar(node, path)
            elif isinstance(node, yaml.SequenceNode):
                if node.tag != _TAG + "seq":
                    raise self._fail(f"tag {node.tag!r} is not allowed: use a plain list", node, path)
                stack.extend((item, path + (i,)) for i, item in enumerate(node.value))
            elif isinstance(node, yaml.MappingNode):
                if node.tag != _TAG + "map":
                    raise self._fail(f"tag {node.tag!r} is not allowed: use a plain mapping", node, path)
                seen: set[str] = set()
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.tag == MERGE_TAG:
                        stack.append((value, path))  # '<<: *base' merges base's keys here
                        continue
                    allowed = (_TAG + "str", _TAG + "int") if getattr(self, "int_keys", False) else (_TAG + "str",)
                    if not isinstance(key, yaml.ScalarNode) or key.tag not in allowed:
                        shown = key.value if isinstance(key, yaml.ScalarNode) else type(key).__name__[:-4].lower()
                        raise self._fail(f"key {shown!r} is not a string: quote it (\"{shown}\":)"
                                         if isinstance(key, yaml.ScalarNode)
                                         else f"a {shown} cannot be a key: keys are strings", key, path)
                    if key.value in seen:
                        raise self._fail(f"duplicate key {key.value!r}: keep one", key, path + (key.value,))
                    seen.add(key.value)
                    child = path + (key.value,)
                    self._lines[child] = key.start_mark.line + 1  # point at the key
                    stack.append((value, child))

    def _check_scalar(self, node: yaml.ScalarNode, path: tuple) -> None:
        if node.tag not in SCALAR_TAGS:
            kind = node.tag.removeprefix(_TAG)
            raise self._fail(f"{kind} value {node.value!r} is not allowed: only strings, numbers, booleans and "
                             "null (quote it to make it a string)", node, path)
        if node.tag == _TAG + "float":
            value = yaml.SafeLoader.construct_yaml_float(yaml.SafeLoader(""), node)
            if not math.isfinite(value) and not getattr(self, "nonfinite", False):
                raise self._fail(f"non-finite number {node.value!r}: use a finite number", node, path)
        elif node.tag == _TAG + "int":
            try:
                value = yaml.SafeLoader.construct_yaml_int(yaml.SafeLoader(""), node)
            except ValueError:  # more digits than Python converts (4,300): far outside the range too
                value = INT64
            if not -INT64 <= value < INT64:
                shown = node.value if len(node.value) <= 24 else f"{node.value[:24]}... ({len(node.value):,} characters)"
                raise self._fail(f"integer {shown!r} is out of range (signed 64-bit)", node, path)

    def line_of(self, path: list[Any] | tuple) -> int | None:
        """Line of the deepest existing node on ``path`` (a missing field reports its parent)."""
        path = tuple(path)
        while path not in self._lines and path:
            path = path[:-1]
        return self._lines.get(path)


@contextmanager
def _translated(path: Path | str, text: str, limits: Limits) -> Iterator[None]:
    """PyYAML's errors as :class:`InputError` with the line and column."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        if "maximum nesting depth" in str(exc.problem):  # libyaml's own bound (1,000), met before ours is seen
            raise InputError(f"nested more than {limits.max_depth} levels deep: flatten the document", path=path,
                             line=line) from None
        col = f" (column {mark.column + 1})" if mark else ""
        what = ", ".join(part for part in (exc.context, exc.problem) if part) or str(exc)
        raise InputError(f"invalid YAML: {what}{col}", path=path, line=line) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else None
        char = exc.character if isinstance(exc.character, int) else ord(exc.character or "\0")
        raise InputError(f"invalid YAML: control character U+{char:04X} is not allowed: remove it", path=path,
                         line=line) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", path=path) from None
    except RecursionError:
        raise InputError(f"invalid YAML: nested too deeply (limit {limits.max_depth})", path=path) from None


def load_yaml(text: str, path: Path | str, *, limits: Limits = DEFAULT, int_keys: bool = False,
              nonfinite: bool = False) -> PositionedYaml:
    """Parse YAML ``text`` (from ``path``, for messages) within ``limits``; see :class:`PositionedYaml`."""
    return PositionedYaml(path, text, limits=limits, int_keys=int_keys, nonfinite=nonfinite)


def load_yaml_file(path: Path | str, *, limits: Limits = DEFAULT, root: Path | str | None = None,
                   int_keys: bool = False) -> PositionedYaml:
    """Read and parse a YAML file: bounded size, valid UTF-8, no symlink, inside ``root`` when given.

    Raises:
        InputError: see :func:`faultlib.readers.files.read_bytes` and :class:`PositionedYaml`.
    """
    return PositionedYaml(path, decode_text(read_bytes(path, limits=limits, root=root), path), limits=limits,
                          int_keys=int_keys)


#: vendor schema files (Chaos Mesh CRDs are up to a few MB, nested about 30 levels deep)
SCHEMA_FILES = Limits(max_bytes=64 * MiB, max_depth=128, max_nodes=5_000_000)


def load_yaml_documents(path: Path | str, *, limits: Limits = SCHEMA_FILES,
                        root: Path | str | None = None) -> list[PositionedYaml]:
    """Every non-empty document of a multi-document YAML file (``---``), with the same checks as
    :func:`load_yaml_file`, parsed by libyaml's C parser when PyYAML has it (15x faster on large
    files such as Chaos Mesh's CRDs; the depth is bounded before anything recursive runs).

    Raises:
        InputError: see :func:`load_yaml_file`.
    """
    text = decode_text(read_bytes(path, limits=limits, root=root), path)
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs: list[PositionedYaml] = []
    with _translated(path, text, limits):
        probe = PositionedYaml.__new__(PositionedYaml)
        probe.path, probe.limits, probe._lines = path, limits, {}
        probe._check_depth(text, loader_class)
        loader = loader_class(text)
        try:
            while loader.check_node():
                doc = PositionedYaml.__new__(PositionedYaml)
                doc.path, doc.limits, doc._lines = path, limits, {}
                doc._accept(loader.get_node(), loader)
                if doc.data is not None:
                    docs.append(doc)
        finally:
            loader.dispose()
    return docs
