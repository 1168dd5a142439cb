"""Which file an expression names, read from the source alone, for the leakage analysis of files handed on.

``prep.py`` writes ``df.to_csv(os.path.join(DATA, 'feats.csv'))`` and ``model.py`` reads
``pd.read_csv(f'{DATA}/feats.csv')``: both name one file when their parts are constants. :func:`path_of` turns a
path expression into a :class:`FilePath` (a POSIX path normalised by ``posixpath.normpath``) from:

* string literals; names bound to a path expression in the same function, or at the top level of the same script
  (a name bound to two different paths in one scope is ambiguous: unknown);
* names and attributes imported from a module of the same repository (``from config import DATA_DIR``,
  ``import settings as s; s.DATA_DIR``): the module's top-level constants (:class:`PathEnv` ``modules``);
* ``os.path.join``, ``pathlib.Path(...)`` and ``/``, ``.joinpath``, ``str(...)``, ``+``, f-strings, ``%`` and
  ``.format`` whose every part is known.

When only the last component is known (``os.path.join(sys.argv[1], 'feats.csv')``,
``f'{root}/feats.csv'``) the result keeps the file name and marks the folder unknown (``exact=False``);
anything else (a loop variable, a name built at run time) is ``None``: no guess. :func:`same_file` says when a
write and a read name one file (the rules are in its docstring).

Sources: Python's ``os.path.join``/``posixpath.normpath`` and ``pathlib.PurePath`` semantics (library reference).
"""

from __future__ import annotations

import ast
import bisect
import copy
import posixpath
import re
from dataclasses import dataclass
from typing import Callable

from faultlib.detect.data.leakage.movedfiles import moved_by_hand
from faultlib.detect.data.leakage.nonedefaults import set_when_none
from faultlib.detect.data.leakage.targets import node_name
from faultlib.pyflow.walk import children, walk_once

#: the most characters a path may have (longer strings are text, not paths)
MAX_PATH = 400
_PATH_CALLS = frozenset({"Path", "PurePath", "PosixPath", "WindowsPath", "str", "abspath", "normpath",
                         "realpath", "expanduser", "fspath"})
_FIELD = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdrif]|\{[^{}]*\}")


@dataclass(frozen=True)
class FilePath:
    """A path named by an expression.

    Attributes:
        text: the POSIX path, normalised (``a/./b/../c.csv`` -> ``a/c.csv``); with ``exact=False`` only the file
            name is known and ``text`` is that name.
        exact: the folder part is known too (it may still be relative to the unknown working directory).
    """

    text: str
    exact: bool = True

    @property
    def name(self) -> str:
        return posixpath.basename(self.text)


def _norm(text: str) -> str | None:
    text = text.strip().replace("\\", "/")
    if not text or len(text) > MAX_PATH or "\n" in text:
        return None
    return posixpath.normpath(text)


def _tail(text: str) -> str | None:
    """The file name after the last ``/`` of a text whose head is unknown (``{root}/feats.csv``)."""
    name = text.replace("\\", "/").rsplit("/", 1)
    return name[1] if len(name) == 2 and name[1] and "." in name[1] else None


def _inexact(name: str | None) -> FilePath | None:
    return FilePath(name, False) if name and "{" not in name and "%" not in name else None


def _join(parts: list[FilePath | None]) -> FilePath | None:
    """``os.path.join``: a later absolute part restarts the path; an unknown part keeps only what follows it."""
    if not parts or parts[-1] is None:
        return None
    known: list[str] = []
    exact = True
    for part in parts:
        if part is None:
            known, exact = [], False
            continue
        if not part.exact:
            known, exact = [], False
        if part.text.startswith("/"):
            known, exact = [], exact and part.exact
        known.append(part.text)
    text = _norm(posixpath.join(*known))
    if text is None:
        return None
    return FilePath(text) if exact else _inexact(posixpath.basename(text))


class PathEnv:
    """The path constants a module's code can see: per scope (a function, or the top level of one script of a
    session: ``segments``), and the top-level constants of the repository's other modules (``modules``:
    ``{module stem: {name: FilePath}}``).

    Args:
        tree: the module (a session's joined scripts).
        segments: ``(first line, last line)`` of each script in ``tree`` (default: one).
        modules: the repository's modules' top-level path constants, by module stem.
        config_keys: the file each key of the project's YAML configuration names (:mod:`.yamlpaths`): an attribute
            or string subscript of that name names the file.
    """

    def __init__(self, tree: ast.Module, segments: list[tuple[int, int]] | None = None,
                 modules: dict[str, dict[str, FilePath]] | None = None, config_keys: dict[str, FilePath] | None = None):
        self.modules = modules or {}
        self.config_keys = config_keys or {}  # keys of the project's YAML naming one file each (yamlpaths.py)
        self._segments = segments or [(1, 1 << 30)]
        self._scopes: dict[int, dict[str, list[ast.expr]]] = {}
        self._spans: list[tuple[int, int, int]] = []  # (first, last, scope id) of each function, innermost last
        self._imports: dict[int, dict[str, tuple[str, str | None]]] = {}  # scope -> local name -> (module, name)
        self._known: dict[tuple[str, tuple[int, ...]], FilePath | None] = {}  # lookup's answers by name and scopes
        for index, (first, last) in enumerate(self._segments):
            top = -1 - index
            self._scopes[top] = {}
            self._imports[top] = {}
            for node in tree.body:
                if first <= node.lineno <= last:
                    self._collect(node, top)
        for node in walk_once(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._scopes[id(node)] = {}
                self._imports[id(node)] = {}
                self._spans.append((node.lineno, node.end_lineno or node.lineno, id(node)))
                a = node.args
                fallback = set_when_none(node)  # if path is None: path = config.X (nonedefaults.py)
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is not None and arg.arg not in fallback:  # a parameter: whatever the caller passes
                        self._scopes[id(node)].setdefault(arg.arg, []).append(ast.Constant(None))
                for stmt in node.body:
                    self._collect(stmt, id(node))
        self._spans.sort(key=lambda s: (s[0], -s[1]))
        self._firsts = [first for first, _, _ in self._spans]
        self._parents: list[int] = []  # the index of the span each span is nested in (-1: none)
        open_spans: list[int] = []
        for i, (first, _, _) in enumerate(self._spans):
            while open_spans and self._spans[open_spans[-1]][1] < first:
                open_spans.pop()
            self._parents.append(open_spans[-1] if open_spans else -1)
            open_spans.append(i)

    def _collect(self, node: ast.stmt, scope: int) -> None:
        """Simple bindings ``name = expr`` and imports of one scope, not descending into nested functions."""
        todo: list[ast.AST] = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue  # its own scope
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        self._scopes[scope].setdefault(t.id, []).append(n.value)
                    else:  # a, b = ...: those names are not constants
                        for name in ast.walk(t):
                            if isinstance(name, ast.Name):
                                self._scopes[scope].setdefault(name.id, []).append(ast.Constant(None))
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and isinstance(n.target, ast.Name):
                value = n.value if isinstance(n, ast.AnnAssign) and n.value is not None else ast.Constant(None)
                self._scopes[scope].setdefault(n.target.id, []).append(value)
            elif isinstance(n, (ast.With, ast.AsyncWith)):
                for item in n.items:  # with open(path, 'wb') as f: f stands for the file it opened
                    for name in ast.walk(item.optional_vars) if item.optional_vars is not None else ():
                        if isinstance(name, ast.Name):
                            self._scopes[scope].setdefault(name.id, []).append(
                                item.context_expr if isinstance(item.optional_vars, ast.Name) else ast.Constant(None))
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                for name in ast.walk(n.target):
                    if isinstance(name, ast.Name):
                        self._scopes[scope].setdefault(name.id, []).append(ast.Constant(None))
            elif isinstance(n, ast.ImportFrom) and n.module:
                for a in n.names:  # from config import *: every top-level constant of config (key "*config")
                    key = "*" + n.module.rsplit(".", 1)[-1] if a.name == "*" else a.asname or a.name
                    self._imports[scope][key] = (n.module.rsplit(".", 1)[-1], a.name)
            elif isinstance(n, ast.Import):
                for a in n.names:
                    self._imports[scope][a.asname or a.name.split(".")[0]] = (a.name.rsplit(".", 1)[-1], None)
            todo.extend(children(n))  # ast.iter_child_nodes' list, at less cost

    def seeing(self, modules: dict[str, dict[str, FilePath]] | None,
               config_keys: dict[str, FilePath] | None = None) -> PathEnv:
        """The same scopes (the module is not read again) seeing the repository's ``modules`` and ``config_keys``,
        with no answer remembered yet (an answer may depend on them)."""
        other = copy.copy(self)
        other.modules, other.config_keys, other._known = modules or {}, config_keys or {}, {}
        return other

    def scopes_at(self, line: int) -> list[int]:
        """The scopes a name on ``line`` is looked up in, innermost first (functions, then the script's top)."""
        inner = []  # functions nest, so those holding the line are the last one starting at or before it and the
        i = bisect.bisect_right(self._firsts, line) - 1  # ones it is nested in: a walk up, not a scan of every
        while i >= 0:  # function per lookup (quadratic: a script of 25,000 functions took minutes)
            if self._spans[i][1] >= line:
                inner.append(self._spans[i][2])
            i = self._parents[i]
        top = next((-1 - i for i, (first, last) in enumerate(self._segments) if first <= line <= last), -1)
        return [*inner, top]

    def lookup(self, name: str, line: int, depth: int = 0) -> FilePath | None:
        """The path a name holds on ``line``, or ``None`` (unbound, bound to other things, or ambiguous).

        Memoised by name and the scopes ``line`` sees (the answer depends on nothing else): a name rebound from itself
        (``p = p + "/x"`` in many places) otherwise re-evaluates every binding at every level, exponential in the
        number of bindings. A name whose own evaluation needs it again answers ``None`` there (a cycle).
        """
        scopes = tuple(self.scopes_at(line))
        key = (name, scopes)
        if key in self._known:
            return self._known[key]
        self._known[key] = None  # a cycle through this name answers None
        self._known[key] = found = self._lookup(name, scopes, line, depth)
        return found

    def _lookup(self, name: str, scopes: tuple[int, ...], line: int, depth: int) -> FilePath | None:
        for sid in scopes:
            values = self._scopes.get(sid, {}).get(name)
            if values:
                found = {path_of(v, self, line, depth + 1) for v in values}
                return found.pop() if len(found) == 1 else None
            imported = self._imports.get(sid, {}).get(name)
            if imported is not None:
                module, attr = imported
                return self.modules.get(module, {}).get(attr) if attr else None
        for sid in scopes:
            for key, (module, _) in self._imports.get(sid, {}).items():
                if key.startswith("*") and name in self.modules.get(module, {}):
                    return self.modules[module][name]
        return None

    def literal(self, node: ast.expr, line: int) -> str:
        """The string a literal, or a name bound only to one, holds as written (``FilePath`` drops a folder's
        trailing slash); ``""`` otherwise."""
        if isinstance(node, ast.Name):
            for sid in self.scopes_at(line):
                values = self._scopes.get(sid, {}).get(node.id)
                if values:
                    node = values[0] if len(values) == 1 else ast.Constant(None)
                    break
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""

    def imported(self, name: str, line: int) -> tuple[str, str | None] | None:
        """``(module stem, name or None)`` when ``name`` on ``line`` comes from an import (innermost scope first)."""
        for sid in self.scopes_at(line):
            if name in self._imports.get(sid, {}):
                return self._imports[sid][name]
            if name in self._scopes.get(sid, {}):
                return None
        return None

    def module_of(self, name: str, line: int) -> str | None:
        """The module stem a name stands for (``import config as c`` -> ``c`` is ``config``)."""
        for sid in self.scopes_at(line):
            imported = self._imports.get(sid, {}).get(name)
            if imported is not None:  # from package import settings: the module settings.py, if the repository has one
                return imported[0] if imported[1] is None else imported[1] if imported[1] in self.modules else None
            if name in self._scopes.get(sid, {}):
                return None
        return name if name in self.modules else None  # a session inlines config.py and blanks its import


def path_of(node: ast.expr | None, env: PathEnv, line: int, depth: int = 0) -> FilePath | None:  # noqa: C901
    """The file a path expression names (see the module docstring), or ``None`` when it cannot be known."""
    if node is None or depth > 12:
        return None
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            text = _norm(node.value)
            return FilePath(text) if text is not None else None
        return None
    if isinstance(node, ast.Name):
        return env.lookup(node.id, line, depth)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        module = env.module_of(node.value.id, line)
        return env.modules.get(module, {}).get(node.attr) if module else env.config_keys.get(node.attr)
    if isinstance(node, ast.Attribute) or isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.attr if isinstance(node, ast.Attribute) else node.slice.value  # type: ignore[union-attr]
        return env.config_keys.get(key) if isinstance(key, str) else None  # self.config.X_train_path (yamlpaths.py)
    if isinstance(node, ast.JoinedStr):
        text, known_tail = "", ""
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text += part.value
                known_tail += part.value
                continue
            value = path_of(part.value, env, line, depth + 1) if isinstance(part, ast.FormattedValue) and \
                part.format_spec is None and part.conversion in (-1, 115) else None
            if value is None or not value.exact:
                text, known_tail = "\0", ""
                continue
            text += value.text
            known_tail = ""
        if "\0" not in text:
            norm = _norm(text)
            return FilePath(norm) if norm else None
        return _inexact(_tail(known_tail))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = path_of(node.left, env, line, depth + 1), path_of(node.right, env, line, depth + 1)
        if left is not None and right is not None and left.exact and right.exact:
            sep = "/" if env.literal(node.left, line).endswith("/") else ""  # '/data/' + 'x.csv': the slash kept
            return FilePath(_norm(left.text + sep + right.text) or left.text)
        if right is not None and right.exact and isinstance(node.right, ast.Constant):
            return _inexact(_tail("x" + right.text) if "/" not in right.text else _tail(right.text))
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # pathlib: Path(DATA) / 'feats.csv'
        return _join([path_of(node.left, env, line, depth + 1), path_of(node.right, env, line, depth + 1)])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return _formatted(node.left.value, [path_of(a, env, line, depth + 1) for a in args])
    if isinstance(node, ast.Call):
        name = node_name(node.func)
        if name == "format" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant) \
                and isinstance(node.func.value.value, str) and not node.keywords:
            return _formatted(node.func.value.value, [path_of(a, env, line, depth + 1) for a in node.args])
        if name == "join" and isinstance(node.func, ast.Attribute) and _is_os_path(node.func.value) or \
                name == "joinpath":
            parts = [path_of(a, env, line, depth + 1) for a in node.args]
            if name == "joinpath":
                parts.insert(0, path_of(node.func.value, env, line, depth + 1))  # type: ignore[union-attr]
            return _join(parts)
        if name == "open" and node.args:  # open(path, 'wb'): the handle a writer is given names that file
            return path_of(node.args[0], env, line, depth + 1)
        if name in _PATH_CALLS and len(node.args) == 1 and not node.keywords:
            return path_of(node.args[0], env, line, depth + 1)
        if name in ("Path", "PurePath") and len(node.args) > 1:
            return _join([path_of(a, env, line, depth + 1) for a in node.args])
    return None


def _is_os_path(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "path" or isinstance(node, ast.Name) and node.id in (
        "path", "osp", "op")


def _formatted(template: str, values: list[FilePath | None]) -> FilePath | None:
    """``'%s/feats.csv' % DATA`` and ``'{}/feats.csv'.format(DATA)`` (positional fields only)."""
    fields = _FIELD.findall(template)
    if len(fields) == len(values) and all(v is not None and v.exact for v in values) and all(
            f in ("%s", "{}") or f.startswith("{") and f[1:-1].isdigit() for f in fields):
        pieces = _FIELD.split(template)
        order = [int(f[1:-1]) if f[1:-1].isdigit() else i for i, f in enumerate(fields)]
        if all(0 <= o < len(values) for o in order):
            text = pieces[0] + "".join(values[o].text + pieces[i + 1] for i, o in enumerate(order))  # type: ignore
            norm = _norm(text)
            return FilePath(norm) if norm else None
    last = _FIELD.split(template)[-1]
    return _inexact(_tail(last)) if "/" in last else None


#: pandas writers (``DataFrame.to_*``): the path is the first argument (pandas API reference, "Input/output")
TABLE_WRITERS = frozenset({"to_csv", "to_parquet", "to_pickle", "to_feather", "to_hdf", "to_json", "to_excel"})
#: ``module -> {function: (path position, value position)}`` for library writers (their API references:
#: ``numpy.save(file, arr)``, ``scipy.sparse.save_npz(file, matrix)``, ``joblib.dump(value, filename)``,
#: ``pickle.dump(obj, file)``, ``torch.save(obj, f)``)
LIBRARY_WRITERS = {
    "numpy": {"save": (0, 1), "savez": (0, 1), "savez_compressed": (0, 1), "savetxt": (0, 1)},
    "sparse": {"save_npz": (0, 1)}, "joblib": {"dump": (1, 0)}, "pickle": {"dump": (1, 0)},
    "torch": {"save": (1, 0)},
}
#: library readers (path first): NumPy, SciPy, joblib, pickle (a handle of ``open(path)``), torch
LIBRARY_READERS = {"numpy": {"load", "loadtxt", "genfromtxt"}, "sparse": {"load_npz"}, "joblib": {"load"},
                   "pickle": {"load"}, "torch": {"load"}}
_MODULE_ALIASES = {"np": "numpy", "sp": "sparse", "scipy": "sparse", "pkl": "pickle", "cPickle": "pickle"}
_PATH_KEYWORDS = ("path_or_buf", "path", "excel_writer", "filepath_or_buffer", "file", "fname", "filename", "f",
                  "io")


def _module(func: ast.expr, env: PathEnv, line: int) -> tuple[str, str] | None:
    """``(module, function)`` of a call's target: ``np.save`` -> ``(numpy, save)``; ``dump`` imported from
    joblib -> ``(joblib, dump)``."""
    if isinstance(func, ast.Attribute):
        base = func.value
        if isinstance(base, ast.Attribute):  # scipy.sparse.save_npz
            return base.attr, func.attr
        if isinstance(base, ast.Name):
            module = env.module_of(base.id, line) or base.id
            return _MODULE_ALIASES.get(module, module), func.attr
        return None
    if isinstance(func, ast.Name):
        imported = env.imported(func.id, line)
        if imported is not None and imported[1] is not None:
            return _MODULE_ALIASES.get(imported[0], imported[0]), imported[1]
    return None


def _argument(node: ast.Call, position: int) -> ast.expr | None:
    if len(node.args) > position:
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg in _PATH_KEYWORDS), None)


def file_access(node: ast.Call, env: PathEnv) -> tuple[str, ast.expr | None, int | None] | None:
    """What a call does with a file: ``("write", path expression, position of the value written)`` (``None``:
    the receiver, ``df.to_csv(path)``), ``("read", path expression, None)``, or ``None`` (no file access)."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in TABLE_WRITERS and isinstance(func, ast.Attribute):
        return "write", _argument(node, 0), None
    if name.startswith("read_"):  # pandas (pd.read_csv, or imported from pandas), polars
        return "read", _argument(node, 0), None
    found = _module(func, env, node.lineno)
    if found is None:
        return None
    module, fn = found
    if fn in LIBRARY_WRITERS.get(module, {}):
        path_at, value_at = LIBRARY_WRITERS[module][fn]
        return "write", _argument(node, path_at), value_at
    if fn in LIBRARY_READERS.get(module, ()):
        return "read", _argument(node, 0), None
    return None


def _dir_tail(text: str) -> list[str]:
    return [p for p in posixpath.dirname(text).split("/") if p not in ("", ".", "..")]


def same_file(written: FilePath, read: FilePath, name_unique: Callable[[str], bool]) -> bool:
    """A write and a read name one file.

    Their normalised paths are equal; or their file names are, the name is written at one path only in the
    repository (``name_unique``), and their folders agree where both are known (one folder's components, leading
    ``..`` and ``.`` dropped, end the other's: ``../data/f.csv`` and ``data/f.csv``; scripts run from other
    working directories). Two known, different folders (``raw/train.csv``, ``processed/train.csv``) never match,
    nor a bare name and a name in a folder (``train_data.csv`` written, ``../input/comp/train_data.csv`` read: a
    Kaggle input file of another kernel).
    """
    if written.exact and read.exact and written.text == read.text:
        return True
    if written.name != read.name or not name_unique(written.name):
        return False
    if not (written.exact and read.exact):
        return True
    a, b = _dir_tail(written.text), _dir_tail(read.text)
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if not short and moved_by_hand(written.text, read.text):  # t.pkl written, Processed/t.pkl read (movedfiles.py)
        return True
    return bool(short) and long_[len(long_) - len(short):] == short  # 'f.csv' vs '../input/x/f.csv': unknown


__all__ = ["FilePath", "PathEnv", "file_access", "path_of", "same_file"]
