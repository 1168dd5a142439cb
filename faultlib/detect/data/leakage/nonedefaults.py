"""Parameters that default to ``None`` and are set by the function itself, for the paths of the leakage analysis.

A pipeline stage lets its caller choose the files and falls back on the project's own::

    def main(input_train_path=None, output_train_path=None):
        if input_train_path is None:
            input_train_path = config.TRAIN_STAGE6_CSV
        if output_train_path is None:
            output_train_path = config.DATA_DIR / "train_stage7.csv"
        train = pd.read_csv(input_train_path)

Called with no path (``main(method=args.method)``, as its own script does), the function reads and writes the
files its ``if ... is None`` branches name. :class:`~.pathexprs.PathEnv` takes a parameter for "whatever the
caller passes", an unknown path, and a name with two different bindings is unknown too; so the stage's files were
not linked to the stages before and after it (wave 59: a feature-selection stage between a scaling stage and the
model scripts). :func:`set_when_none` names the parameters whose only other binding is such a fallback at the top
of the body: their path is the fallback's.
"""

from __future__ import annotations

import ast


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _tests_none(test: ast.expr, name: str) -> bool:
    """``name is None`` (or ``name == None``)."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name
            and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) and _is_none(test.comparators[0]))


def parameter_defaults(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """``{parameter: default expression}`` of the parameters of ``func`` that have one (positional and keyword-only:
    the defaults bind the last positional parameters, language reference 8.7 "Function definitions")."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return defaults


def set_when_none(func: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Parameters of ``func`` that default to ``None`` and that a top-level ``if p is None: p = ...`` of its body
    sets (with no ``else``)."""
    defaults = parameter_defaults(func)
    out = set()
    for stmt in func.body:
        if not isinstance(stmt, ast.If) or stmt.orelse:
            continue
        for name, default in defaults.items():
            if _is_none(default) and _tests_none(stmt.test, name) and len(stmt.body) == 1 and isinstance(
                    stmt.body[0], ast.Assign) and [t.id for t in stmt.body[0].targets if isinstance(t, ast.Name)] \
                    == [name]:
                out.add(name)
    return frozenset(out)


__all__ = ["parameter_defaults", "set_when_none"]
