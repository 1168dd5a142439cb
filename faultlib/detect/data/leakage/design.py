"""Leaks written by hand or built into the evaluation design, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_fit``, ``as_data``-style
helpers, ``_reach`` and ``report`` from there):

* **statistics written by hand** are fits too: ``df.fillna(df.mean())``, ``(X - X.mean()) / X.std()``,
  ``(X - X.min()) / (X.max() - X.min())``, ``np.mean(df['Fare'])``, a target mean per category
  (``df.groupby(c)[t].transform('mean')``). Column-wise reductions only: ``axis=1`` is per row. Such a
  statistic is reported only when what it shaped reaches a model (``scores.mean()`` is not a fit). So is SciPy's
  ``rankdata`` over the rows of a table's column (RankGauss, ``rankdata(df[c]) / len(df)``): each row's output is its
  place among all the rows, the hand-written twin of ``QuantileTransformer``'s fit; ranks of a bare vector
  (``rankdata(test_pred)``, a rank average of models' predictions) combine outputs and are left alone. Not fits: a
  statistic of one sample's own rows (:mod:`~faultlib.detect.data.leakage.samples`), a reduction of one sample in a
  loop that builds rows (:mod:`~faultlib.detect.data.leakage.peritem`) and the first or last date per
  key (``groupby('item_id')['date_block_num'].transform('min')``: months since the first sale).
* **oversampling with** ``sklearn.utils.resample`` (``replace=True``, its default) repeats rows: done before
  a split, copies of one row land on both sides (imbalanced-learn's samplers are in
  :mod:`~faultlib.detect.data.leakage.vocab`). Policy (owner's decision, stop 34): an oversampler fitted on the
  *test* part (``SMOTE().fit_resample(X_test, y_test)``, then a score on its output) is ``fit_on_test``, a leak
  and not only a scoring error: the synthetic rows are interpolated between test rows, so the score is measured on
  rows a fit on the test rows made (and the class balance of the test set is no longer the population's).
  ``sklearn.utils.shuffle`` (``resample`` without replacement, every row) keeps the rows it is given.
* **order statistics**: ``s.nlargest(k)`` / ``s.nsmallest(k)`` of a column (pandas ``Series.nlargest``: "the largest
  n elements") hold the k extreme values of the rows, and a value read from them (``.iloc[-1]``, the k-th largest,
  which replaces an outlier) is a statistic of those rows like a quantile; ``df.nlargest(n, 'col')`` names a
  column and returns rows (a selection, not a statistic).
* ``shuffled_time_split``: rows of a series (lag or rolling features: ``shift``, ``rolling``, ``diff``,
  ``ewm``, ``expanding``, ``pct_change``) split with shuffling (``train_test_split``'s default,
  ``KFold(shuffle=True)``, ``ShuffleSplit``): the model is trained on the future of the rows it is scored on
  (scikit-learn user guide, "Cross-validation of time series data": use ``TimeSeriesSplit``).
* ``entity_across_split``: rows grouped by an entity id column in the script (``groupby('patient_id')``: a
  patient has several rows) then split row-wise (``train_test_split``, ``KFold``, a CV function without
  ``groups``): one patient's rows on both sides (scikit-learn user guide, "Cross-validation iterators for
  grouped data": use ``GroupKFold``/``GroupShuffleSplit``).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import polars_exprs, vocab
from faultlib.detect.data.leakage.aggspecs import (
    listed_reductions,
    numpy_reduction,
    spec_reductions,
)
from faultlib.detect.data.leakage.classdraws import class_draws
from faultlib.detect.data.leakage.classstats import (
    class_conditional_reductions,
    every_class,
)
from faultlib.detect.data.leakage.codes import code_columns, rebases_codes
from faultlib.detect.data.leakage.columnapply import transform_by_name
from faultlib.detect.data.leakage.counts import COUNTS, counts_per_key
from faultlib.detect.data.leakage.crosstabs import crosstab_rows
from faultlib.detect.data.leakage.cutdates import cut_window_reductions
from faultlib.detect.data.leakage.datestats import date_points
from faultlib.detect.data.leakage.distinctcounts import distinct_count_lambda
from faultlib.detect.data.leakage.drawnonly import drawn_only_temporal
from faultlib.detect.data.leakage.lagnames import lagged_target_columns
from faultlib.detect.data.leakage.entities import display_only_groupbys
from faultlib.detect.data.leakage.entityclocks import clock_rescaled
from faultlib.detect.data.leakage.foldlists import fold_lists
from faultlib.detect.data.leakage.gridfills import grid_fill_statistics
from faultlib.detect.data.leakage.groupvars import grouped_receiver
from faultlib.detect.data.leakage.labelbins import label_binnings
from faultlib.detect.data.leakage.lagged import lagged_groupbys
from faultlib.detect.data.leakage.peritem import per_item_reductions
from faultlib.detect.data.leakage.periodsplit import holds_out_a_period
from faultlib.detect.data.leakage.pixelranges import format_range_end, pixel_assignments
from faultlib.detect.data.leakage.predbuffers import (
    over_predictions,
    prediction_buffers,
    prediction_lists,
    prediction_stacks,
    prediction_vectors,
)
from faultlib.detect.data.leakage.residualstats import residual_statistics
from faultlib.detect.data.leakage.samplediffs import within_sample_temporal
from faultlib.detect.data.leakage.stackdummies import data_argument, one_hot_over_stack
from faultlib.detect.data.leakage.scoredstats import scored_statistics
from faultlib.detect.data.leakage.samplehelpers import helper_reductions
from faultlib.detect.data.leakage.samples import groupby_call, lasting_keys, own_rows, sample_keys
from faultlib.detect.data.leakage.scorelists import over_scores, score_lists
from faultlib.detect.data.leakage.testfills import apart_from, test_side_fills, written_only_into
from faultlib.detect.data.leakage.timeorder import (
    calendar_groups,
    date_cutoff,
    groups_argument,
    keeps_time_order,
)
from faultlib.detect.data.leakage.tsmodels import constructor_series
from faultlib.detect.data.leakage.uncoveredslots import uncovered_fills
from faultlib.detect.data.leakage.valuereductions import value_reductions
from faultlib.detect.data.leakage.watchedsplits import unwatched_validation_splits
from faultlib.detect.data.leakage.values import (
    Data,
    Est,
    MaybeData,
    Root,
    Rows,
    Step,
    data_rows_child,
    new_id,
    parts,
    test_step,
)
from faultlib.findings import Finding, Severity
from faultlib.pyflow.values import UNKNOWN, Const, Ref, Tup

_STAT_MODULES = ("numpy", "statistics", "pandas", "np", "pd")
#: modules whose statistics of a column are hand-written fits as NumPy's are (SciPy API reference,
#: ``scipy.stats.mode``/``sem``: "axis : int or None, default: 0", a reduction over the rows)
_STAT_SUBMODULES = ("scipy.stats",)
#: entity names without ``_id`` that also name a category (a news article's subject): see entities.py
_BARE_ENTITIES = frozenset({"subject", "session"})


def _built_list(node: ast.expr, bindings: dict[str, list[ast.expr]]) -> bool:
    """``name`` last bound, before this use, to a list the code builds (``[...]``, a list comprehension): a Python
    list of items (predictions of several models), whose unknown content a held-out name does not make a table of
    test rows; a reduction over it runs across the items."""
    exprs = [e for e in bindings.get(node.id, []) if e.lineno < node.lineno] if isinstance(node, ast.Name) else []
    return bool(exprs) and isinstance(max(exprs, key=lambda e: e.lineno), (ast.List, ast.ListComp))


#: the missing-value masks of pandas (``DataFrame.isna``/``isnull``/``notna``/``notnull``): a name whose value is not
#: known yet and that is asked for one holds a table, never a dict (``X['nulls'] = X.isna().sum(axis=1)`` after a
#: helper returned ``X``: pandas API reference, "Missing data handling")
_MISSING_MASKS = frozenset({"isna", "isnull", "notna", "notnull"})


def _row_wise(args: list[Any], kwargs: dict[str, Any], position: int) -> bool:
    """The reduction keeps one value per row: ``axis=1``/``"columns"``/``-1``, or any axis (or tuple of axes) that is
    not the rows' axis 0 (``preds.max(2)``: the max over a third axis of stacked predictions, one per row and
    column; NumPy reference, "ufunc.reduce": the named axes are the ones reduced). PyTorch names the axis ``dim``
    (``x.amax(dim=1)``: PyTorch reference, ``torch.amax``: "dim: the dimension or dimensions to reduce")."""
    axis = kwargs.get("axis", kwargs.get("dim", args[position] if len(args) > position else None))
    if isinstance(axis, Tup):
        axes = [a.value if isinstance(a, Const) else None for a in axis.items]
        return bool(axes) and all(isinstance(a, int) and not isinstance(a, bool) and a > 0 for a in axes)
    if not isinstance(axis, Const):
        return False
    value = axis.value
    return value in ("columns", -1) or isinstance(value, int) and not isinstance(value, bool) and value > 0


#: reductions of a pandas ``GroupBy`` to one row per group (pandas API, "GroupBy": aggregation)
_GROUP_REDUCTIONS = frozenset({"agg", "aggregate", "apply", "size", "count", "sum", "first", "last", "nunique",
                               "prod"})
#: a group's total named to ``transform``/``agg`` (``groupby('shop')['visits'].transform('sum')``): like the group's
#: count and mean beside it, a statistic of every row of the group (pandas API, "GroupBy.transform"); a sum per id
#: column is the entity's own rows; a frame's plain ``.sum()`` (a count of flags, a row total with axis=1) and a
#: GroupBy's ``.sum()`` method (a table of its own: embeddings.py) are left alone
_GROUP_TOTALS = frozenset({"sum"})


def _keyed_by_id(groupby: ast.Call) -> bool:
    """``df.groupby(['visitor_id', 'day'])``: one of the GroupBy's keys (a string or a list of strings) names an id
    column, so every group lies within one entity."""
    key = groupby.args[0] if groupby.args else next((k.value for k in groupby.keywords if k.arg == "by"), None)
    keys = key.elts if isinstance(key, (ast.List, ast.Tuple)) else [key]
    return any(isinstance(k, ast.Constant) and isinstance(k.value, str) and vocab.ID_COLUMN.search(k.value)
               for k in keys)


def _by_id(expr: ast.expr) -> bool:
    """``df.groupby('image_id')`` or ``df.groupby('ImageId')[cols]``: the receiver of an aggregation is a pandas
    GroupBy over an id column (one group per entity); a column picked by attribute (``.groupby('id').col``) too."""
    if isinstance(expr, ast.Subscript) or isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Call):
        expr = expr.value
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "groupby"
            and expr.args and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str)):
        return False
    return bool(vocab.ID_COLUMN.search(expr.args[0].value))


def _date_column(expr: ast.expr) -> bool:
    """``df.InvoiceDate``, ``df['order_date']``, ``pd.to_datetime(df.ts)``: a column named for a date or time."""
    while isinstance(expr, ast.Call):  # pd.to_datetime(df.date), df.date.dropna()
        expr = expr.args[0] if expr.args else expr.func.value if isinstance(expr.func, ast.Attribute) else expr.func
    name = expr.attr if isinstance(expr, ast.Attribute) else expr.slice.value if isinstance(
        expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) else None
    return isinstance(name, str) and bool(vocab.DATE_COLUMN.search(name))


def _statistic_lambda(node: ast.expr) -> bool:
    """``lambda s: (s - s.mean()) / s.std()``: a function that takes a statistic of its own argument (the rows it is
    given: a column, a group)."""
    if not isinstance(node, ast.Lambda) or not node.args.args:
        return False
    param = node.args.args[0].arg
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in vocab.STATISTICS
               and isinstance(n.func.value, ast.Name) and n.func.value.id == param for n in ast.walk(node.body)) or \
        any(counted_mode(n, param) for n in ast.walk(node.body))


def counted_mode(node: ast.AST, param: str) -> bool:
    """``x.value_counts().index[0]`` / ``x.value_counts().idxmax()``: the most frequent value of ``x`` (its mode,
    spelled by counts: ``value_counts`` sorts by count, descending; pandas API reference, ``Series.value_counts``)."""
    counts = node.value.value if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
        node.value.attr == "index" else node.func.value if isinstance(node, ast.Call) and isinstance(
            node.func, ast.Attribute) and node.func.attr == "idxmax" else None
    return isinstance(counts, ast.Call) and isinstance(counts.func, ast.Attribute) and \
        counts.func.attr == "value_counts" and isinstance(counts.func.value, ast.Name) and counts.func.value.id == param



def _statistic_call_lambda(node: ast.expr) -> bool:
    """``lambda x: x.fillna(pd.Series.mode(x)[0])``, ``lambda g: g.fillna(np.median(g))``: a function that passes its
    own argument (a group's rows) to a statistic written as a function call."""
    if not isinstance(node, ast.Lambda) or not node.args.args:
        return False
    param = node.args.args[0].arg
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in vocab.STATISTICS
               and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == param for n in ast.walk(node.body))


def _window(node: ast.expr | None) -> bool:
    """``s.rolling(7)`` (also ``expanding``, ``ewm``, ``resample``): a window object, whose ``.mean()`` is each row's
    own past window (or time bin), not a statistic of all the rows (pandas user guide, "Windowing operations")."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
        "rolling", "expanding", "ewm", "resample")


def _shown(node: ast.AST, width: int = 40) -> str:
    """``node`` as source for a message, at most ``width`` characters; a long one keeps its end (the method:
    ``...['Age'].median``), since a cut at the start would name ``.me`` for ``.median``."""
    text = ast.unparse(node)
    return text if len(text) <= width else "..." + text[3 - width:]

class DesignChecks:
    """Hand-written statistics, ``resample``, time-series and grouped-data splits (see the module docstring)."""

    def __init__(self) -> None:
        self._notes: dict[int, dict[str, set]] = {}
        self._design_seen: set[tuple[str, int]] = set()
        self._sample_groupbys: set[int] = set()  # groupby calls over a sample key (samples.py)
        self._lasting_groupbys: set[int] = set()  # ... of an entity that lasts across periods (samples.py)

    # ------------------------------------------------------------------ notes on a data root

    def _roots(self, value: Any) -> list:
        data = value._data if isinstance(value, MaybeData) else value if isinstance(value, Data) else None
        return [p.root for p in parts(data.rows)] if data is not None else []

    def _note(self, value: Any, what: str, item: str) -> None:
        for root in self._roots(value):
            self._notes.setdefault(root.uid, {}).setdefault(what, set()).add(item)

    def _note_column(self, base: Any, name: Any) -> None:
        if isinstance(name, str) and vocab.ENTITY_COLUMN.search(name):
            self._note(base, "entity", name)

    def _drawn_only(self) -> frozenset[int]:
        """Time-ordered calls that make no series of the rows: only drawn (drawnonly.py), or a difference inside one
        sample summed up there (samplediffs.py)."""
        if not hasattr(self, "_drawn_temporal"):
            self._drawn_temporal = drawn_only_temporal(self.tree) | within_sample_temporal(self.tree)
        return self._drawn_temporal

    def _noted(self, value: Any, what: str) -> set:
        out: set = set()
        for root in self._roots(value):
            out |= self._notes.get(root.uid, {}).get(what, set())
        return out

    # ------------------------------------------------------------------ statistics and resampling

    def _statistic(self, data: Data, label: str, node: ast.Call, frame: Any, *, per_row: bool = False) -> Data:
        if not hasattr(self, "_per_item"):
            # one sample's own feature (samplehelpers.py), the label's bins (labelbins.py)
            self._per_item = per_item_reductions(self.tree) | helper_reductions(self.tree) | label_binnings(self.tree)
        if id(node) in self._per_item:  # patch.mean() of one sample in a loop building rows: its feature (peritem.py)
            return Data(data.rows, data.taints, data.test)
        if not hasattr(self, "_scored_stats"):
            self._scored_stats = scored_statistics(self.tree, self._targets)
        if id(node) in self._scored_stats:  # a lift or coverage table of labels and predictions (scoredstats.py)
            return Data(data.rows if per_row else None, data.taints, data.test if per_row else False)
        if not hasattr(self, "_value_reductions"):
            self._value_reductions = value_reductions(self.tree)
        if id(node) in self._value_reductions:  # one cell, a missing-value code (valuereductions.py)
            return Data(None, data.taints, False)
        if not hasattr(self, "_grid_fills"):
            self._grid_fills = grid_fill_statistics(self.tree)
        if id(node) in self._grid_fills:  # the fixed columns of a decision-boundary grid: a plot (gridfills.py)
            return Data(None, data.taints, False)
        if not hasattr(self, "_uncovered"):
            self._uncovered = uncovered_fills(self.tree)
        if id(node) in self._uncovered:  # preds[~used] = np.mean(y), every row in a fold: no slot (uncoveredslots.py)
            return Data(None, data.taints, False)
        if not hasattr(self, "_test_fills"):
            self._test_fills = test_side_fills(self.tree)
        if id(node) in self._test_fills and not data.is_test:  # test[c] = ....fillna(train[c].mean()) (testfills.py)
            return Data(None, data.taints, False)
        if not hasattr(self, "_written_only"):
            self._written_only = written_only_into(self.tree)
        table = self._written_only.get(id(node))
        if table is not None and data.is_test and apart_from(data.rows, self._lookup(table, frame)):
            return Data(None, data.taints, False)  # train + valid counts mapped onto the test rows only (testfills.py)
        if not hasattr(self, "_cut_windows"):
            self._cut_windows = cut_window_reductions(self.tree)
        if id(node) in self._cut_windows:  # a mean of the days before a builder's cut date: that set's feature
            return Data(data.rows, data.taints, data.test)  # (cutdates.py)
        if not hasattr(self, "_date_points"):
            self._date_points = date_points(self.tree)
        if id(node) in self._date_points:  # df['day'].quantile(.8), df['day'].min(): a cut or an origin (datestats.py)
            return Data(None, data.taints, False)
        if not hasattr(self, "_code_cols"):
            self._code_cols = code_columns(self.tree)
        if rebases_codes(node, self._code_cols):  # codes -= codes.min(): a relabelling of categories (codes.py)
            return Data(None, data.taints, False)
        if not hasattr(self, "_pixel_sets"):
            self._pixel_sets = pixel_assignments(self.tree)
        if format_range_end(node, self._pixel_sets):  # (x - x.min()) after x / 255: the format's 0 and 1
            return Data(None, data.taints, False)  # (pixelranges.py)
        data = self._labelled_only(data, node, frame)  # a target statistic skips the rows to predict (unlabelled.py)
        if not hasattr(self, "_class_stats"):
            self._class_stats = class_conditional_reductions(self.tree, self._targets)
        by_class = id(node) in self._class_stats  # a statistic of one class's rows reads y (classstats.py)
        data = every_class(data) if by_class else data
        est = Est(label, "transformer", preprocessing=True)
        fit = self._fit(est, data, by_class, label.rstrip("()").rsplit(".", 1)[-1], node, frame, handwritten=True)
        return Data(data.rows if per_row else None, data.taints | {fit}, data.test if per_row else False)

    def _quiet_statistic(self, data: Data, node: ast.Call, frame: Any) -> Data:
        """``data`` with the fit of a statistic per lasting entity (a customer's purchases) on its own rows: no alarm
        in this program (``_quiet_fits``, left out of the findings: static.py), but a fit of the rows this program
        writes, so that a script reading them and holding out a later period reports it (repofiles.handed_on:
        the joined program sees the period split and takes the statistic as a fit, samples.py)."""
        out = self._statistic(data, f"{_shown(node.func)}()", node, frame, per_row=True)
        self.__dict__.setdefault("_quiet_fits", set()).update(f.uid for f in out.taints - data.taints)
        return Data(data.rows, out.taints, data.test)

    def _counted_groupbys(self) -> frozenset[int]:
        if not hasattr(self, "_display_groupbys"):
            self._display_groupbys = display_only_groupbys(self.tree)
        return self._display_groupbys

    def _score_names(self) -> frozenset[str]:
        if not hasattr(self, "_scores_only"):
            self._scores_only = score_lists(self.tree)
        return self._scores_only

    def _residual_stats(self) -> frozenset[int]:
        if not hasattr(self, "_residual_calls"):
            self._residual_calls = residual_statistics(self.tree)
        return self._residual_calls

    def _prediction_names(self) -> frozenset[str]:
        if not hasattr(self, "_predictions_only"):
            self._predictions_only = prediction_buffers(self.tree) | fold_lists(self.tree) | prediction_stacks(
                self.tree) | prediction_vectors(self.tree) | prediction_lists(self.tree)  # (foldlists.py; an ensemble's (P, N, K) probabilities,
            # a name bound only to a model's output: predbuffers.py)
        return self._predictions_only

    def _period_held_out(self) -> bool:
        if not hasattr(self, "_period_split"):
            self._period_split = holds_out_a_period(self.tree)
        return self._period_split

    def _lagged_groupbys(self) -> frozenset[int]:
        if not hasattr(self, "_lagged"):
            self._lagged = lagged_groupbys(self.tree)
        return self._lagged

    def _method_design(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                       frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import as_data, maybe_data

        if isinstance(receiver, polars_exprs.PlExpr):  # pl.col('km').median(): a statistic once evaluated
            return polars_exprs.method_expr(receiver, name, args, kwargs, node)
        if name == "hstack" and args and (maybe_data(receiver) is not None or isinstance(receiver, MaybeData)):
            base = maybe_data(receiver) or as_data(receiver)  # polars' ids.hstack(features): columns side by side
            sides = [as_data(a) for a in (args[0].items if isinstance(args[0], Tup) else args[:1])]
            return base.with_(taints=base.taints.union(*(d.taints for d in sides if d is not None)))
        if name == "group_by" and (maybe_data(receiver) is not None or isinstance(receiver, MaybeData)):
            return receiver  # polars' df.group_by(k): its .agg(...) reduces df's rows per group
        reduced = polars_exprs.context_stats(name, args, kwargs, node)
        if reduced and (maybe_data(receiver) is not None or isinstance(receiver, MaybeData)):
            out = maybe_data(receiver) or as_data(receiver)  # df.with_columns(<expr>.median()): a fit of df
            for stat in reduced:
                out = self._statistic(out, f"{_shown(stat.func)}()", stat, frame, per_row=name != "agg")
            return out
        data = maybe_data(receiver)
        if data is None and isinstance(receiver, MaybeData) and name in _MISSING_MASKS:
            data = as_data(receiver)  # X.isna(): only a table (or an array) has one, no dict (wave 72)
        if name == "dropna" and "subset" in kwargs and data is not None and data.rows is not None:
            # survey.dropna(subset=['marital']): the rows with that value, a selection like survey[mask] (beside
            # survey[survey['marital'].isna()], the rows to impute, it is another selection, not all the rows)
            return self._derive(data, data_rows_child(data, Step("filter", new_id(), line=node.lineno)), node.lineno)
        if data is None and isinstance(receiver, MaybeData) and (
                name in vocab.STATISTICS or name in vocab.TEMPORAL or name in ("transform", "agg", "aggregate",
                                                                                "groupby")):
            data = as_data(receiver)  # df.mean(): an unknown value used as data; rng.normal(...) is not
        if data is None and isinstance(receiver, MaybeData) and name == "apply" and node.args and (
                transform_by_name(args[0] if args else None) or _statistic_lambda(node.args[0])):
            data = as_data(receiver)  # df.apply(minmax_scale), df.apply(lambda x: x.clip(x.quantile(.01)))
        if data is None:
            if name in vocab.SAVES:
                self._reach_saved(*args, *kwargs.values())
            return None
        inner = node.func.value if isinstance(node.func, ast.Attribute) else None
        windowed = _window(inner) or isinstance(inner, ast.Name) and bool(self._bindings.get(inner.id)) and all(
            _window(b) for b in self._bindings[inner.id])  # rolled = g[cols].rolling(3); rolled.mean(): as inline
        if inner is not None:  # grouped = df.groupby(k); grouped.size(): as inline (groupvars.py)
            inner = grouped_receiver(inner, self._bindings, node.lineno)
        # groupby(k).size(), value_counts(): rows per key (counts.py); per id (cells per notebook id, visits per
        # patient_id) a count is the entity's own size, no statistic of other rows
        grouped = groupby_call(inner) if inner is not None else None
        # ... unless a period of the same rows is held out later: then each entity's count includes its held-out
        # events (purchases per customer_id over every week, the last week held out: periodsplit.py)
        per_id = inner is not None and (_by_id(inner) and not self._period_held_out() or grouped is not None and id(
            grouped) in self._sample_groupbys)
        counted = counts_per_key(name, inner) and not per_id and id(grouped) not in self._lagged_groupbys()
        # a GroupBy's sum: each group's total over its rows, unless a key is an id (groupby(['visitor_id']): the
        # entity's own rows, as for a count)
        totalled = grouped is not None and not per_id and not (_keyed_by_id(grouped) and not self._period_held_out())
        if inner is not None and (name in vocab.STATISTICS or name in _GROUP_REDUCTIONS or name in (
                "transform", "aggregate")) and (own_rows(inner, node, self._sample_groupbys, self._targets) or
                                                id(grouped) in self._lagged_groupbys()):
            # groupby('molecule_name')['dist'].transform('mean'): each sample's own rows, a per-row feature; .agg: one
            # row per sample, still rows of the entities noted on the table (a subject's sequences); a mean per
            # month used only through its lags (lagged.py): earlier months only
            if id(grouped) in self._lasting_groupbys and id(grouped) not in self._lagged_groupbys():
                data = self._quiet_statistic(data, node, frame)
            if name == "transform":
                return data
            root = Root(f"{_shown(inner)}", node.lineno)
            for old in self._roots(data):
                for what, items in self._notes.get(old.uid, {}).items():
                    self._notes.setdefault(root.uid, {}).setdefault(what, set()).update(items)
            return Data(Rows(root), data.taints, False)
        if inner is not None and _by_id(inner) and (name in vocab.STATISTICS or name in _GROUP_REDUCTIONS):
            # df.groupby('ImageId')[cols].mean() / .agg(list): one row per entity, a new table whose rows are the
            # entities (a statistic taints it, named in an agg spec too: merged back onto the rows, it is still a fit
            # of those rows); a count or total per id too when a period of the rows is held out later (periodsplit.py)
            named = [args[0].value] if name in ("agg", "aggregate") and args and isinstance(args[0], Const) else \
                spec_reductions(node) + listed_reductions(args[0] if args else None) if name in ("agg", "aggregate") \
                else [name]
            stat = counted or any(r in vocab.STATISTICS or r in COUNTS and not per_id or r in _GROUP_TOTALS and (
                totalled or self._period_held_out()) for r in named if isinstance(r, str))
            out = self._statistic(data, f"{_shown(node.func)}()", node, frame) if stat else data
            return Data(Rows(Root(f"{_shown(inner)}", node.lineno)), out.taints, False)
        if name == "pivot_table":  # df.pivot_table(values=v, index=k): a statistic (mean by default) per group
            if sample_keys(kwargs.get("index")):  # index=['play_id', ...]: one sample's rows to columns (samples.py)
                return data
            return self._statistic(data, f"{_shown(node.func)}()", node, frame)
        if name in ("max", "min") and inner is not None and _date_column(inner):
            return UNKNOWN  # ref = df.InvoiceDate.max(): a reference date (recency = ref - date), not a feature
        if name in ("transform", "agg", "aggregate") and args and isinstance(args[0], Const) and args[0].value in (
                "min", "max", "first", "last") and inner is not None and _date_column(inner):
            # groupby('item_id')['date_block_num'].transform('min'): each key's first period (months since the first
            # sale), a date the rows carry and no statistic of their values: a reference date per key
            return data if name == "transform" else UNKNOWN
        if name in vocab.STATISTICS and inner is not None and over_scores(inner, self._score_names()):
            return UNKNOWN  # np.array(fold_scores).mean(): a summary of metric results (scorelists.py)
        if name in vocab.STATISTICS and inner is not None and over_predictions(inner, self._prediction_names()):
            return UNKNOWN  # oof_test_skf.mean(axis=0): the folds' predictions averaged (predbuffers.py)
        if name in vocab.STATISTICS and id(node) in self._residual_stats():
            return UNKNOWN  # std_resid.std(): a summary of the model's residuals (residualstats.py)
        if name in vocab.ORDER_STATISTICS and grouped is None and not node.args[1:] and "columns" not in kwargs \
                and not windowed:  # s.nlargest(2).iloc[-1]: the second-largest value, an order statistic of the rows
            return self._statistic(data, f"{_shown(node.func)}()", node, frame)
        if counted or name in vocab.STATISTICS and not _row_wise(args, kwargs, 0) and not windowed:
            out = self._statistic(data, f"{_shown(node.func)}()", node, frame)
            # a GroupBy's reduction: one row per group, a table merged back onto the rows (groupvars.py)
            return out.with_(rows=Rows(Root(_shown(inner), node.lineno))) if grouped is not None and \
                out.rows is None else out
        if grouped is not None and clock_rescaled(inner, name, node.args[0] if node.args else None):
            return data  # groupby('unit')['time'].transform(lambda t: t / t.max()): its own clock (entityclocks.py)
        if name in ("transform", "apply") and node.args and (_statistic_lambda(node.args[0]) or (
                grouped is not None or name == "transform") and _statistic_call_lambda(node.args[0])) and not \
                _row_wise(args, kwargs, 1):  # groupby(c)[x].transform(lambda s: (s - s.mean()) / s.std())
            return self._statistic(data, f"{_shown(node.func)}(lambda)", node, frame, per_row=True)
        by_name = transform_by_name(args[0]) if name == "apply" and args and grouped is None else None
        if by_name and not _row_wise(args, kwargs, 1):  # prices.apply(minmax_scale): each column (columnapply.py)
            fit = self._fit(Est(f"{by_name}()", "transformer", preprocessing=True), data, False, by_name, node, frame)
            return Data(data.rows, data.taints | ({fit} if fit else set()), data.test)
        if name == "apply" and node.args and grouped is not None and not per_id and \
                distinct_count_lambda(node.args[0]):  # groupby(k).apply(lambda g: len(set(g[c]))) (distinctcounts.py)
            out = self._statistic(data, f"{_shown(node.func)}(lambda)", node, frame, per_row=False)
            return _per_group(out, grouped, inner, node)
        if name in ("transform", "agg", "aggregate") and args and isinstance(args[0], Const) and \
                (args[0].value in vocab.STATISTICS or args[0].value in COUNTS and not per_id or
                 args[0].value in _GROUP_TOTALS and totalled) and \
                not _row_wise(args, kwargs, 1):  # df[cols].agg('mean', axis=1): each row's own columns
            out = self._statistic(data, f"{_shown(node.func)}({args[0].value!r})", node, frame,
                                  per_row=name == "transform")
            return _per_group(out, grouped, inner, node) if name != "transform" else out
        if name in ("agg", "aggregate") and any(r in vocab.STATISTICS or r in COUNTS and not per_id or
                                                r in _GROUP_TOTALS and totalled
                                                for r in spec_reductions(node) or listed_reductions(
                                                    args[0] if args else None)):  # agg({c: 'count'}), agg([how])
            out = self._statistic(data, f"{_shown(node.func)}()", node, frame, per_row=False)
            return _per_group(out, grouped, inner, node)
        if name in ("agg", "aggregate") and node.args and (_statistic_lambda(node.args[0]) or _statistic_call_lambda(
                node.args[0])) and not _row_wise(args, kwargs, 1):  # g[c].agg(lambda s: s.mode()[0]), as agg('mean')
            out = self._statistic(data, f"{_shown(node.func)}(lambda)", node, frame, per_row=False)
            return _per_group(out, grouped, inner, node)
        if name == "transform" and node.args and numpy_reduction(node.args[0]) in vocab.STATISTICS:
            return self._statistic(data, f"{_shown(node.func)}()", node, frame, per_row=True)  # (np.mean)
        if name == "groupby":
            by = args[0] if args else kwargs.get("by")
            if sample_keys(by, lasting=not self._period_held_out()):
                self._sample_groupbys.add(id(node))
                if lasting_keys(by):  # a customer's rows: a fit once a reader holds out a period (samples.py)
                    self._lasting_groupbys.add(id(node))
            else:  # a helper's groupby(keys) called again with other keys: this call's keys decide (wave 89)
                self._sample_groupbys.discard(id(node))
            keys = args[0].items if args and isinstance(args[0], Tup) else args[:1]
            for key in keys:
                if isinstance(key, Const) and isinstance(key.value, str) and vocab.ENTITY_COLUMN.search(key.value) \
                        and not (key.value.lower() in _BARE_ENTITIES and id(node) in self._counted_groupbys()):
                    self._note(data, "grouped", key.value)  # (a bare 'subject' counted for a chart: entities.py)
        if name in vocab.TEMPORAL and id(node) not in self._drawn_only():  # a curve smoothed for a plot: drawnonly.py
            self._note(data, "temporal", name)
        if name in vocab.SAVES:
            self._reach_saved(receiver)
            return UNKNOWN
        return None

    def _library_design(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                        frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import as_data

        name, top = ref.last, ref.module.split(".")[0]
        series = as_data(constructor_series(ref, args, kwargs))
        if series is not None:  # ARIMA(train, order=...): a model of that series, fitted by .fit() (tsmodels.py)
            return Est(name, "model", supervised=True, options={"series": series})
        expr = polars_exprs.library_expr(ref.module, name, args, kwargs, node)
        if expr is not None:
            return expr
        if name in ("max", "min", "amax", "amin") and node.args and _date_column(node.args[0]):
            return UNKNOWN  # np.max(df['date']): a reference date
        # np.percentile(a, q, axis): the second argument of a quantile is q, its axis the third
        axis_at = 2 if name in ("percentile", "nanpercentile", "quantile", "nanquantile") else 1
        builtin = ref.name in ("min", "max") and len(node.args) == 1 and not node.keywords  # min(df['x']): x.min()
        if name in vocab.STATISTICS and (top in _STAT_MODULES or builtin or ref.module.startswith(
                _STAT_SUBMODULES)) and args and not _row_wise(args, kwargs,
                                                                                                   axis_at):
            if node.args and over_scores(node.args[0], self._score_names()):
                return UNKNOWN  # np.std(fold_scores): a spread of metric results, no rows (scorelists.py)
            if node.args and over_predictions(node.args[0], self._prediction_names()):
                # np.mean(preds_per_fold, axis=0): an average of predictions (predbuffers.py); of the folds' feature
                # importances, their averaged ranking (foldrankings.py)
                return self._averaged_ranking(args[0]) or UNKNOWN  # type: ignore[attr-defined]
            if id(node) in self._residual_stats():
                return UNKNOWN  # np.std(resid), or of a helper's parameter given residuals (residualstats.py)
            if isinstance(args[0], MaybeData) and node.args and _built_list(node.args[0], self._bindings):
                return UNKNOWN  # np.mean(all_test, axis=0), all_test = [r['test'] for r in runs]: a blend of items
            data = as_data(args[0])
            if data is not None:
                return self._statistic(data, f"{_shown(node.func)}()", node, frame)
        if name == "rankdata" and top == "scipy" and args and isinstance(node.args[0], ast.Subscript) and not \
                _row_wise(args, kwargs, 99):
            # a rank transform of a table's column: each row's value is its place among all the rows (ranks of a
            # bare vector, rankdata(pred_test) in a rank-average of predictions, combine outputs: no feature fit)
            data = as_data(args[0])
            if data is not None:
                return self._statistic(data, f"{_shown(node.func)}()", node, frame, per_row=True)
        encoded = as_data(data_argument(args, kwargs)) if name == "get_dummies" else None
        if one_hot_over_stack(name, top, encoded):  # pd.get_dummies(pd.concat([train, test])) (stackdummies.py)
            fit = self._fit(Est(f"{_shown(node.func)}()", "transformer", preprocessing=True), encoded, False, name,
                            node, frame)
            return Data(encoded.rows, encoded.taints | ({fit} if fit else set()), encoded.test)  # type: ignore[union-attr]
        binned = self._binning(name, top, args, kwargs, node, frame)
        if binned is not None:
            return binned
        counted_pairs = crosstab_rows(name, top, args, kwargs)
        if counted_pairs is not None:  # pd.crosstab(df.a, df.b): counts per pair of keys (crosstabs.py)
            return self._statistic(counted_pairs, f"{_shown(node.func)}()", node, frame)
        # normalize(X, axis=0) divides each column by its norm over the rows (scikit-learn API reference: "if 0,
        # normalize each feature"), a statistic of the rows; its default axis=1 scales each sample alone
        per_column = name == "normalize" and isinstance(kwargs.get("axis"), Const) and kwargs["axis"].value == 0
        if (name in vocab.FUNCTIONAL_TRANSFORMS or per_column) and top in ("sklearn", "") and args and \
                as_data(args[0]) is not None and not _row_wise(args, kwargs, 99):
            data = as_data(args[0])
            fit = self._fit(Est(f"{name}()", "transformer", preprocessing=True), data, False, name, node, frame)
            return Data(data.rows, data.taints | ({fit} if fit else set()), data.test)
        if name == "resample" and (top in ("sklearn", "") or ref.module.endswith("utils")):
            replace = kwargs.get("replace", Const(True))
            datas = [as_data(a) for a in args]
            if not hasattr(self, "_class_draws"):
                self._class_draws = class_draws(self.tree)
            # repeats rows, or draws one class down to a size: an under-sampler (classdraws.py)
            if any(d is not None for d in datas) and (isinstance(replace, Const) and replace.value is True or
                                                      id(node) in self._class_draws):
                est = Est("resample", "transformer", preprocessing=True)
                outs = []
                for data in datas:
                    if data is None:
                        outs.append(UNKNOWN)
                        continue
                    fit = self._fit(est, data, False, "resample", node, frame)
                    outs.append(Data(data.rows, data.taints | ({fit} if fit else set()), data.test))
                return outs[0] if len(outs) == 1 else Tup(tuple(outs))
        if name == "shuffle" and ref.module.startswith("sklearn.utils") and args and kwargs.get("n_samples") is None:
            # sklearn.utils.shuffle(X, y): "a convenience alias to resample(*arrays, replace=False) to do random
            # permutations of the collections" (scikit-learn API reference): the same rows of each, in a new order
            outs = [as_data(a) or UNKNOWN for a in args]
            return outs[0] if len(outs) == 1 else Tup(tuple(outs))
        if vocab.saves(name):
            self._reach_saved(*args, *kwargs.values())  # (savedreach.py)
        elif name in ("train", "cv") and top in vocab.ESTIMATOR_MODULES:
            self._reach(*args, *kwargs.values())
        if name in vocab.TEMPORAL and args and id(node) not in self._drawn_only():  # np.diff of one sample, summed
            self._note(as_data(args[0]), "temporal", name)
        return None

    def _binning(self, name: str, top: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                 frame: Any) -> Any:
        """``pd.qcut(col, 4)`` (quantile edges), ``pd.cut(col, 5)`` (equal-width edges from the column's range) and
        patsy ``dmatrix``/``dmatrices`` with ``C(...)`` (category levels) or a stateful transform (``standardize``,
        ``center``, ``scale``): edges, levels or moments learnt from the rows given. ``pd.cut`` with the edges
        given (``bins=[0, 18, 65, 120]``) learns nothing."""
        from faultlib.detect.data.leakage.values import as_data

        if name in ("qcut", "cut") and top in ("pandas", "pd", "") and args:
            data = as_data(args[0])
            bins = args[1] if len(args) > 1 else kwargs.get("q" if name == "qcut" else "bins")
            if data is None or name == "cut" and not (isinstance(bins, Const) and isinstance(bins.value, int)):
                return None
            out = self._statistic(data, f"{_shown(node.func)}()", node, frame, per_row=True)
            retbins = kwargs.get("retbins")
            if isinstance(retbins, Const) and retbins.value is True:  # (binned, edges): the edges carry the fit
                return Tup((out, Data(None, out.taints, False)))
            return out
        if name in ("dmatrix", "dmatrices") and top == "patsy" and args:
            formula = args[0].value if isinstance(args[0], Const) and isinstance(args[0].value, str) else ""
            data = as_data(args[1] if len(args) > 1 else kwargs.get("data"))
            if data is None or not any(f in formula for f in ("C(", "standardize(", "center(", "scale(")):
                return None
            if data.is_test and all(p.root.test or test_step(p) for p in parts(data.rows)) and not any(
                    f in formula for f in ("standardize(", "center(", "scale(")):
                # levels only, of the held-out rows alone: like pd.get_dummies on each part (a column-matching
                # risk, not a leak: no training row and no statistic); stacked or before a split it is a fit
                return Tup((data, data)) if name == "dmatrices" else data
            est = Est(f"patsy.{name}", "transformer", preprocessing=True)
            fit = self._fit(est, data, False, name, node, frame)
            out = Data(data.rows, data.taints | ({fit} if fit else set()), data.test)
            return Tup((out, out)) if name == "dmatrices" else out
        return None

    # ------------------------------------------------------------------ the split's design

    def _check_split_design(self, args: list[Any], kwargs: dict[str, Any], line: int, frame: Any,
                            how: str = "train_test_split") -> None:
        shuffle = kwargs.get("shuffle", Const(True))
        shuffled = not (isinstance(shuffle, Const) and shuffle.value is False)
        if not hasattr(self, "_unwatched"):
            self._unwatched = unwatched_validation_splits(self.tree)  # type: ignore[attr-defined]
        if line in self._unwatched:
            return  # validation rows only evaluated by a fit with no callback: they choose nothing (watchedsplits.py)
        for arg in args[:1]:  # shuffle=False holds out the last rows: a cut-off, in time order
            data = arg._data if isinstance(arg, MaybeData) else arg if isinstance(arg, Data) else None
            if data is not None and parts(data.rows) and all(test_step(p) is not None for p in parts(data.rows)):
                continue  # X_val, X_test = split(X_temp): held-out rows parted again, no model trains on either side
            self._design(arg, line, frame, shuffled=shuffled, grouped=False, how=how, ordered=not shuffled)

    def _check_cv_design(self, cv: Any, has_groups: bool, x: Any, line: int, frame: Any = None,
                         node: ast.Call | None = None) -> None:
        if not isinstance(cv, Est) or cv.category != "splitter":
            shuffled, grouped = False, has_groups
        else:
            shuffle = cv.options.get("shuffle")
            shuffled = cv.cls in ("ShuffleSplit", "StratifiedShuffleSplit") or (
                isinstance(shuffle, Const) and shuffle.value is True)
            grouped = has_groups or cv.cls in vocab.GROUP_SPLITTERS or cv.cls in ("TimeSeriesSplit", "PredefinedSplit")
        self._design(x, line, frame, shuffled=shuffled, grouped=grouped,
                     how=f"{cv.cls}" if isinstance(cv, Est) else "cross-validation", ordered=keeps_time_order(cv),
                     calendar=calendar_groups(groups_argument(node), self.tree))

    def _design(self, x: Any, line: int, frame: Any, *, shuffled: bool, grouped: bool, how: str,
                ordered: bool = False, calendar: list[str] | None = None) -> None:
        temporal = self._noted(x, "temporal")
        if "sliding windows" in temporal and not self._cut_in_windows(x):
            temporal = temporal - {"sliding windows"}  # the series' own rows, not the windows cut from it
        if not temporal and not ordered:  # lags of the target built out of sight, named by the script (lagnames.py)
            if "_target_lags" not in self.__dict__:
                self._target_lags = lagged_target_columns(self.tree, getattr(self, "_targets", ()))
            lags, reading = self._target_lags
            temporal = {f"lag columns of the target: {', '.join(lags[:3])}{', ...' if len(lags) > 3 else ''}"} \
                if lags and line in reading and self._roots(x) else temporal
        cutoff = date_cutoff(self.tree) if calendar and not ordered and not temporal else None
        whole_series = grouped and not calendar  # GroupKFold by breath_id: each series whole on one side
        if not ordered and not whole_series and (temporal or cutoff is not None):  # timeorder.py: policy and why
            order = "with shuffling" if shuffled else f"in folds of calendar periods ({', '.join(calendar)})" \
                if calendar else "in folds that are not in time order"
            shown = f"rows built with time-ordered features ({', '.join(sorted(temporal))})" if temporal else \
                f"rows of a forecast (the held-out rows are those after the date cut-off on " \
                f"{self.smap.describe(cutoff)})"
            self._design_finding("shuffled_time_split", line, frame,
                                 f"{shown} are split by {how} {order}: the model trains on the future of the rows it "
                                 "is scored on. Fix: split by time (TimeSeriesSplit, a date cut-off)",
                                 {"features": sorted(temporal), **({"groups": calendar} if calendar else {})})
        entity = self._noted(x, "grouped")
        if entity and not grouped:
            self._design_finding("entity_across_split", line, frame,
                                 f"rows of one entity ({', '.join(sorted(entity))}: the script groups by it, so an "
                                 f"entity has several rows) are split row by row by {how}: the same entity lands on "
                                 "both sides. Fix: GroupShuffleSplit / GroupKFold with groups=",
                                 {"columns": sorted(entity)})

    def _cut_in_windows(self, x: Any) -> bool:
        """``x``'s rows went through a window cut (a step at a line where windows.py's slice ran): the windows, not
        the rows of the series they were cut from (a split of the recording's own samples is no window split)."""
        data = x._data if isinstance(x, MaybeData) else x if isinstance(x, Data) else None
        lines = getattr(self, "_window_lines", set())
        return data is not None and any(step.line in lines for p in parts(data.rows) for step in p.steps)

    def _design_finding(self, kind: str, line: int, frame: Any, message: str, evidence: dict[str, Any]) -> None:
        if (kind, line) in self._design_seen:
            return
        self._design_seen.add((kind, line))
        location = {**self.smap.where(line), "function": frame.qualname if frame is not None else "<module>"}
        self.report.findings.append(Finding("leakage", Severity.WARNING, message, location, evidence, kind=kind))


def _per_group(out: Any, grouped: Any, inner: ast.expr | None, node: ast.Call) -> Any:
    """A GroupBy's reduction (``g.agg(np.nanmean)``, ``g.agg(['mean'])``): one row per group, a table of its own that
    carries the statistic when appended to a list, stacked and merged back (as ``g.mean()`` does)."""
    if grouped is not None and inner is not None and isinstance(out, Data) and out.rows is None:
        return out.with_(rows=Rows(Root(_shown(inner), node.lineno)))
    return out
