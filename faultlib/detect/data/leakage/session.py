"""Scripts that run as one program, for the static leakage analysis: a *session*.

Data science code is often split over scripts that share one interpreter: a framework script defines
``train_model(train, features, fold)`` and is run first (``%run framework.py``, Spyder's "run file", ``exec``),
then each experiment script prepares features and calls it once per fold; or a script does
``from helpers import prepare``. Read alone, the experiment fits a PCA on every training row and the
cross-validation that scores those rows is invisible: it sits in the other file. Analysed together, the fit
and the folds are one program, and the leak is found where it is (:func:`join_scripts`).

Which scripts make a session:

* given: ``faultlib check leakage a.py b.py`` runs them in that order, as ``%run a.py`` then ``%run b.py``;
* discovered (:func:`session_members`), for one script: a sibling ``.py`` in its folder that it imports
  (``from helpers import f`` / ``from helpers import *``, also ``from .helpers import f``, or ``import helpers
  [as h]`` with its functions called as ``helpers.f(...)``; a package's module, ``from pkg.helpers import f``, is
  ``pkg/helpers.py`` under the folder or its parent, or, when ``pkg`` is not on disk, the tail of the path that
  is and defines the names imported: :mod:`.renamed`; a sibling that imports its own name, ``xgboost.py`` with
  ``import xgboost``, is a script named like the installed package, not the module meant), and a sibling that
  defines at top level a function or class the script calls but neither defines, imports nor gets from Python's
  builtins (a script that would stop with ``NameError`` unless something ran first), or that assigns at top level
  a variable the script reads and never sets (``X``, ``y`` left by a preparation script: :mod:`.needed`). When several siblings define
  such names, the one that defines most of them (and whose functions accept the calls' positional arguments)
  is taken; a tie is left out (ambiguous). Discovery follows the chosen siblings' own needs, up to
  :data:`MAX_MEMBERS` scripts, and runs each before the scripts that need it; the modules the script imports itself
  join up to :data:`MAX_DIRECT` (stop 50: a competition script importing nine feature modules lost the flow through
  the two past the bound, and with it every training statistic of the helpers it called before them).

The joined text keeps every line in place (:class:`~faultlib.detect.data.leakage.source.SourceMap` ``files`` maps
each line back to its script); ``from member import ...`` lines become ``pass`` (the names are the member's own,
already defined; ``import member [as m]`` lines too, and ``m.f`` becomes ``f`` in place), and an imported member's ``if __name__ == "__main__":`` block is blanked (an import does not run
it; ``%run`` does, so a discovered framework's block is kept).
"""

from __future__ import annotations

import ast
import builtins
import re
from functools import lru_cache
from pathlib import Path

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.needed import needed_variables, provided_variables, unassigned_data
from faultlib.detect.data.leakage.projimports import package_members, path_roots, reexported, resolve_from, resolve_import
from faultlib.detect.data.leakage.qualified import blank_module_imports, unqualify_members
from faultlib.detect.data.leakage.renamed import renamed_module
from faultlib.detect.data.leakage.source import SourceMap, clean_lines, parse_tolerant
from faultlib.pyflow.walk import walk_once

#: the most scripts one session joins (the script asked about included)
MAX_MEMBERS = 8
#: the most scripts a session joins when the script's own imports need more: each module it imports itself joins
#: (up to this bound) before any module those import; a module left out makes every table its helpers return unknown
MAX_DIRECT = 12
#: siblings read for discovery at most (a folder of hundreds of scripts is not a session)
MAX_SIBLINGS = 200
_BUILTINS = frozenset(dir(builtins))


def _parsed(path: Path) -> ast.Module | None:
    """The script's tree, by the text read now: a file changed since an earlier call is parsed again; the same text
    shares one tree (:func:`_text_tree`), so a session joining the script parses it no second time."""
    raw = _raw(path)
    return None if raw is None else _text_tree(raw)


def _raw(path: Path) -> str | None:
    """The script's text through the hardened reader, or None when it cannot be read."""
    from faultlib.errors import InputError
    from faultlib.readers import read_text

    try:
        return read_text(str(path))
    except (InputError, OSError):
        return None


def _may_cover(raw: str, missing: dict[str, list[int]], variables: set[str]) -> bool:
    """Whether a sibling's text can define a missing function or class (``def name``/``class name`` is written in it)
    or assign every needed variable (each name is written in it): a necessary condition, checked on the text so
    that a folder of hundreds of unrelated scripts is not parsed script by script (a 700-line Kaggle kernel in a
    folder of 200 spent four fifths of its analysis parsing siblings that define none of its names)."""
    if variables and all(v in raw for v in variables):
        return True
    pattern = r"\b(?:def|class)\s+(?:" + "|".join(map(re.escape, missing)) + r")\b"
    return bool(missing) and re.search(pattern, raw) is not None


@lru_cache(maxsize=512)
def _text_tree(raw: str) -> ast.Module | None:
    return _tree("\n".join(_cleaned(raw)))


@lru_cache(maxsize=512)
def _cleaned(raw: str) -> tuple[str, ...]:
    """:func:`~.source.clean_lines` of a script's text, shared by text: a writer joined with each of its readers
    (:mod:`.repofiles`) cleaned every member again, a scan of every character of each."""
    return tuple(clean_lines(raw.split("\n")))


def _defined(tree: ast.Module) -> dict[str, tuple[int, int, bool]]:
    """Top-level functions and classes: ``name -> (required positional, most positional, takes *args)``."""
    out: dict[str, tuple[int, int, bool]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            most = len(a.posonlyargs) + len(a.args)
            out[node.name] = (most - len(a.defaults), most, a.vararg is not None)
        elif isinstance(node, ast.ClassDef):
            out[node.name] = (0, 1 << 30, True)
    return out


def bound_names(tree: ast.Module) -> set[str]:
    """Every name the module binds anywhere (assignments, defs, classes, imports, parameters, loop targets)."""
    out: set[str] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _missing_calls(tree: ast.Module) -> dict[str, list[int]]:
    """Names called but never bound nor builtin: ``name -> [positional argument count of each call]``."""
    bound = bound_names(tree)
    out: dict[str, list[int]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in bound and \
                n.func.id not in _BUILTINS:
            starred = any(isinstance(a, ast.Starred) for a in n.args)
            out.setdefault(n.func.id, []).append(-1 if starred else len(n.args))
    return out


def _imported_siblings(tree: ast.Module, folder: Path) -> list[Path]:
    """The project's files the module imports, in every spelling :mod:`.projimports` resolves (a sibling, a module
    of a package under the folder or an ancestor, an ``__init__`` re-export, a relative import, a folder put on
    ``sys.path``), and a package renamed on disk (:mod:`.renamed`)."""
    out: list[Path] = []
    extra = path_roots(tree, folder)
    for n in walk_once(tree):
        cands: list[Path] = []
        if isinstance(n, ast.ImportFrom):
            cands = resolve_from(n, folder, extra, _parsed)
            if not cands and n.module and n.level <= 1:
                cand = renamed_module(n, folder, _parsed)  # a package renamed on disk (renamed.py)
                cands = [cand] if cand is not None else []
        elif isinstance(n, ast.Import):
            cands = [c for a in n.names if (c := resolve_import(a, folder, extra)) is not None]
        for cand in cands:
            if cand not in out and not _imports_itself(cand):
                out.append(cand)
            for used in _package_uses(tree, n, cand):  # models.evaluate_model: the module defining it (projimports)
                if used not in out and not _imports_itself(used):
                    out.append(used)
    return out


def _package_uses(tree: ast.Module, node: ast.ImportFrom | ast.Import, init: Path) -> list[Path]:
    """The modules defining what ``tree`` reads off a package it imported as a module by ``node``
    (``from src import models`` or ``import src.models as models`` with ``init`` = ``src/models/__init__.py``, then
    ``models.evaluate_model(...)``): :func:`~.projimports.package_members` of the attributes read."""
    if init.name != "__init__.py" or not isinstance(node, (ast.ImportFrom, ast.Import)):
        return []
    aliases = {a.asname or a.name for a in node.names if a.name.rsplit(".", 1)[-1] == init.parent.name
               and (isinstance(node, ast.ImportFrom) or a.asname or "." not in a.name)}
    if not aliases:
        return []
    attrs = {n.attr for n in walk_once(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
             and n.value.id in aliases}
    return [p for p in package_members(init, attrs, _parsed) if p != init]


#: calls that fit, score or split: where every leakage finding is (a module without one moves only data)
_MODEL_CALLS = frozenset({"fit", "fit_transform", "fit_resample", "transform", "fit_generator", "train_on_batch"}) \
    | vocab.EVALUATE | vocab.SPLIT_FUNCTIONS | vocab.SPLITTERS | vocab.CV_FUNCTIONS


def _models_work(path: Path) -> bool:
    """The module calls a model's ``fit``/``predict``/``transform``/``score``, a split or a cross-validation: when a
    script imports more of the project's modules than a session joins (:data:`MAX_DIRECT`), these join first (a
    package's plotting or widget modules, read as unknown calls, hide no fit and no score; the helper that scores
    every candidate on the test rows is lost when it is crowded out). An ``__init__`` that only re-exports joins
    with them (its import lines tell how its package's names are spelled)."""
    tree = _parsed(path)
    if tree is None:
        return False
    if path.name == "__init__.py" and all(isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr, ast.Assign))
                                          for n in tree.body):
        return True
    return any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr in _MODEL_CALLS
                                            or isinstance(n.func, ast.Name) and n.func.id in _MODEL_CALLS)
               for n in walk_once(tree))


def _imports_itself(path: Path) -> bool:
    """``xgboost.py`` that does ``import xgboost as xgb``: a script named like the installed package it uses (a
    folder of Kaggle kernels saved under their titles). A module cannot mean itself by that import, so the name
    is the installed package for this script and for every sibling that imports it: not a session member."""
    tree = _parsed(path)
    if tree is None:
        return False
    own = path.stem
    return any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == own for a in n.names)
               or isinstance(n, ast.ImportFrom) and not n.level and (n.module or "").split(".")[0] == own
               for n in walk_once(tree))


def _accepts(sig: tuple[int, int, bool], counts: list[int]) -> bool:
    required, most, star = sig
    return all(c < 0 or (c >= required and (star or c <= most)) for c in counts)


def _definers(tree: ast.Module, path: Path, taken: list[Path]) -> list[Path]:
    """The siblings that define what ``tree`` calls and does not bind (see the module docstring)."""
    missing = _missing_calls(tree)
    variables = needed_variables(tree, bound_names, path.parent) - set(missing)  # X, y set by prep.py (needed.py)
    if not missing and not variables:
        return []
    siblings = sorted(p for p in path.parent.glob("*.py") if p != path and p not in taken)[:MAX_SIBLINGS]
    covers: dict[Path, set[str]] = {}
    for sib in siblings:
        raw = _raw(sib)
        if raw is None or not _may_cover(raw, missing, variables):
            continue
        parsed = _text_tree(raw)
        if parsed is None:
            continue
        defs = _defined(parsed)
        names = {m for m, counts in missing.items() if m in defs and _accepts(defs[m], counts)}
        names |= variables if variables and variables <= provided_variables(parsed) else set()  # all (needed.py)
        if names:
            covers[sib] = names
    chosen: list[Path] = []
    left = set(missing) | variables
    while covers:
        best = max(len(names & left) for names in covers.values())
        if not best:
            break
        top = [p for p, names in covers.items() if len(names & left) == best]
        if len(top) > 1:
            left -= set().union(*(covers[p] for p in top))  # ambiguous: two siblings define the same names
            for p in top:
                del covers[p]
            continue
        chosen.append(top[0])
        left -= covers.pop(top[0])
    return chosen


def session_members(path: str | Path, code: ast.Module | None = None) -> list[Path]:
    """The scripts to run with ``path`` as one session, in run order, ``path`` last (see the module docstring).

    ``code``: a notebook's code cells (:mod:`.nbimports`): only the modules they import join (a notebook runs no
    sibling script unasked), each with its own session.

    Returns ``[path]`` alone when it needs no sibling (most scripts), or when it is not a parsable ``.py``.
    """
    path = Path(path)
    order: list[Path] = []

    direct: list[Path] = []  # the script's own imports: a helper's helpers never crowd one of them out

    def visit(p: Path, depth: int, own: ast.Module | None = None) -> None:
        tree = own if own is not None else _parsed(p)
        if tree is not None and depth < MAX_MEMBERS:
            needs = [] if own is not None else _definers(tree, p, order + [path])
            deps = _imported_siblings(tree, p.parent) + needs
            if not depth and len(dict.fromkeys(deps)) >= MAX_DIRECT - 1:  # more than fit: model code first
                deps = sorted(dict.fromkeys(deps), key=lambda d: not _models_work(d))
            if not depth:
                direct.extend(d for d in deps if d != path)
            for dep in deps:
                waiting = sum(d not in order and d != dep for d in dict.fromkeys(direct)) if depth else 0
                bound = MAX_MEMBERS if depth else MAX_DIRECT
                if dep not in order and dep != path and len(order) + waiting < bound - 1:
                    order.append(dep)  # claimed before its own needs are visited (no cycles)
                    visit(dep, depth + 1)
                    order.remove(dep)
                    order.append(dep)  # ... and runs after them

    if code is not None:
        visit(path, 0, code)
    elif path.suffix.lower() in (".py", ".pyw"):
        visit(path, 0)
    return [*order, path]


def left_out(path: str | Path, members: list[Path]) -> list[Path]:
    """The project modules ``path`` imports itself that :func:`session_members` did not join (past
    :data:`MAX_DIRECT`): their functions run as unknown calls, so what they do to the rows is not analysed and the
    report must not say complete (issue 17: ``complete`` is true only when everything reachable was analysed)."""
    path = Path(path)
    tree = _parsed(path)
    if tree is None:
        return []
    joined = {m.resolve() for m in members}
    return [d for d in dict.fromkeys(_imported_siblings(tree, path.parent)) if d.resolve() not in joined]


def join_scripts(paths: list[str | Path], entry: str | None = None, last: str | None = None) -> tuple[str, SourceMap]:
    """One program from ``paths`` run in order; the map says which script each line is from.

    Args:
        paths: ``.py`` scripts (read through :mod:`faultlib.readers`), in the order they run.
        entry: the file the report is about (default: the last).
        last: the last member's text, already cleaned (a notebook's code cells, :mod:`.nbimports`), in place of
            its file's.

    Raises:
        InputError: a script cannot be read.
    """
    from faultlib.readers import read_text

    names = {Path(p).stem for p in paths}
    members = {Path(p).resolve() for p in paths}
    lines: list[str] = []
    files: list[tuple[str, int, int]] = []
    imported = set()
    texts, trees = [], []
    for i, p in enumerate(paths):
        raw = last.split("\n") if last is not None and i == len(paths) - 1 else _cleaned(read_text(str(p)))
        text = list(raw)  # a copy: the joins below change it in place
        texts.append(text)
        trees.append(tree := _tree("\n".join(text)))
        if tree is not None:
            imported.update(_last(n.module) for n in walk_once(tree) if isinstance(n, ast.ImportFrom)
                            and _last(n.module) in names)
            imported.update(a.name for n in walk_once(tree) if isinstance(n, ast.Import) for a in n.names
                            if a.name in names)
            imported.update(Path(f).stem for f in _member_imports(tree, Path(p), members)[2])
    defined = {Path(p).stem: set(_defined(t)) if t is not None else set() for p, t in zip(paths, trees)}
    # from src import models; models.f(x) -> f(x) where src/models/__init__.py re-exports a member's f (projimports)
    defined.update({_package_key(Path(p)): reexported(Path(p), members, _parsed) for p in paths
                    if Path(p).name == "__init__.py"})
    for p, text, tree in zip(paths, texts, trees):
        if tree is not None:
            resolved, aliases, _ = _member_imports(tree, Path(p), members)
            # import helpers; helpers.f(x) -> f(x); from pkg import helpers as h; h.f(x) -> f(x) (qualified.py)
            unqualify_members(text, tree, defined, aliases)
            _blank_joined_imports(text, tree, names, resolved)
            if Path(p).stem in imported:
                _blank_main(text, tree)
        files.append((str(p), len(lines) + 1, len(text)))
        lines.extend(text)
    return "\n".join(lines) + "\n", SourceMap(entry or str(paths[-1]), None, files=files)


@lru_cache(maxsize=512)
def _tree(text: str) -> ast.Module | None:
    """The script's statements, for its imports and main guard: Python 2 ``print`` lines read as calls and any
    other statement that does not parse left out (line numbers kept); ``None`` when nothing parses. Shared by text
    (a tree is read, never changed, by its users)."""
    from faultlib.errors import InputError

    try:
        return parse_tolerant(text, SourceMap("<session member>"))
    except (SyntaxError, InputError):
        return None  # parse_tolerant reports what does not parse (when the member is analysed)


def _blank(text: list[str], node: ast.stmt, keep: str) -> None:
    first = node.lineno - 1
    indent = text[first][:len(text[first]) - len(text[first].lstrip())]
    text[first] = f"{indent}{keep}"
    for i in range(first + 1, node.end_lineno or node.lineno):
        text[i] = ""


def _member_imports(tree: ast.Module, path: Path, members: set[Path]) -> tuple[set[int], dict[str, str], set[Path]]:
    """The import statements of ``tree`` that load only session members (:mod:`.projimports`), by ``id``; the
    names that stand for a member module (``from pkg import helpers as h``, ``import pkg.helpers as h``: ``h`` ->
    ``'helpers'``); and the member files imported."""
    folder, extra = path.parent, path_roots(tree, path.parent)
    nodes: set[int] = set()
    aliases: dict[str, str] = {}
    files: set[Path] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.ImportFrom):
            found = [f.resolve() for f in resolve_from(n, folder, extra, _parsed)]
            if found and set(found) <= members:
                nodes.add(id(n))
                files.update(found)
                for a in n.names:
                    sub = resolve_from(ast.ImportFrom(n.module, [a], n.level), folder, extra, _parsed)
                    if sub and sub[0].stem == a.name:  # a module of the package, not a name defined in one
                        aliases[a.asname or a.name] = a.name
                    elif sub and sub[0].name == "__init__.py" and sub[0].parent.name == a.name:
                        aliases[a.asname or a.name] = _package_key(sub[0])  # a subpackage: its re-exports
        elif isinstance(n, ast.Import):
            found = [resolve_import(a, folder, extra) for a in n.names]
            if all(f is not None and f.resolve() in members for f in found):
                nodes.add(id(n))
                files.update(f.resolve() for f in found if f is not None)
                aliases.update({a.asname: _package_key(f) if f is not None and f.name == "__init__.py"
                                else a.name.rsplit(".", 1)[-1] for a, f in zip(n.names, found) if a.asname})
                aliases.update({a.name: _package_key(f) for a, f in zip(n.names, found) if not a.asname and f is not
                                None and f.name == "__init__.py" and "." not in a.name})  # import src; src.f(x)
    return nodes, aliases, files


def _package_key(init: Path) -> str:
    """The key of a package's ``__init__.py`` among the joined members' names (a stem never holds a ``/``)."""
    return str(init.resolve())


def _blank_joined_imports(text: list[str], tree: ast.Module, names: set[str], resolved: set[int]) -> None:
    for n in walk_once(tree):
        if isinstance(n, ast.ImportFrom) and (_last(n.module) in names and n.level <= 1 or id(n) in resolved):
            # from helpers import prepare as prep: the member's own name, under the alias the script calls
            renamed = [f"{a.asname} = {a.name}" for a in n.names if a.asname and a.asname != a.name and a.name != "*"]
            _blank(text, n, "; ".join(renamed) or "pass")
    for n in blank_module_imports(tree, names):
        _blank(text, n, "pass")
    for n in walk_once(tree):
        if isinstance(n, ast.Import) and id(n) in resolved:
            _blank(text, n, "pass")


def _last(module: str | None) -> str:
    """``'exp.features'`` -> ``'features'``: the stem of the joined script a ``from ... import`` names."""
    return (module or "").rsplit(".", 1)[-1]


def _blank_main(text: list[str], tree: ast.Module) -> None:
    for n in tree.body:
        if isinstance(n, ast.If) and "__name__" in ast.unparse(n.test) and "__main__" in ast.unparse(n.test):
            _blank(text, n, "pass")


def unresolved_inputs(path: str | Path) -> tuple[list[str], list[str]]:
    """For a ``.py`` script analysed alone: the data it fits, splits or scores but never assigns (``X``, ``y`` left
    by a script that ran before it), sorted, and the sibling ``.py`` files that could not be read or parsed (not
    UTF-8, a symbolic link, too large, not Python), which may be where those names come from. ``([], [])`` when the
    script assigns all its data."""
    path = Path(path)
    tree = _parsed(path)
    names = unassigned_data(tree, bound_names, path.parent) if tree is not None else set()
    if not names:
        return [], []
    siblings = sorted(p for p in path.parent.glob("*.py") if p != path)[:MAX_SIBLINGS]
    return sorted(names), [p.name for p in siblings if _parsed(p) is None]


__all__ = ["MAX_DIRECT", "MAX_MEMBERS", "join_scripts", "left_out", "session_members", "unresolved_inputs"]
