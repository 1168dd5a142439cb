"""Blocks switched off by a module flag, for the static leakage analysis.

Notebooks and scripts keep optional steps behind a switch set once at the top:

    fit_gaussians = False
    ...
    if fit_gaussians:
        for fit_rows, check_rows in StratifiedKFold(5).split(X, y):
            ...

With the flag bound once to a literal and never rebound, the block does not run as published (Python language
reference, "The if statement": the suite of a false test is not executed), as ``if False:`` does not, which the
interpreter already skips. Any other ``if`` on a literal flag still runs both branches
(:mod:`.fitswitch`): a flag passed to a helper changes from call to call, and a cache switch
(``if recompute: build features and save them``, then a read of the saved file) keeps the lineage of the file in
the branch not taken. So :func:`switched_off` accepts a test only when:

* it is ``flag`` or ``not flag``, where ``flag`` is bound exactly once in the whole program, by a statement of the
  module's top level, to ``True`` or ``False``, and is never a parameter, a loop or ``with`` target, an
  import, a ``global``/``nonlocal`` name or the target of any other assignment;
* the branch that does not run saves nothing and opens no file (:data:`~.vocab.SAVES`, ``save_``/``dump_``/
  ``write_`` helpers, ``open``): what it would have written cannot be read elsewhere.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once


def _literal_flag(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, bool)


def _other_binding(n: ast.AST, name: str) -> bool:
    """``n`` binds ``name`` in a way no literal flag is bound: a parameter, ``global``, an import, a definition."""
    return isinstance(n, ast.arg) and n.arg == name or \
        isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names or \
        isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name or \
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name


def _bindings(tree: ast.Module, name: str) -> int:
    """How many times ``name`` is bound anywhere in ``tree`` (a binding of another kind counts twice)."""
    count = 0
    for n in walk_once(tree):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
            count += 1
        elif _other_binding(n, name):
            count += 2
    return count


def _saves(body: list[ast.stmt]) -> bool:
    """Whether ``body`` saves data or opens a file."""
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Call):
                f = n.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name == "open" or name in vocab.SAVES or name.startswith(vocab.SAVE_PREFIXES):
                    return True
    return False


def switched_off(node: ast.If, tree: ast.Module) -> bool:
    """Whether ``node`` tests a module flag set once to a literal, whose branch not taken saves nothing (module
    docstring): the interpreter may then follow only the branch that runs."""
    negate = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
    test = node.test.operand if negate else node.test
    if not isinstance(test, ast.Name):
        return False
    binding = [s for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(
        s.targets[0], ast.Name) and s.targets[0].id == test.id]
    if len(binding) != 1 or not _literal_flag(binding[0].value) or _bindings(tree, test.id) != 1:
        return False
    runs = bool(binding[0].value.value) != negate  # type: ignore[attr-defined]
    return not _saves(node.orelse if runs else node.body)


__all__ = ["switched_off"]
