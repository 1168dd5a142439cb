"""Files of one family: written one per item under a name with a fixed ending, read back by a listing filtered on it.

Signal pipelines keep one file per recording between their stages. One stage writes each recording's windows under
the recording's name and a fixed ending; a later stage lists the folder and reads back every file with that ending::

    for fname in os.listdir(src):                                  # stage 1: one file per recording
        X, y = segment(np.load(os.path.join(src, fname))['data'])
        np.savez(os.path.join(dst, f"{fname[:-4]}_segmented.npz"), X=X, y=y)

    for fname in os.listdir(folder):                               # stage 2: every file of the family
        if fname.endswith('_segmented.npz'):
            part = np.load(os.path.join(folder, fname))
            xs.append(part['X'])

Neither path is known (a name built at run time, folders given by the caller, often written differently in the two
calls: :mod:`.pathexprs` gives up on both), but the ending names the family: the reader keeps only the files whose
name ends as the writer's names end. The rows read back are the rows written, so what shaped them (a fit, windows cut
from one series: issue 17 wave 86, a seizure notebook whose overlapping windows reached a shuffled split through
``*_segmented.npz`` files) still holds.

Read from the syntax alone:

* **the writer's ending**: the file-name part of a write's path (the last argument of ``os.path.join``, the path
  itself, or a name bound once in the writing function to one of them) is an f-string, ``str.format`` or ``+``
  whose last piece is a constant after at least one run-time value (``f"{base}_segmented.npz"``,
  ``name + '_feats.csv'``): that constant;
* **the reader's filter**: the file-name part of a read's path is the variable of an enclosing ``for`` over a
  listing of files (``os.listdir``, ``glob``, ``Path.iterdir``..., maybe in ``sorted``), and the read sits under an
  ``if`` of that loop that tests ``name.endswith('<ending>')``, or the listing is a ``glob('*<ending>')``.

They match when the writer's ending ends with the reader's and the reader's ending names more than a file type: a
stem before the extension (``_segmented.npz``, not ``.npz``), so a folder of unrelated ``.npz`` files is not taken for
the family.
"""

from __future__ import annotations

import ast
import posixpath

from faultlib.pyflow.walk import walk_once

#: calls that list the files of a folder (Python library reference: ``os.listdir``, ``os.scandir``, ``glob.glob``,
#: ``pathlib.Path.glob``/``rglob``/``iterdir``)
_LISTINGS = frozenset({"listdir", "scandir", "glob", "iglob", "rglob", "iterdir"})
_GLOBS = frozenset({"glob", "iglob", "rglob"})


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _file_part(node: ast.expr) -> ast.expr:
    """The file-name part of a path expression: the last argument of ``os.path.join(...)``, else the path itself."""
    if isinstance(node, ast.Call) and _callee(node) in ("join", "joinpath") and node.args:
        return node.args[-1]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # Path(folder) / name
        return node.right
    return node


def _bound_once(node: ast.expr, bindings: dict[str, list[ast.expr]]) -> ast.expr:
    """A name bound once (in what ``bindings`` shows) stands for its value."""
    if isinstance(node, ast.Name) and len(bindings.get(node.id, [])) == 1:
        return bindings[node.id][0]
    return node


def _meaningful(ending: str) -> bool:
    """An ending that names more than a file type: a stem before the extension (``_segmented.npz``)."""
    stem, ext = posixpath.splitext(ending)
    return bool(ext) and len(stem.strip("._- ")) >= 2 and "/" not in ending


def written_ending(path: ast.expr | None, bindings: dict[str, list[ast.expr]]) -> str | None:
    """The constant ending of a written file's name built at run time (see the module docstring), or ``None``."""
    if path is None:
        return None
    name = _bound_once(_file_part(_bound_once(path, bindings)), bindings)
    ending: str | None = None
    if isinstance(name, ast.JoinedStr) and len(name.values) > 1 and isinstance(name.values[-1], ast.Constant) and \
            any(isinstance(v, ast.FormattedValue) for v in name.values):
        ending = name.values[-1].value
    elif isinstance(name, ast.BinOp) and isinstance(name.op, ast.Add) and isinstance(name.right, ast.Constant) and \
            not isinstance(name.left, ast.Constant):
        ending = name.right.value
    elif isinstance(name, ast.Call) and _callee(name) == "format" and isinstance(name.func, ast.Attribute) and \
            isinstance(name.func.value, ast.Constant) and isinstance(name.func.value.value, str):
        text = name.func.value.value
        ending = text[text.rfind("}") + 1:] if "}" in text else None
    return ending if isinstance(ending, str) and _meaningful(ending) else None


def _parents(tree: ast.Module) -> dict[int, ast.AST]:
    found = tree.__dict__.get("_faultlib_parents")
    if found is None:
        found = tree.__dict__["_faultlib_parents"] = {}
        for n in walk_once(tree):
            for c in ast.iter_child_nodes(n):
                found[id(c)] = n
    return found


def _listing(it: ast.expr) -> ast.Call | None:
    while isinstance(it, ast.Call) and _callee(it) in ("sorted", "list", "tqdm") and it.args:
        it = it.args[0]
    return it if isinstance(it, ast.Call) and _callee(it) in _LISTINGS else None


def _endswith_tests(test: ast.expr, var: str) -> list[str]:
    """The constants ``var.endswith(...)`` is tested against in an ``if`` condition."""
    out = []
    for n in ast.walk(test):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "endswith" and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == var and n.args and \
                isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
            out.append(n.args[0].value)
    return out


def read_ending(path: ast.expr | None, call: ast.Call, tree: ast.Module,
                bindings: dict[str, list[ast.expr]]) -> str | None:
    """The ending a read's listing filters on (see the module docstring), or ``None``."""
    if path is None:
        return None
    name = _file_part(_bound_once(path, bindings))
    if isinstance(name, ast.JoinedStr):  # f"{folder}/{fname}"
        parts = [v.value for v in name.values if isinstance(v, ast.FormattedValue)]
        name = parts[-1] if parts else name
    if not isinstance(name, ast.Name):
        return None
    var, parents = name.id, _parents(tree)
    node: ast.AST = call
    guards: list[str] = []
    while id(node) in parents:
        parent = parents[id(node)]
        if isinstance(parent, ast.If) and node in parent.body:
            guards += _endswith_tests(parent.test, var)
        if isinstance(parent, (ast.For, ast.AsyncFor)) and isinstance(parent.target, ast.Name) and \
                parent.target.id == var and node in parent.body:
            listing = _listing(parent.iter)
            if listing is None:
                return None
            if _callee(listing) in _GLOBS and listing.args and isinstance(listing.args[-1], ast.Constant) and \
                    isinstance(listing.args[-1].value, str) and "*" in listing.args[-1].value:
                guards.append(listing.args[-1].value.rsplit("*", 1)[1])
            endings = [g for g in guards if _meaningful(g)]
            return max(endings, key=len) if endings else None
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
        node = parent
    return None


def same_family(written: str, read: str) -> bool:
    """A written name's ending and a reader's filter name one family (the written ending ends with the filter)."""
    return written.endswith(read)


__all__ = ["read_ending", "same_family", "written_ending"]
