"""Branches switched off by an option that every configuration module of the repository leaves off.

Competition projects keep their switches in configuration modules and pick one by name when they run::

    # configs/submit.py                               # run.py
    from configs.default_config import cfg            cfg = importlib.import_module(f"configs.{args.config}").cfg
    cfg.click_target_encoding = False
                                                      # data/common.py
                                                      if cfg.get("click_target_encoding", False):
                                                          ... a target encoding of every training row ...

Which module runs is known only at run time, but every one the repository has either sets the option ``False`` or
leaves it unset, and the test's default for an unset option is ``False`` too: as published, the branch runs with no
configuration of the project (Python language reference, "The if statement"), as a module flag set once to
``False`` does not (:mod:`.moduleflags`, whose :class:`~.moduleflags.Switch` this module makes). A fit whose leak
needs the branch is then a note naming the option, not an alarm (issue 17, wave 89: a click-through project's target
and frequency encodings behind options its two configuration modules never switch on).

Read from the syntax alone. A *configuration module* is a ``.py`` file under a folder named ``config``, ``configs``
or ``conf`` of the project's root (:func:`~.repofiles.repo_root`); it *sets* an option by a top-level assignment
``obj.option = <literal>``. A test is decided only when it is ``obj.get("option", default)`` (or its negation) with
``default`` falsy or left out and no module setting the option to a true value, or ``obj.option`` (or its
negation) where every configuration module sets the option ``False`` -- ``obj`` the name the modules set it on --
and the program analysed never assigns an attribute of that name itself (``cfg.option = args.option``: decided at
run time) nor calls ``setattr``. The cache-switch rule of :mod:`.moduleflags` holds as well (a branch not taken that
saves, or a taken one that alone reads, is never decided).

Bounds: at most :data:`MAX_MODULES` configuration modules; a project with none decides nothing.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import NamedTuple

from faultlib.detect.data.leakage.moduleflags import Flag, Switch, _reads, _saves
from faultlib.pyflow.walk import walk_once

#: the most configuration modules read under one project root
MAX_MODULES = 30
#: folder names that hold a project's configuration modules
_FOLDERS = frozenset({"config", "configs", "conf"})


class Option(NamedTuple):
    """An option the configuration modules set: on ``obj``, its ``name``, every value they set (``False``s only
    when decidable), whether each module sets it, and where the first module sets it."""

    obj: str
    name: str
    values: frozenset
    everywhere: bool
    where: tuple[str, int]


def _modules(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in (
            "site-packages", "node_modules", "__pycache__", "venv", ".venv", "env"))
        if Path(dirpath).name.lower() in _FOLDERS:
            out.extend(Path(dirpath) / n for n in sorted(filenames) if n.endswith(".py") and n != "__init__.py")
        if len(out) >= MAX_MODULES:
            return out[:MAX_MODULES]
    return out


def config_options(root: str | Path) -> dict[tuple[str, str], Option]:
    """``{(obj, option): Option}`` for every option the configuration modules under ``root`` set to a literal."""
    from faultlib.detect.data.leakage.session import _parsed

    sets: list[tuple[Path, dict[tuple[str, str], tuple[object, int]]]] = []
    for path in _modules(Path(root)):
        tree = _parsed(path)
        if tree is None:
            continue
        found: dict[tuple[str, str], tuple[object, int]] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    target := stmt.targets[0], ast.Attribute) and isinstance(target.value, ast.Name):
                value = stmt.value.value if isinstance(stmt.value, ast.Constant) else object()
                found[(target.value.id, target.attr)] = (value, stmt.lineno)
        sets.append((path, found))
    out: dict[tuple[str, str], Option] = {}
    for key in {k for _, found in sets for k in found}:
        values = frozenset(found[key][0] for _, found in sets if key in found)
        first = next((path, found[key][1]) for path, found in sets if key in found)
        out[key] = Option(*key, values, all(key in found for _, found in sets), (str(first[0]), first[1]))
    return out


def _off(test: ast.expr, options: dict[tuple[str, str], Option]) -> Option | None:
    """The option that keeps ``test`` false in every configuration (``None``: not decided)."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "get" and \
            isinstance(test.func.value, ast.Name) and test.args and isinstance(test.args[0], ast.Constant) and \
            isinstance(test.args[0].value, str) and len(test.args) <= 2 and not test.keywords:
        default = test.args[1] if len(test.args) == 2 else ast.Constant(None)
        option = options.get((test.func.value.id, test.args[0].value))
        if option is not None and isinstance(default, ast.Constant) and not default.value and \
                option.values <= {False}:
            return option
        return None
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
        option = options.get((test.value.id, test.attr))
        return option if option is not None and option.everywhere and option.values == {False} else None
    return None


def config_switches(tree: ast.Module, path: str) -> dict[int, Switch]:
    """``id(if_statement.test)`` -> its :class:`~.moduleflags.Switch` for every ``if`` an option of the project's
    configuration modules keeps off (module docstring); ``path``: the analysed file (its project's root)."""
    from faultlib.detect.data.leakage.repofiles import repo_root

    options = config_options(repo_root(path))
    if not options:
        return {}
    nodes = walk_once(tree)
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" for n in nodes):
        return {}
    assigned = {n.attr for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    options = {k: o for k, o in options.items() if o.name not in assigned}
    out: dict[int, Switch] = {}
    for n in nodes:
        if not isinstance(n, ast.If):
            continue
        negated = isinstance(n.test, ast.UnaryOp) and isinstance(n.test.op, ast.Not)
        option = _off(n.test.operand if negated else n.test, options)  # type: ignore[attr-defined]
        if option is None:
            continue
        runs, skipped = (n.body, n.orelse) if negated else (n.orelse, n.body)
        if _saves(skipped) or _reads(runs) and not _reads(skipped):
            continue
        flag = Flag(f"{option.obj}.{option.name}", n.lineno, False, option.where)
        out[id(n.test)] = Switch(negated, (flag,), n.lineno, n.end_lineno or n.lineno)
    return out


__all__ = ["MAX_MODULES", "Option", "config_options", "config_switches"]
