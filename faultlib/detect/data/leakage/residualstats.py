"""Statistics of a model's residuals: an evaluation of its predictions, not a fit of the rows.

A residual compares each row's label with the model's prediction (``y - y_hat``; the deviance residual of a
classifier, from the predicted probability). Its mean and standard deviation describe how the model errs: the
standardised residuals of a Williams plot (a QSAR applicability-domain figure: Gramatica, "Principles of QSAR
models validation: internal and external", QSAR Comb. Sci. 26, 2007; OECD QSAR validation guidance, 2007,
principle 3) or a residual analysis (Cook & Weisberg, *Residuals and Influence in Regression*, 1982). Taken over
the test rows they are the test score's companions, as an RMSE is: nothing is fitted for a model, no feature is
built from them (house: statistics of test predictions for a report are info, wave 80).

:func:`residual_statistics` finds, syntactically, the statistic calls (``np.std(r)``, ``np.mean(r)``,
``r.std()``) whose argument or receiver is

* a name read as a residual (``resid``, ``residual``, ``residuals``, ``std_resid``, ``deviance``), or
* the parameter of a function the module defines that every call of it in the module passes such a name
  (``def zscore(x): ... np.std(x)`` called as ``zscore(dev_resid)``).

The analysis leaves them unfitted, as it does averages of prediction buffers (:mod:`.predbuffers`). A statistic
of a feature column, or of a function's parameter that some call passes a feature, stays a statistic.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

_RESIDUAL_WORDS = frozenset({"resid", "resids", "residual", "residuals", "deviance"})


def _residual_name(node: ast.expr) -> bool:
    while isinstance(node, (ast.Subscript, ast.Call)) and not isinstance(node, ast.Name):
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("astype", "copy", "ravel", "flatten"):
            node = node.func.value  # r.astype(np.float64)
        else:
            return False
    return isinstance(node, ast.Name) and bool(set(vocab.name_tokens(node.id)) & _RESIDUAL_WORDS)


def _residual_parameters(tree: ast.Module) -> dict[int, set[str]]:
    """``{id(function): parameters every call in the module fills with a residual-named value}``."""
    functions = {n.name: n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    passed: dict[tuple[str, str], list[bool]] = {}
    for call in (n for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id in functions):
        fn = functions[call.func.id]
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        for i, arg in enumerate(call.args):
            if i < len(params):
                passed.setdefault((fn.name, params[i]), []).append(_residual_name(arg))
        for k in call.keywords:
            if k.arg:
                passed.setdefault((fn.name, k.arg), []).append(_residual_name(k.value))
    out: dict[int, set[str]] = {}
    for (fname, param), seen in passed.items():
        if seen and all(seen):
            out.setdefault(id(functions[fname]), set()).add(param)
    return out


def residual_statistics(tree: ast.Module) -> frozenset[int]:
    """Ids of the statistic calls of ``tree`` taken over residuals (see the module docstring)."""
    params = _residual_parameters(tree)
    out: set[int] = set()

    def visit(node: ast.AST, residual: set[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, params.get(id(child), set()))
                continue
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and \
                    child.func.attr in vocab.STATISTICS:
                inner = child.args[0] if child.args and isinstance(child.func.value, ast.Name) and \
                    child.func.value.id in ("np", "numpy") else child.func.value
                base = inner
                while isinstance(base, (ast.Subscript, ast.Call)):
                    base = base.value if isinstance(base, ast.Subscript) else (
                        base.func.value if isinstance(base.func, ast.Attribute) else base.func)
                if _residual_name(inner) or isinstance(base, ast.Name) and base.id in residual:
                    out.add(id(child))
            visit(child, residual)

    visit(tree, set())
    return frozenset(out)


__all__ = ["residual_statistics"]
