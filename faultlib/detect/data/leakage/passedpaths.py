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

Source: the call semantics of the Python language reference (6.3.4 Calls: the arguments bind the parameters).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.pathexprs import FilePath, PathEnv, path_of
from faultlib.pyflow.values import Const


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


__all__ = ["passed_path"]
