"""Time-ordered operations whose result is only drawn, for the static leakage analysis's ``shuffled_time_split``.

Notebooks smooth a curve before plotting it: sort the rows by a feature, take a rolling mean of the target over
them, draw it (a picture of ``P(y = 1 | x)``)::

    temp = pd.DataFrame({col: X[col].values, 'label': y.values}).sort_values(col)
    aux = pd.DataFrame(temp.label.rolling(1000).mean())
    aux = aux[aux.Mean.notna()]
    fig.add_trace(go.Scatter(x=aux.index, y=aux['Mean']))

The rolling window runs over the order of a feature's values, not over time, and its result never becomes a
column of the table that is split: the rows are not a time series and a shuffled split of them is no leak (wave 56:
nine alarms on one spaceship notebook). Such a ``rolling``/``shift``/... call does not mark the rows as
time-ordered when its value is bound to a name and every later read of that name is inside a drawing call
(matplotlib, seaborn, plotly: ``plt.plot``, ``ax.scatter``, ``go.Scatter``, ``fig.add_trace``, ``sns.lineplot``,
``print``, ``display``) or rebinds the name from itself (``aux = aux[...]``, ``aux.columns = [...]``). A name read
anywhere else (a concat, a column assignment, a model) keeps the rule of :mod:`.timeorder`.

The same holds for a time-ordered call written inside a drawing call's arguments, never bound to a name:
``axes[0].plot(pd.DataFrame(y).diff())``, ``plot_acf(pd.DataFrame(y).diff().dropna(), ax=axes[1])`` (a load
forecaster's look at the first differences of its target, wave 90, whose models read calendar and weather columns
only). The autocorrelation plots of statsmodels (``plot_acf``, ``plot_pacf``, ``statsmodels.graphics.tsaplots``)
and of pandas (``autocorrelation_plot``, ``lag_plot``: ``pandas.plotting``) draw too.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

#: modules whose calls only draw (their conventional aliases)
_DRAWING_MODULES = frozenset({"plt", "sns", "px", "go", "matplotlib", "seaborn", "plotly"})
#: methods and functions that draw or show their arguments (matplotlib Axes, seaborn, plotly figure/graph objects)
_DRAWING_CALLS = frozenset({
    "plot", "scatter", "bar", "barh", "hist", "line", "area", "fill_between", "errorbar", "step", "stem",
    "add_trace", "add_scatter", "add_bar", "Scatter", "Bar", "Line", "Histogram", "lineplot", "scatterplot",
    "barplot", "histplot", "kdeplot", "regplot", "pointplot", "relplot", "print", "display",
    "plot_acf", "plot_pacf", "autocorrelation_plot", "lag_plot",
})


def _drawing(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _DRAWING_CALLS
    if isinstance(func, ast.Attribute):
        if func.attr in _DRAWING_CALLS:
            return True
        root = func.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in _DRAWING_MODULES
    return False


def _parents(tree: ast.Module) -> dict[int, ast.AST]:
    return {id(child): node for node in walk_once(tree) for child in ast.iter_child_nodes(node)}


def _read_for_drawing(load: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """The read ``load`` of a name is an argument of a drawing call, or part of a statement that rebinds the
    same name (or one of its attributes) from itself."""
    node: ast.AST = load
    while not isinstance(node, ast.stmt):
        node = parents[id(node)]
        if isinstance(node, ast.Call) and _drawing(node) and node.func is not load:
            return True
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, (ast.Name, ast.Attribute, ast.Subscript)) and _base_name(t) == load.id
                   for t in targets)
    return False


def _base_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def drawn_only_temporal(tree: ast.Module) -> frozenset[int]:
    """Ids of the time-ordered calls (:data:`~faultlib.detect.data.leakage.vocab.TEMPORAL`) whose result is
    bound to a name read only for drawing (see the module docstring)."""
    parents = _parents(tree)
    loads: dict[str, list[ast.Name]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(n)
    out: set[int] = set()
    for n in walk_once(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        name = n.targets[0].id
        calls = [c for c in ast.walk(n.value) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                 and c.func.attr in vocab.TEMPORAL]
        if not calls or any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(n.value)):
            continue
        reads = [r for r in loads.get(name, []) if (r.lineno, r.col_offset) > (n.lineno, n.col_offset)]
        if reads and all(_read_for_drawing(r, parents) for r in reads):
            out.update(id(c) for c in calls)
    out.update(id(c) for c in walk_once(tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
               and c.func.attr in vocab.TEMPORAL and _inside_drawing(c, parents))
    return frozenset(out)


def _inside_drawing(call: ast.Call, parents: dict[int, ast.AST]) -> bool:
    """``call`` is (part of) an argument, or the receiver, of a drawing call in its own statement (``ax.plot(
    s.diff())``, ``s.diff().plot()``), never bound or stored."""
    node: ast.AST = call
    while not isinstance(node, ast.stmt):
        parent = parents.get(id(node))
        if parent is None:
            return False
        if isinstance(parent, ast.Call) and _drawing(parent):
            return True
        node = parent
    return False


__all__ = ["drawn_only_temporal"]
