"""The file a read names through the value its caller passed, for the leakage analysis of files handed on.

A driver script runs the stages of a project one after the other, naming each stage's file as it calls it::

    imputer.impute_all("raw.csv")                       # fits a mean imputer on every row, writes _imputed.csv
    ranking.best_features("_imputed.csv")               # def best_features(name): df = pd.read_csv(name) ...
    ranking.best_features(input("file? "))              # the same function on a file the user names

Read from its source alone, ``pd.read_csv(name)`` names no file (:mod:`.callerpaths` answers only when every
call passes a known path, and here one does not), so the imputed table and the leave-one-out accuracy computed
from it were not joined (wave 61: a feature-selection project of five modules and a menu script). The analysis
runs each call with its arguments (the interpreter follows calls), so at the read the parameter holds what this
call passed: a string constant there names the file, for this call only; any other value names nothing (no
guess).

The same holds for a path the caller *names* with an expression of its own: a stage script computes its files
(``write_path = os.path.join(base, "..", "data", "engineered.csv")``) and hands them down through helpers
(``process_and_save(read_path, write_path)`` -> ``save_table(df, write_path)`` -> ``df.to_csv(path)``).
:class:`CallChainPaths` keeps, for each call of a function of the program running now, the file each of its
parameters receives, read at the call from the argument's path expression (:func:`~.pathexprs.path_of`) or from the
calling function's own parameter, one call up at a time; so ``df.to_csv(path)`` writes the engineered file in this
call and the test file in the next (wave 89: a learning-to-rank assignment's stage scripts; :mod:`.callerpaths`
answers both files for either call, which names no one file written).

Source: the call semantics of the Python language reference (6.3.4 Calls: the arguments bind the parameters).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.pathexprs import FilePath, PathEnv, path_of
from faultlib.pyflow.values import Const, Func


def passed_path(expr: ast.expr | None, args: list[Any], kwargs: dict[str, Any], node: ast.Call, env: PathEnv) -> \
        FilePath | None:
    """The file the path argument ``expr`` of the call ``node`` names in this run: the string constant its value is.

    Args:
        expr: the call's path expression (:func:`~.pathexprs.file_access`), one of its arguments.
        args, kwargs: the values of the call's positional and keyword arguments, as the analysis computed them.
        node: the call.
        env: the script's :class:`~.pathexprs.PathEnv` (for :func:`~.pathexprs.path_of`).

    Returns:
        the path, or ``None`` when the argument is not a string constant.
    """
    if expr is None:
        return None
    value = next((args[i] for i, a in enumerate(node.args) if a is expr and i < len(args)), None)
    if value is None:
        value = next((kwargs.get(k.arg) for k in node.keywords if k.value is expr and k.arg), None)
    if not (isinstance(value, Const) and isinstance(value.value, str)):
        return None
    return path_of(ast.Constant(value.value), env, node.lineno)


class CallChainPaths:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_written``, which sets ``_path_env``,
    from :class:`~.handoff.FileHandoff`): the files the path parameters of the calls running now hold (module
    docstring). The analyzer's ``_invoke`` brackets each call of a function of the program with
    :meth:`_enter_call` and :meth:`_leave_call`."""

    _path_env: PathEnv

    def _call(self, node: ast.Call, frame: Any) -> Any:
        calls = self.__dict__.setdefault("_calls_now", [])
        calls.append(node)
        try:
            return super()._call(node, frame)  # type: ignore[misc]
        finally:
            calls.pop()

    def _enter_call(self, func: Func, line: int) -> None:
        """Push the files ``func``'s parameters receive from the call on ``line`` (none when that call is not the
        one whose syntax is running: a function handed to ``apply`` or ``map``)."""
        chain = self.__dict__.setdefault("_chain_paths", [])
        node = (self.__dict__.get("_calls_now") or [None])[-1]
        files: dict[str, FilePath] = {}
        if node is not None and node.lineno == line and _callee(node) in (func.node.name, _owner_name(func)):
            self._written()  # type: ignore[attr-defined]
            positional = [a.arg for a in [*func.node.args.posonlyargs, *func.node.args.args]]
            shift = 1 if func.owner is not None and not _static(func) else 0  # self / cls come first
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Starred):
                    break
                if i + shift < len(positional) and (file := self._chain_path(arg, line)) is not None:
                    files[positional[i + shift]] = file
            for k in node.keywords:
                if k.arg is not None and (file := self._chain_path(k.value, line)) is not None:
                    files[k.arg] = file
        chain.append((func.node, {k: v for k, v in files.items() if k not in _stored(func.node)}))

    def _passed_files(self) -> list[FilePath]:
        """The files the parameters of the call entered last hold (:meth:`_enter_call`), each once."""
        chain = self.__dict__.get("_chain_paths")
        return list(dict.fromkeys(chain[-1][1].values())) if chain else []

    def _leave_call(self) -> None:
        chain = self.__dict__.get("_chain_paths")
        if chain:
            chain.pop()

    def _chain_path(self, expr: Any, line: int) -> FilePath | None:
        """The file the path expression ``expr`` on ``line`` names: its own path, or, a parameter of the function
        running now, the file the call passed it."""
        known = path_of(expr, self._path_env, line)
        if known is not None or not isinstance(expr, ast.Name):
            return known
        chain = self.__dict__.get("_chain_paths")
        if not chain:
            return None
        func, files = chain[-1]
        return files.get(expr.id) if func.lineno <= line <= (func.end_lineno or func.lineno) else None


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _owner_name(func: Func) -> str | None:
    """The class name a call of ``func`` (an ``__init__``) is spelled with: ``Stage(path)``."""
    return func.owner.node.name if func.owner is not None and func.node.name == "__init__" else None


def _static(func: Func) -> bool:
    return any(ast.unparse(d).rsplit(".", 1)[-1] == "staticmethod" for d in func.node.decorator_list)


def _stored(func: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names ``func``'s body binds (a parameter rebound there no longer holds the file passed)."""
    return frozenset(n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))


__all__ = ["CallChainPaths", "passed_path"]
