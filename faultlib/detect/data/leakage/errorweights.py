"""Blend weights set from each member's error on the scored labels (``tuned_on_test``).

An ensemble of forecasters is often weighted by inverse error: the member that missed less gets more weight::

    def blend_weights(y_true, p_ridge, p_boost):
        e_ridge = np.abs(y_true - p_ridge).mean()
        e_boost = np.abs(y_true - p_boost).mean()
        w_ridge = (1 / e_ridge) / (1 / e_ridge + 1 / e_boost)
        return w_ridge, w_ridge * p_ridge + (1 - w_ridge) * p_boost

    w, blend = blend_weights(y_test, ridge.predict(X_test), boost.predict(X_test))
    print(mean_absolute_error(y_test, blend))

Weights computed from the errors on ``y_test`` are fitted to the test labels; the blend's test error is then
measured on the rows that set them, so it is optimistic, as blending weights searched on the test rows are
(:mod:`.scoreloops`; ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis, Kästner, ASE 2022; stacking and
blending weights are fitted on held-out predictions of the *training* data: Wolpert, "Stacked generalization",
Neural Networks 1992; issue 17 wave 85: a retail dashboard that weights Ridge and LightGBM by their errors on the
last twelve weeks and shows the blend's WAPE on the same weeks beside Prophet's).

Read syntactically, in one function (or the module's top level): two or more *errors*, each a name assigned from an
expression that reads the labels and one member's predictions (a metric call with both, or the difference of the
two); *weights*, names assigned from the errors (and from one another); and a *blend*, a sum whose terms multiply a
weight by a member's predictions, two members at least. The labels are either a parameter of the function, and the
finding is at each call that hands it labels named for testing (``y_test``; never a validation name), or a name for
the test labels itself, and the finding is at the blend. Errors only printed, or weights read from a validation part
(a helper handed ``y_val``), stay silent.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.curvecode import body_statements
from faultlib.detect.data.leakage.scoreloops import names_in, test_labels
from faultlib.pyflow.walk import walk_once

__all__ = ["error_weighted_blends"]


def _pairs_with(value: ast.expr, label: str) -> set[str]:
    """The names ``value`` reads beside ``label`` in a call of both or in a difference of the two."""
    found: set[str] = set()
    for n in ast.walk(value):
        if isinstance(n, ast.Call):
            args = [names_in(a) for a in n.args[:2]]
            if len(args) == 2 and label in args[0] | args[1]:
                found |= (args[0] | args[1]) - {label}
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub):
            left, right = names_in(n.left), names_in(n.right)
            if label in left:
                found |= right - {label}
            elif label in right:
                found |= left - {label}
    return found


def _blend(value: ast.expr, weights: set[str], members: set[str]) -> bool:
    """``w1 * p1 + w2 * p2``: products of a weight and a member, over two members at least."""
    used: set[str] = set()
    for n in ast.walk(value):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            left, right = names_in(n.left), names_in(n.right)
            for a, b in ((left, right), (right, left)):
                if a & weights and b & members:
                    used |= b & members
    return len(used) >= 2


def _scope_blends(body: list[ast.stmt], labels: set[str]) -> dict[str, int]:
    """For each label name of ``labels``: the line of a blend weighted by errors on it, in this scope."""
    stmts = [s for s in body_statements(body) if isinstance(s, ast.Assign)]
    out: dict[str, int] = {}
    for label in labels:
        errors: dict[str, str] = {}
        for s in stmts:
            targets = [t.id for t in s.targets if isinstance(t, ast.Name)]
            members = _pairs_with(s.value, label) if label in names_in(s.value) else set()
            if len(targets) == 1 and len(members) == 1:
                errors[targets[0]] = next(iter(members))
        if len(set(errors.values())) < 2:
            continue
        weights = set(errors)
        for s in stmts:  # names set from the errors, then from those names (normalised weights)
            if names_in(s.value) & weights:
                weights |= {t.id for t in s.targets if isinstance(t, ast.Name)}
        members = set(errors.values())
        weights -= members
        for n in (s for s in body_statements(body) if isinstance(s, (ast.Assign, ast.Return, ast.Expr))):
            value = n.value
            if value is not None and _blend(value, weights, members):
                out[label] = n.lineno
                break
    return out


def error_weighted_blends(tree: ast.Module) -> list[tuple[int, int]]:
    """``(line reported, line of the blend)`` for each blend weighted by errors on the test labels (see the module
    docstring), in order."""
    out: list[tuple[int, int]] = []
    module_labels = {n.id for n in walk_once(tree) if isinstance(n, ast.Name) and test_labels(n)}
    for line in _scope_blends(tree.body, module_labels).values():
        out.append((line, line))
    helpers: dict[str, tuple[list[str], dict[str, int]]] = {}
    for fn in walk_once(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            found = _scope_blends(fn.body, set(params))
            for line in _scope_blends(fn.body, {n for n in module_labels if n not in params}).values():
                out.append((line, line))  # a function weighting by the script's own test labels
            if found:
                helpers[fn.name] = (params, found)
    for call in walk_once(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in helpers):
            continue
        params, found = helpers[call.func.id]
        for label, blend in found.items():
            i = params.index(label)
            given = call.args[i] if i < len(call.args) else next(
                (k.value for k in call.keywords if k.arg == label), None)
            if given is not None and test_labels(given):
                out.append((call.lineno, blend))
    return sorted(set(out))
