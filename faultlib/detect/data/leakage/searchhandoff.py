"""A search's choice typed into another script and cross-validated on the searched rows, for the static leakage
analysis's ``trained_on_test``.

Projects that split their work into scripts search in one, type the winning values into a second and report a
cross-validation of that model in a third::

    # search_svd.py                       # train_svd.py                        # evaluate_svd.py
    data = load_ratings()                 data = load_ratings()                 data = load_ratings()
    gs = GridSearchCV(SVD, {'n_factors':  algo = SVD(n_factors=17)              algo = load_model('svd')
         [10, 17, 30]}, cv=10)            algo.fit(data.build_full_trainset())  print(cross_validate(algo, data,
    gs.fit(data)                          save_model('svd', algo)                                     cv=10))

The search kept the value whose fold scores over every row were best, so the reported folds are among those that
chose it: the estimate is optimistic, as any choice scored on the rows that made it (Cawley & Talbot, "On
over-fitting in model selection and subsequent selection bias in performance evaluation", JMLR 11, 2010; the
scikit-learn user guide, "Nested versus non-nested cross-validation"). Within one script :mod:`.rescored` and
:mod:`.searchfirst` see it; split over scripts, only the project does. The ``surprise`` recommender library has the
same interface (``surprise.model_selection.GridSearchCV(algo_class, param_grid, cv=...)``, ``.fit(data)``,
``cross_validate(algo, data, cv=...)``: Surprise documentation, "model_selection"). Issue 17 wave 89: a MovieLens
recommender whose SVD, SVD++ and KNN searches over every rating were typed into training scripts and re-scored by
10-fold cross-validation of the same ratings.

:func:`searched_then_rescored` reports, at the search's ``fit`` in the analysed script, when:

* the script fits a search (``GridSearchCV``/``RandomizedSearchCV``) of a class named in its call, over a grid
  written as a dict literal (its keys: the hyperparameters varied), on data bound to a loader call, and cuts no rows;
* another script builds that class with a varied hyperparameter set to a constant (the value typed in) and cuts no
  rows;
* that script, or one loading a model it saves (the same constant name or file handed to a save and a load),
  cross-validates (``cross_validate``/``cross_val_score``/``cross_val_predict``, directly or in a function of a
  project module it calls) data bound to the same loader call.

Silent: a typed-in model scored on rows held out by a split, a model of the class left at its defaults or set only
in hyperparameters the grid kept fixed elsewhere, and a search whose script holds rows out.
"""

from __future__ import annotations

import ast
from pathlib import Path

from faultlib.detect.data.leakage.rescored import RESCORES
from faultlib.detect.data.leakage.rowcuts import cuts_rows
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

__all__ = ["searched_then_rescored"]

#: searches that choose hyperparameters by cross-validating the rows they are fitted on (scikit-learn, surprise)
_SEARCHES = frozenset({"GridSearchCV", "RandomizedSearchCV"})


def _bound_calls(tree: ast.AST) -> dict[str, ast.expr]:
    """``name -> value`` of the simple assignments at any level (the last one wins)."""
    out: dict[str, ast.expr] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out[n.targets[0].id] = n.value
    return out


def _loader(expr: ast.expr | None, bound: dict[str, ast.expr]) -> str | None:
    """The text of the call a data argument is bound to (``load_ratings()``), or ``None``."""
    if isinstance(expr, ast.Name):
        expr = bound.get(expr.id)
    return ast.unparse(expr) if isinstance(expr, ast.Call) else None


def _grid_keys(expr: ast.expr | None, bound: dict[str, ast.expr]) -> frozenset[str]:
    if isinstance(expr, ast.Name):
        expr = bound.get(expr.id)
    if not isinstance(expr, ast.Dict):
        return frozenset()
    return frozenset(k.value.rsplit("__", 1)[-1] for k in expr.keys
                     if isinstance(k, ast.Constant) and isinstance(k.value, str))


def _search(tree: ast.AST) -> tuple[int, str, frozenset[str], str] | None:
    """``(line of the fit, searched class, grid keys, loader of the searched data)`` of the script's search."""
    bound = _bound_calls(tree)
    searches = {name: call for name, call in bound.items()
                if isinstance(call, ast.Call) and call_name(call) in _SEARCHES}
    for n in walk_once(tree):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "fit"
                and isinstance(n.func.value, ast.Name) and n.func.value.id in searches and n.args):
            continue
        call = searches[n.func.value.id]
        first = call.args[0] if call.args else None
        searched = call_name(first) if isinstance(first, ast.Call) else getattr(first, "id", None)
        grid = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg in ("param_grid", "param_distributions")), None)
        keys, loader = _grid_keys(grid, bound), _loader(n.args[0], bound)
        if searched and keys and loader:
            return n.lineno, searched, keys, loader
    return None


def _typed_in(tree: ast.AST, searched: str, keys: frozenset[str]) -> bool:
    """The script builds ``searched(k=<constant>)`` for a varied hyperparameter ``k``."""
    return any(isinstance(n, ast.Call) and call_name(n) == searched and any(
        k.arg in keys and isinstance(k.value, (ast.Constant, ast.UnaryOp)) for k in n.keywords)
        for n in walk_once(tree))


def _handed_names(tree: ast.AST, verbs: tuple[str, ...]) -> set[str]:
    """Constant strings given to calls whose name holds one of ``verbs`` (``store_algo('svd', ...)``, or a name
    bound to such a string: ``name = 'svd'; store_algo(name, ...)``)."""
    bound = _bound_calls(tree)
    args = [bound.get(a.id, a) if isinstance(a, ast.Name) else a for n in walk_once(tree)
            if isinstance(n, ast.Call) and any(v in call_name(n).lower() for v in verbs) for a in n.args]
    return {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}


def _project_functions(scripts: list[Path]) -> dict[str, ast.FunctionDef]:
    from faultlib.detect.data.leakage.reposcripts import script_tree

    out: dict[str, ast.FunctionDef] = {}
    for s in scripts:
        tree = script_tree(s)
        for n in tree.body if tree is not None else ():
            if isinstance(n, ast.FunctionDef):
                out.setdefault(n.name, n)
    return out


def _rescores(tree: ast.AST, loader: str, functions: dict[str, ast.FunctionDef]) -> bool:
    """The script cross-validates data bound to ``loader``: a re-scoring call, or a call of a project function whose
    body makes one, given that data."""
    bound = _bound_calls(tree)
    for n in walk_once(tree):
        if not isinstance(n, ast.Call) or not any(_loader(a, bound) == loader for a in n.args):
            continue
        name = call_name(n)
        if name in RESCORES:
            return True
        body = functions.get(name or "")
        if body is not None and any(isinstance(c, ast.Call) and call_name(c) in RESCORES for c in walk_once(body)):
            return True
    return False


def searched_then_rescored(path: str, tree: ast.AST, root: Path) -> tuple[int, str, str, str] | None:
    """``(line of the search's fit, searched class, script typing the choice in, script re-scoring it)`` for the
    search of the script at ``path`` whose choice other scripts of the project under ``root`` type in and
    cross-validate on the searched data (see the module docstring); ``None`` when there is none."""
    from faultlib.detect.data.leakage.reposcripts import project_scripts, script_tree

    found = _search(tree)
    if found is None or cuts_rows(tree):
        return None
    line, searched, keys, loader = found
    me = Path(path).resolve()
    others = [(s, t) for s in project_scripts(root) if s.resolve() != me and (t := script_tree(s)) is not None]
    functions = _project_functions([s for s, _ in others])
    for typer, typed in others:
        if not _typed_in(typed, searched, keys) or cuts_rows(typed) or loader not in {
                _loader(v, {}) for v in _bound_calls(typed).values()}:
            continue
        saved = _handed_names(typed, ("save", "dump", "store"))
        for scorer, scoring in others:
            if scorer != typer and not (saved & _handed_names(scoring, ("load",))):
                continue
            if not cuts_rows(scoring) and _rescores(scoring, loader, functions):
                return line, searched, str(typer), str(scorer)
    return None
