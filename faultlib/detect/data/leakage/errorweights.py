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

The members may be the entries of one dictionary of predictions rather than names of their own (issue 17, wave 102:
an hourly demand notebook weighting three tuned regressors by inverse test MAPE)::

    preds = {name: m.predict(X_test) for name, m in fitted.items()}
    mapes = {name: mean_absolute_percentage_error(y_test, p) for name, p in preds.items()}   # <- reported here
    weights = {name: (1 / mapes[name]) / sum(1 / v for v in mapes.values()) for name in mapes}
    blend = sum(preds[name] * weights[name] for name in preds)

Read the same way: the *errors* are one dictionary built (a comprehension, or a loop storing ``errors[k] = ...``) from
the labels and the entries of a dictionary of predictions; *weights* are names assigned from it; the *blend* multiplies
an entry of the weights by an entry of the predictions. There the test labels are read on one line, the errors' own,
and that is where the finding is (a helper's call, as above, when the labels are its parameter). A dictionary of one
entry cannot be told from one of several: the form is taken as a blend of several members.
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


def _keyed_errors(stmt: ast.stmt, label: str) -> tuple[str, str, int] | None:
    """``(errors, predictions, line reading the labels)`` when ``stmt`` fills the dictionary ``errors`` with one value per entry of the
    dictionary ``predictions``, each computed from ``label`` and that entry: ``errors = {k: f(label, p) for k, p in
    predictions.items()}`` (or ``f(label, predictions[k]) for k in predictions``), or a loop ``for k, p in
    predictions.items(): errors[k] = f(label, p)``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and \
            isinstance(stmt.value, ast.DictComp) and len(stmt.value.generators) == 1:
        source = _entries_of(stmt.value.generators[0], stmt.value.value, label)
        return (stmt.targets[0].id, source, stmt.lineno) if source else None
    if isinstance(stmt, ast.For):
        loop = ast.comprehension(target=stmt.target, iter=stmt.iter, ifs=[], is_async=0)
        for inner in stmt.body:
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and \
                    isinstance(inner.targets[0], ast.Subscript) and isinstance(inner.targets[0].value, ast.Name):
                source = _entries_of(loop, inner.value, label)
                if source:
                    return inner.targets[0].value.id, source, inner.lineno
    return None


def _entries_of(gen: ast.comprehension, value: ast.expr, label: str) -> str | None:
    """The dictionary whose entries ``gen`` walks, when ``value`` pairs ``label`` with the walked entry."""
    it = gen.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "values", "keys"):
        it = it.func.value
    if not isinstance(it, ast.Name) or label not in names_in(value):
        return None
    paired = _pairs_with(value, label)
    return it.id if paired & (names_in(gen.target) | {it.id}) else None


def _keyed_blends(stmts: list[ast.stmt], label: str) -> tuple[int, int] | None:
    """``(line of the errors, line of the blend)`` of a blend of a dictionary's entries weighted by a dictionary of
    their errors on ``label`` (see the module docstring)."""
    for i, stmt in enumerate(stmts):
        found = _keyed_errors(stmt, label)
        if found is None:
            continue
        errors, members, line = found
        weights = {errors}
        for s in stmts[i + 1:]:
            if isinstance(s, ast.Assign) and names_in(s.value) & weights:
                weights |= {t.id for t in s.targets if isinstance(t, ast.Name)} - {members}
        for s in stmts[i + 1:]:
            value = getattr(s, "value", None) if isinstance(s, (ast.Assign, ast.Return, ast.Expr)) else None
            if value is not None and any(
                    isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (
                        (names_in(n.left) & weights and members in names_in(n.right))
                        or (names_in(n.right) & weights and members in names_in(n.left)))
                    for n in ast.walk(value)):
                return line, s.lineno
    return None


def _scope_blends(body: list[ast.stmt], labels: set[str]) -> dict[str, tuple[int, int]]:
    """For each label name of ``labels``: ``(line reported, line of the blend)`` of a blend weighted by errors on it,
    in this scope."""
    everything = body_statements(body)
    stmts = [s for s in everything if isinstance(s, ast.Assign)]
    out: dict[str, tuple[int, int]] = {}
    for label in labels:
        keyed = _keyed_blends(everything, label)
        if keyed is not None:
            out[label] = keyed
            continue
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
                out[label] = (n.lineno, n.lineno)
                break
    return out


def error_weighted_blends(tree: ast.Module) -> list[tuple[int, int]]:
    """``(line reported, line of the blend)`` for each blend weighted by errors on the test labels (see the module
    docstring), in order."""
    out: list[tuple[int, int]] = []
    module_labels = {n.id for n in walk_once(tree) if isinstance(n, ast.Name) and test_labels(n)}
    out += _scope_blends(tree.body, module_labels).values()
    helpers: dict[str, tuple[list[str], dict[str, int]]] = {}
    for fn in walk_once(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            found = _scope_blends(fn.body, set(params))
            out += _scope_blends(fn.body, {n for n in module_labels if n not in params}).values()  # own test labels
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
                out.append((call.lineno, blend[1]))
    return sorted(set(out))
