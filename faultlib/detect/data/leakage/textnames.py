"""Names that hold text -- a file name, a path, a string built from them -- and never rows of data.

:mod:`.rowcuts` reads a slice as a cut of rows (``X[:n]``, ``df.iloc[n:]``), but the same syntax drops a file's
extension or keeps a prefix of a string: ``name[:-4]`` of ``for name in os.listdir(folder)``, ``path[:-3]`` of
``path = os.path.join(root, f)``. Python slices a ``str`` into a ``str`` (Python Language Reference, "Sequence
types: str"): no row is held out. :func:`text_names` gives the names every binding of which in the program is text:

* a string constant, an f-string, a string concatenation or ``%``-format, ``str(...)``;
* a path function's result (``os.path.join``/``basename``/``dirname``/``abspath``/..., ``os.getcwd()``), a
  separator's ``join`` (``"_".join(parts)``), a piece of a string split (``f.split(".")[0]``,
  ``os.path.splitext(f)[0]``);
* a string method (``replace``, ``lower``, ``strip``, ``format``...) called on text (a constant or another text name:
  ``df.replace(...)`` of a frame stays data);
* the loop variable of a walk over a folder's listing (``os.listdir``, ``glob.glob``, maybe ``sorted``/``tqdm``).

A name bound once to anything else (a frame read from a file, an array) is not text."""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.fileentities import _LISTINGS, _WRAPPERS
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import tree_fact, walk_once

__all__ = ["text_names"]

#: functions whose result is a path string (``os.path``; ``os.getcwd``)
_PATH_CALLS = frozenset({"join", "basename", "dirname", "abspath", "relpath", "realpath", "normpath", "expanduser",
                         "expandvars", "getcwd", "as_posix", "str"})
#: string methods whose result is text when their receiver is
_STRING_METHODS = frozenset({"replace", "lower", "upper", "strip", "lstrip", "rstrip", "format", "zfill", "title",
                             "capitalize", "removesuffix", "removeprefix", "casefold"})
#: calls returning pieces of a string (indexed: ``f.split(".")[0]``)
_PIECES = frozenset({"split", "rsplit", "splitext", "partition", "rpartition"})
#: receivers of ``join``/``split`` that are the path module
_PATH_MODULES = ("os.path", "path", "posixpath", "ntpath")


def _text(node: ast.expr | None, names: set[str]) -> bool:
    """``node`` computes text, given the ``names`` known to hold text."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _text(node.left, names) or isinstance(node.op, ast.Add) and _text(node.right, names)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and call_name(node.value) in _PIECES:
        return _text_call(node.value, names) or call_name(node.value) == "splitext"
    if isinstance(node, ast.Subscript):
        return _text(node.value, names)  # a slice or a character of text
    return isinstance(node, ast.Call) and _text_call(node, names)


def _text_call(call: ast.Call, names: set[str]) -> bool:
    name = call_name(call)
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if name in _PATH_CALLS:
        return receiver is None and name == "str" or receiver is not None and (
            ast.unparse(receiver) in _PATH_MODULES or name in ("join", "as_posix") and _text(receiver, names)
            or name == "getcwd")
    if name in _STRING_METHODS or name in _PIECES:
        return receiver is not None and _text(receiver, names)
    return False


def _listing(node: ast.expr) -> bool:
    """A folder's listing, maybe wrapped: ``sorted(os.listdir(d))``, ``glob.glob(p)``."""
    while isinstance(node, ast.Call) and call_name(node) in _WRAPPERS and node.args:
        node = node.args[0]
    return isinstance(node, ast.Call) and call_name(node) in _LISTINGS - {"iterdir", "rglob", "scandir"}


def _bindings(tree: ast.AST) -> dict[str, list[ast.expr | None]]:
    """Each plainly bound name -> its values (``None``: a value that is a file name from a listing)."""
    out: dict[str, list[ast.expr | None]] = {}
    for n in walk_once(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(n.value)
                else:
                    for m in ast.walk(t):
                        if isinstance(m, ast.Name):
                            out.setdefault(m.id, []).append(t)  # unpacked: not known
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            out.setdefault(n.target.id, []).append(n.value)
        elif isinstance(n, (ast.For, ast.comprehension)):
            for m in ast.walk(n.target):
                if isinstance(m, ast.Name):
                    out.setdefault(m.id, []).append(None if isinstance(n.target, ast.Name) and _listing(n.iter)
                                                    else n.target)
    return out


def _text_names(tree: ast.AST) -> frozenset[str]:
    bindings = _bindings(tree)
    names: set[str] = set()
    while True:  # a name built from text names is text: grow until nothing changes
        grown = {name for name, values in bindings.items()
                 if all(v is None or v is not None and _text(v, names | {name}) for v in values)}
        grown = {name for name in grown if any(v is None or _text(v, names) for v in bindings[name])}
        if grown <= names:
            return frozenset(names)
        names |= grown


def text_names(tree: ast.AST) -> frozenset[str]:
    """The names every binding of which holds text (see the module docstring); once per tree
    (:func:`~faultlib.pyflow.walk.tree_fact`)."""
    return tree_fact(tree, _text_names)
