"""Branches switched off by a module flag set once to a literal, for the static leakage analysis.

Kaggle notebooks and scripts switch whole sections with a flag set once near the top::

    fit_gaussians = False          # (a notebook's first cell)
    ...
    if fit_gaussians:              # (a later cell)
        for fit_rows, check_rows in StratifiedKFold(5).split(X, y):
            ...

As published the block does not run (Python language reference, "The if statement": the suite of a false test is
not executed; a name bound once keeps its value), as ``if False:`` does not, which
:class:`~faultlib.pyflow.interp.Interpreter` already skips. So the analysis follows only the branch the flag's
value takes (:class:`ModuleSwitches`), and a fit whose leak needs the other branch is a note at ``info`` naming
the flag and the line that sets it (:func:`switched_off_notes`: "runs only when fit_gaussians is set True at
line 23"), as an exploratory fit whose output reaches no model is.

A test is decided only when it is ``flag``, ``not flag``, ``flag ==``/``!=``/``is``/``is not`` a constant, or an
``and``/``or`` whose decided operands settle it, on a flag that is:

* bound exactly once in the whole program, by a statement of the module's top level (a notebook's cells are one
  module: a flag set in one cell and tested in a later one counts), to a literal ``True``/``False``, an ``int`` or
  ``None``; never a parameter, a loop, ``with`` or ``except`` target, an import, a ``global``/``nonlocal``
  name, a definition or the target of any other assignment (a flag also set from ``sys.argv``, the environment
  or a config file is bound twice and never decided);
* in a program that writes no globals dynamically (no ``globals()``, ``vars()``, ``locals()``, ``exec``,
  ``eval``, ``setattr`` or ``sys.modules``), and has no ``from ... import *`` after the flag's line;
* tested after the line that sets it, or inside a function (which runs later);
* not set in a notebook cell tagged ``parameters``: papermill injects a cell after it that may rebind any of its
  names (papermill documentation, "Parameterize": "the cell tagged parameters holds the defaults"), so its values
  are defaults, not the value the run takes;
* and it is no cache switch: the branch that does not run saves nothing and opens no file (:data:`~.vocab.SAVES`,
  ``save_``/``dump_``/``write_`` helpers, ``open``), and the branch that runs reads no file unless the other reads
  one too. ``if RECOMPUTE: build the features and save them``, then a read of the saved file, or ``if use_cache:
  X = pd.read_feather('X_tmp.ftr') else: X = gauss_rank(...)``, feeds the model from the branch not taken,
  through the file an earlier run with the other value wrote; ``if DEBUG: read 1,000 rows else: read them all``
  reads on both sides and is decided.

A class attribute of a configuration class is such a flag too (Kaggle notebooks keep their switches on a class,
``class CFG: debug = False`` then ``if CFG.debug:``): ``C.name`` where ``C`` is a class defined once at the module's
top level (never rebound) whose body sets ``name`` once to a literal, and no attribute of that name is assigned
anywhere else in the program (``CFG.debug = True``, ``self.debug = ...``, ``setattr``: never decided). Issue 17:
misses behind a config class's flag (fix 52).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

#: calls through which a program may write its global names without naming them
_DYNAMIC = frozenset({"globals", "vars", "locals", "exec", "eval", "setattr"})


class Flag(NamedTuple):
    """A module flag: its ``name``, the ``line`` that sets it, and its literal ``value``; ``where`` (``(file,
    line)``) when a file outside the program sets it (an option of a configuration module: configflags.py)."""

    name: str
    line: int
    value: Any
    where: tuple[str, int] | None = None


class Switch(NamedTuple):
    """A decided ``if``: whether its test is ``true``, the flags that decide it, its first and last line."""

    true: bool
    flags: tuple[Flag, ...]
    line: int
    end: int


def _literal(value: ast.expr | None, strings: bool = False) -> bool:
    return isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, (bool, int)) or
                                                strings and isinstance(value.value, str))


def _bound_names(tree: ast.Module) -> dict[str, int]:
    """How many times each name is bound anywhere in ``tree`` (a parameter, an import, a definition, ``global``
    count twice: never a flag)."""
    counts: dict[str, int] = {}

    def add(name: str, n: int = 1) -> None:
        counts[name] = counts.get(name, 0) + n

    for n in walk_once(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            add(n.id)
        elif isinstance(n, ast.arg):
            add(n.arg, 2)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                add(name, 2)
        elif isinstance(n, ast.alias):
            add((n.asname or n.name).split(".")[0], 2)
        else:
            name = getattr(n, "rest" if isinstance(n, ast.MatchMapping) else "name", None)
            if isinstance(name, str) and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                        ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
                                                        ast.MatchMapping)):
                add(name, 2)
    return counts


def _dynamic(tree: ast.Module) -> bool:
    """Whether the program may write its globals without naming them."""
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _DYNAMIC:
            return True
        if isinstance(n, ast.Attribute) and n.attr == "modules" and isinstance(n.value, ast.Name) \
                and n.value.id == "sys":
            return True
    return False


def _literal_binds(body: list[ast.stmt], defaults: frozenset[int], strings: bool = False) -> dict[str, Flag]:
    """``name = literal`` statements of ``body`` (a module's or a class's), by name; none on ``defaults`` lines;
    ``strings``: a string literal counts too."""
    out: dict[str, Flag] = {}
    for s in body:
        if s.lineno in defaults:
            continue  # a papermill parameters cell: defaults the injected cell may rebind
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                and _literal(s.value, strings):
            out[s.targets[0].id] = Flag(s.targets[0].id, s.lineno, s.value.value)  # type: ignore[union-attr]
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and _literal(s.value, strings):
            out[s.target.id] = Flag(s.target.id, s.lineno, s.value.value)  # type: ignore[union-attr]
    return out


def _class_flags(tree: ast.Module, counts: dict[str, int], defaults: frozenset[int]) -> dict[str, Flag]:
    """``C.name`` flags of the module's configuration classes (see the module docstring), by ``"C.name"``."""
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef) and counts.get(s.name) == 2]
    if not classes:
        return {}
    stored = {n.attr for n in walk_once(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, (
        ast.Store, ast.Del))}
    out: dict[str, Flag] = {}
    for c in classes:
        names = [t.id for s in c.body if isinstance(s, (ast.Assign, ast.AnnAssign))
                 for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name)]
        for name, flag in _literal_binds(c.body, defaults).items():
            if names.count(name) == 1 and name not in stored:
                out[f"{c.name}.{name}"] = Flag(f"{c.name}.{name}", flag.line, flag.value)
    return out


def module_flags(tree: ast.Module, defaults: frozenset[int] = frozenset(), strings: bool = False) -> dict[str, Flag]:
    """The module's flags (see the module docstring), by name (``"C.name"`` for a class attribute); ``defaults``:
    the lines of a papermill parameters cell, whose names are never flags; ``strings``: a name bound once to a
    string literal is one too (see :func:`module_switches`)."""
    candidates = _literal_binds(tree.body, defaults, strings)
    has_classes = any(isinstance(s, ast.ClassDef) for s in tree.body)
    if not (candidates or has_classes) or _dynamic(tree):
        return {}
    counts = _bound_names(tree)
    stars = [n.lineno for n in walk_once(tree) if isinstance(n, ast.ImportFrom) and any(
        a.name == "*" for a in n.names)]
    flags = {k: f for k, f in candidates.items() if counts.get(k) == 1}
    flags.update(_class_flags(tree, counts, defaults) if has_classes else {})
    return {k: f for k, f in flags.items() if not any(line > f.line for line in stars)}


def _flag_name(node: ast.expr) -> str | None:
    """``flag`` or ``C.flag`` as a flag's name, else ``None``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _decide(test: ast.expr, flags: dict[str, Flag], used: list[Flag]) -> bool | None:
    """The truth of ``test`` from the flags alone (``None``: not decided by them); ``used`` gets the deciding
    flags."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand, flags, used)
        return None if inner is None else not inner
    if _flag_name(test) in flags:
        used.append(flags[_flag_name(test)])  # type: ignore[index]
        return bool(flags[_flag_name(test)].value)  # type: ignore[index]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _flag_name(test.left) in flags \
            and isinstance(test.comparators[0], ast.Constant):
        flag, other, op = flags[_flag_name(test.left)], test.comparators[0].value, test.ops[0]  # type: ignore[index]
        if isinstance(op, (ast.Eq, ast.NotEq)):
            result = flag.value == other
        elif isinstance(op, (ast.Is, ast.IsNot)) and (other is None or isinstance(other, bool)):
            result = flag.value is other
        else:
            return None
        used.append(flag)
        return result if isinstance(op, (ast.Eq, ast.Is)) else not result
    if isinstance(test, ast.BoolOp):
        settles = isinstance(test.op, ast.Or)  # the operand value that settles the whole test
        values = []
        for v in test.values:
            mine: list[Flag] = []
            known = _decide(v, flags, mine)
            if known is settles:
                used.extend(mine)
                return settles
            values.append(known)
        if all(v is not None for v in values):
            used.extend(f for v in test.values for f in _flags_in(v, flags))
            return not settles
    return None


def _flags_in(test: ast.expr, flags: dict[str, Flag]) -> list[Flag]:
    return [flags[k] for n in ast.walk(test) if (k := _flag_name(n)) is not None and k in flags]  # type: ignore


def _saves(body: list[ast.stmt]) -> bool:
    """Whether ``body`` saves data or opens a file."""
    return any(isinstance(n, ast.Call) and (call_name(n) == "open" or call_name(n) in vocab.SAVES or call_name(
        n).startswith(vocab.SAVE_PREFIXES)) for s in body for n in ast.walk(s))


def _reads(body: list[ast.stmt]) -> bool:
    """Whether ``body`` reads data or an object from a file (:data:`~.vocab.FILE_READERS`, ``load_*``, ``open``)."""
    return any(isinstance(n, ast.Call) and (call_name(n) in vocab.FILE_READERS or call_name(n) == "open" or
                                            call_name(n).startswith("load")) for s in body for n in ast.walk(s))


def _in_functions(tree: ast.Module) -> set[int]:
    """Ids of the ``if`` statements inside a function body."""
    out: set[int] = set()
    for n in walk_once(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            out |= {id(m) for m in ast.walk(n) if isinstance(m, ast.If)}
    return out


def module_switches(tree: ast.Module, defaults: frozenset[int] = frozenset(),
                    strings: bool = False) -> dict[int, Switch]:
    """``id(if_statement.test)`` -> its :class:`Switch`, for every ``if`` a module flag decides (module
    docstring); ``defaults``: the lines of a papermill parameters cell. ``strings``: a mode chosen by a string
    set once (``MODEL_TYPE = "lightgbm"`` ... ``if MODEL_TYPE == "catboost":``) decides too; the interpreter does
    not ask for it (a string mode is the switch an author edits between runs), a reader that only wants to know
    which calls run as published does (:mod:`.callerscores`)."""
    flags = module_flags(tree, defaults, strings)
    if not flags:
        return {}
    deferred = _in_functions(tree)
    out: dict[int, Switch] = {}
    for n in walk_once(tree):
        if not isinstance(n, ast.If):
            continue
        used: list[Flag] = []
        known = _decide(n.test, flags, used)
        if known is None or not used:
            continue
        if id(n) not in deferred and any(f.line >= n.lineno for f in used):
            continue
        runs, skipped = (n.body, n.orelse) if known else (n.orelse, n.body)
        if _saves(skipped) or _reads(runs) and not _reads(skipped):
            continue
        out[id(n.test)] = Switch(known, tuple(dict.fromkeys(used)), n.lineno, n.end_lineno or n.lineno)
    return out


class ModuleSwitches:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: an ``if`` a module flag decides runs only
    the branch the flag's value takes (module docstring). ``switches`` is set before the run (empty: every branch
    runs as before); ``switched`` collects the switches the run used."""

    switches: Mapping[int, Switch] = MappingProxyType({})

    def _truth(self, test: ast.expr, frame: Any) -> bool | None:
        switch = self.switches.get(id(test))
        if switch is not None:
            vars(self).setdefault("switched", {})[id(test)] = switch
            return switch.true
        return super()._truth(test, frame)  # type: ignore[misc]


def _needs(flag: Flag, switch: Switch) -> str:
    """How the flag would have to be set for the branch not taken to run."""
    if isinstance(flag.value, bool) and len(switch.flags) == 1:
        return f"is set {not flag.value}"
    return "is set otherwise"


def switched_off_notes(kept: list, before: list, used: dict[int, Switch], smap: Any, info: Any) -> list:
    """``kept`` (the findings of the run following only the branches that run) with a note for each alarm of the
    run that followed every branch (``before``) that ``kept`` does not raise at its fit: the alarm at ``info``,
    naming the flags (those of the switched-off ``if`` holding the fit, else every switch the run used); a note
    ``kept`` has at that fit (its output reaches no model) gives way to it.

    Args:
        kept: the findings of the run with the switches.
        before: the findings of the run without them.
        used: the switches the first run used.
        smap: the :class:`~faultlib.detect.data.leakage.source.SourceMap` (module lines to the user's).
        info: the ``info`` severity.
    """
    import dataclasses

    def at(loc: dict) -> tuple:
        return loc.get("file"), loc.get("index"), loc.get("line"), loc.get("column")

    sites = {at(f.location) for f in kept if f.severity != info}
    switches = sorted(used.values(), key=lambda s: s.line)
    out = []
    for f in before:
        if f.severity == info or at(f.location) in sites or f.kind in ("analysis_incomplete", "code_not_parsed"):
            continue
        inside = [s for s in switches if _holds(smap.where(s.line), smap.where(s.end), f.location)]
        deciding = inside[-1:] or switches
        flags = list(dict.fromkeys((flag, s) for s in deciding for flag in s.flags))
        words = "; ".join(f"runs only when {flag.name} {_needs(flag, s)} at {_set_at(flag, smap)}, where it "
                          f"is {flag.value!r}" for flag, s in flags)
        note = (f"{f.message} (info: {words}: as published the branch of the `if` at "
                f"{smap.describe(deciding[0].line)} that would make it does not run, so this is a note, not an alarm)")
        evidence = {**f.evidence, "switched_off": [
            {"flag": flag.name, "value": flag.value, "at": {"file": flag.where[0], "line": flag.where[1]}
             if flag.where else smap.where(flag.line)} for flag, _ in flags]}
        out.append(dataclasses.replace(f, severity=info, message=note, evidence=evidence))
    noted = {at(f.location) for f in out}
    return [f for f in kept if at(f.location) not in noted] + out


def _set_at(flag: Flag, smap: Any) -> str:
    """Where the flag is set, in words (a configuration module's file and line: configflags.py)."""
    if flag.where:
        return f"{Path(flag.where[0]).name} line {flag.where[1]}"
    return smap.describe(flag.line)


def _holds(first: dict, last: dict, loc: dict) -> bool:
    """Whether ``loc`` lies between two locations of one file (and cell)."""
    return first.get("file") == last.get("file") == loc.get("file") and first.get("index") == last.get(
        "index") == loc.get("index") and first["line"] <= loc.get("line", 0) <= last["line"]


__all__ = ["Flag", "ModuleSwitches", "Switch", "module_flags", "module_switches", "switched_off_notes"]
