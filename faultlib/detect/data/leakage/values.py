"""The abstract values of the static leakage analysis: row sets, data, estimators and their fits.

A **row set** is a path from a root (the rows a variable held when it first appeared: a loaded
table, a function parameter) through row selections: a ``train_test_split`` part, a fold of a
cross-validation loop, a slice, a filter. Two row sets of the same root are related by their first
differing step: the same split's train and test parts are disjoint, ``[:n]`` and ``[n:]`` are
disjoint, a path that is a prefix of another contains it. Anything else is *unknown*, and an unknown
relation never produces a finding (precision first: a finding means the analysis can show the rows
overlap).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from faultlib.pyflow.values import Bound, Opaque

_ids = itertools.count(1)


def new_id() -> int:
    return next(_ids)


@dataclass(frozen=True)
class Root:
    """Where rows come from: a variable's first value (``name`` at ``line``); ``test`` when it is named
    for held-out rows (``X_test`` loaded from its own file)."""

    name: str
    line: int
    test: bool = field(default=False, compare=False)  # learnt from a name later: still the same rows
    uid: int = field(default_factory=new_id)
    # every row there is: the table read from the script's only data file (``train_df`` from ``news_train.csv`` with
    # no test file beside it is all the data, whatever it is called; see :mod:`.sole_file`)
    whole: bool = field(default=False, compare=False)
    from_file: bool = field(default=False, compare=False)  # read by a file reader (``pd.read_csv('train.csv')``)


@dataclass(frozen=True)
class Step:
    """One row selection.

    Attributes:
        kind: ``split`` (train_test_split), ``fold`` (a CV loop's indices), ``slice`` (``[lo:hi]``),
            ``filter`` (a mask, an index array, anything else that keeps some rows; part ``class`` for a mask of the
            label against a constant, ``sample`` for a random draw).
        ident: the split's or loop's id (``split``/``fold``), the filter's id.
        part: ``train`` or ``test`` for ``split``/``fold``; ``val`` for the second part of a split of rows
            that are already a training part (train -> train/validation: not the test set).
        lo, hi: slice bounds as ints or source text (``None`` = open).
        line: where the selection happened.
    """

    kind: str
    ident: int = 0
    part: str | None = None
    lo: Any = None
    hi: Any = None
    line: int = 0

    def describe(self) -> str:
        if self.kind in ("split", "fold"):
            return f"[{self.kind}@{self.line}:{self.part}]"
        if self.kind == "slice":
            return f"[{'' if self.lo is None else self.lo}:{'' if self.hi is None else self.hi}]"
        return f"[{self.part}@{self.line}]" if self.part in ("sample", "shuffle") else f"[filter@{self.line}]"


@dataclass(frozen=True)
class Rows:
    root: Root
    steps: tuple[Step, ...] = ()

    def child(self, step: Step) -> "Rows":
        return Rows(self.root, self.steps + (step,))

    def describe(self) -> str:
        return self.root.name + "".join(s.describe() for s in self.steps)


@dataclass(frozen=True)
class RowUnion:
    """Rows stacked from several arrays (``np.vstack([X_train, X_test])``, ``pd.concat``)."""

    parts: tuple[Rows, ...]

    def describe(self) -> str:
        return " + ".join(p.describe() for p in self.parts)


RowSet = Rows | RowUnion


def parts(rows: RowSet | None) -> tuple[Rows, ...]:
    if rows is None:
        return ()
    return rows.parts if isinstance(rows, RowUnion) else (rows,)


def covers(outer: Rows, inner: Rows) -> bool:
    """``outer`` holds every row of ``inner`` (same root, ``outer``'s path a prefix of ``inner``'s)."""
    return outer.root == inner.root and inner.steps[:len(outer.steps)] == outer.steps


def training_part_of(outer: "RowSet | None", inner: "RowSet | None") -> bool:
    """A part of ``inner`` is the training part of a split of a part of ``outer`` (``X_train`` of
    ``train_test_split(X)``): a fit on ``inner`` saw most rows of ``outer``, so every fold of a cross-validation
    over ``outer`` holds out rows that shaped it (a selector fitted on ``X_train``, then
    ``cross_val_score(m, X[kept], y)`` over every row)."""
    def split_off(o: Rows, i: Rows) -> bool:
        extra = i.steps[len(o.steps):]
        return covers(o, i) and bool(extra) and all(s.kind == "split" and s.part == "train" for s in extra)

    return any(split_off(o, i) for o in parts(outer) for i in parts(inner))


def _slices_disjoint(a: Step, b: Step) -> bool:
    def before(hi: Any, lo: Any) -> bool:  # every index < hi comes before every index >= lo
        if hi is None or lo is None:
            return False
        if hi == lo:
            return True
        return isinstance(hi, int) and isinstance(lo, int) and (hi >= 0) == (lo >= 0) and hi <= lo

    return before(a.hi, b.lo) or before(b.hi, a.lo)


def disjoint(a: Rows, b: Rows) -> bool:
    """Provably no common row."""
    if a.root != b.root:
        return False
    for s, t in zip(a.steps, b.steps):
        if s == t:
            continue
        if s.kind == t.kind and s.kind in ("split", "fold") and s.ident == t.ident:
            return s.part != t.part
        if s.kind == t.kind == "slice":
            return _slices_disjoint(s, t)
        return False
    return False


def test_step(rows: Rows, start: int = 0, *, val: bool = False) -> Step | None:
    """The first ``test`` selection (``val`` too when asked) at or after ``start`` in ``rows``' path."""
    for step in rows.steps[start:]:
        if step.part == "test" or val and step.part == "val":
            return step
    return None


def has_split(rows: RowSet | None) -> bool:
    """Some part of ``rows`` went through a split or a fold (the split, not a name, says what is held out)."""
    return any(s.kind in ("split", "fold") for p in parts(rows) for s in p.steps)


def is_training_part(rows: RowSet | None) -> bool:
    """Every part of ``rows`` is the training side of an earlier split, or rows named for training
    (``train``, ``X_train``): splitting them again makes validation rows, not the test set."""
    from faultlib.detect.data.leakage.vocab import looks_like_train

    ps = parts(rows)
    return bool(ps) and all(any(s.kind == "split" and s.part == "train" for s in p.steps) or (
        looks_like_train(p.root.name) and not p.root.whole and not any(s.part == "test" for s in p.steps))
        for p in ps)


def rejoined_split(stacked: tuple[Rows, ...]) -> Rows | None:
    """The rows a split divided, when ``stacked`` are its training part then its held-out part (test or
    validation), in that order and nothing else (the split undone: :mod:`.rowunions`); ``None`` otherwise."""
    if len(stacked) != 2 or any(not isinstance(p, Rows) or not p.steps for p in stacked):
        return None
    first, second = stacked
    a, b = first.steps[-1], second.steps[-1]
    if first.root != second.root or first.steps[:-1] != second.steps[:-1] or a.kind != "split" or \
            b.kind != "split" or a.ident != b.ident or a.part != "train" or b.part not in ("test", "val"):
        return None
    return Rows(first.root, first.steps[:-1])


def data_rows_child(data: "Data", step: Step) -> Any:
    """``data``'s rows after one more selection ``step`` (each part of a stack), or ``None`` when unknown."""
    if isinstance(data.rows, Rows):
        return data.rows.child(step)
    if isinstance(data.rows, RowUnion):
        # a split's parts stacked back in order are the rows before it (a new split, fold, slice or index array of
        # the series); a mask of the label or a random draw keeps rows of each part, the held-out part's among them
        by_rows = step.kind == "filter" and step.part in ("class", "sample")
        whole = None if by_rows else rejoined_split(data.rows.parts)
        return whole.child(step) if whole is not None else RowUnion(tuple(p.child(step) for p in data.rows.parts))
    return None


def is_test_rows(rows: RowSet | None) -> bool:
    return any(p.root.test or test_step(p) is not None for p in parts(rows))


@dataclass(frozen=True)
class FitRef:
    """One fit of an estimator: which rows it saw and where.

    Attributes:
        estimator: class name (``StandardScaler``, ``Pipeline(StandardScaler, SVC)``).
        variable: the variable holding the estimator, if any.
        rows: the rows of the ``X`` it was fitted on (``None`` = unknown).
        supervised: the fit read labels (``y`` passed, or a selector/encoder/sampler that needs them).
        line, column, function: the fit call (function = qualified name, ``<module>`` at top level).
        method: ``fit``, ``fit_transform``, ``fit_resample``.
        loops: ids of the cross-validation loops running when it was fitted.
    """

    estimator: str
    variable: str | None
    rows: RowSet | None
    supervised: bool
    line: int
    column: int
    function: str
    method: str
    loops: tuple[int, ...] = ()
    handwritten: bool = False  # a statistic computed by hand (``df.mean()``), not an estimator's fit
    resampler: bool = False    # an oversampler: its output repeats rows, so a validation part counts as held out
    uid: int = field(default_factory=new_id)


@dataclass(frozen=True)
class Data:
    """Array-like values: their rows, the fits that shaped them, and whether they are held out by name/use."""

    rows: RowSet | None
    taints: frozenset[FitRef] = frozenset()
    test: bool = False

    @property
    def is_test(self) -> bool:
        return self.test or is_test_rows(self.rows)

    @property
    def is_test_by_rows(self) -> bool:
        return is_test_rows(self.rows)

    def with_(self, *, rows: Any = ..., taints: Any = ..., test: Any = ...) -> "Data":
        return Data(self.rows if rows is ... else rows, self.taints if taints is ... else taints,
                    self.test if test is ... else test)


@dataclass
class Est:
    """An estimator object (mutable: fitting it changes it, as in scikit-learn).

    Attributes:
        cls: class name; for a pipeline ``Pipeline(A, B)``.
        category: ``transformer``, ``model``, ``pipeline``, ``search`` or ``splitter``.
        preprocessing: its fit learns from rows and shapes the features (a leak candidate).
        supervised: its fit reads labels whatever the call.
        steps: a pipeline's step estimators.
        fit: the latest fit (``None`` = unfitted or unknown).
        variable: the last variable it was bound to.
    """

    cls: str
    category: str
    preprocessing: bool = False
    supervised: bool = False
    steps: list["Est"] = field(default_factory=list)
    fit: FitRef | None = None
    variable: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # constructor keywords a check reads (``shuffle``)
    uid: int = field(default_factory=new_id)


class MaybeData(Opaque):
    """An unknown value bound to a variable; it becomes a data root the first time it is used as data."""

    def __init__(self, name: str, line: int):
        super().__init__(name, line)
        self._data: Data | None = None
        self.from_file = False  # read by a file reader (a table, never a dict of parts)
        self.whole = False  # read from the script's only data file: all the rows there are (Root.whole)
        self.training_named = False  # its held-out word names training rows here (x_dev beside a lockbox: devparts.py)

    @property
    def used_as_data(self) -> bool:
        return self._data is not None

    def as_data(self) -> Data:
        if self._data is None:
            from faultlib.detect.data.leakage.vocab import looks_like_test

            held = looks_like_test(self.name) and not self.training_named
            self._data = Data(Rows(Root(self.name, self.line, held, whole=self.whole,
                                   from_file=self.from_file)))
        return self._data


@dataclass(frozen=True)
class FoldIdx:
    """The train or test indices of a cross-validation loop."""

    loop: int
    part: str
    line: int


@dataclass(frozen=True)
class FoldIter:
    """``splitter.split(X)``: iterating it yields ``(train_idx, test_idx)``."""

    loop: int
    line: int
    data: Data | None


@dataclass(frozen=True)
class Enum:
    inner: Any


@dataclass(frozen=True)
class Indexer:
    """``df.iloc`` / ``df.loc``: subscripting it selects rows of ``data``."""

    data: Data


def before_sample(fit_rows: Rows, held: Rows) -> Rows:
    """The rows a random subset (or one class's rows, :mod:`.classfilters`) was drawn from, when ``held`` did not go
    through that same selection: a model trained on part of a sample of all rows (an undersample), or on the rows of
    one class of rows that already hold a held-out part (``pd.concat([X_train, X_val])[y == 1]``), has seen rows of
    that part."""
    for i, step in enumerate(fit_rows.steps):
        if step.part in ("sample", "class"):
            before = Rows(fit_rows.root, fit_rows.steps[:i])
            if held.steps[:i + 1] == fit_rows.steps[:i + 1] or step.part == "class" and test_step(
                    before, val=True) is None:
                return fit_rows  # a class cut before any part was held out: the split that follows parts its rows
            return before
    return fit_rows


def maybe_data(value: Any) -> Data | None:
    """``value`` as data if it already is data (an opaque value is data once used as data), else ``None``."""
    if isinstance(value, MaybeData):
        return value._data
    if isinstance(value, Bound) and isinstance(value.receiver, (Data, MaybeData)):
        return maybe_data(value.receiver)
    return as_data(value)


def as_data(value: Any) -> Data | None:
    """``value`` as data, making an opaque value a data root (it is used where data goes); a field of data or
    of an opaque object (``df.price``, ``ds.data`` of a scikit-learn ``Bunch``) is data with the same rows."""
    if isinstance(value, Data):
        return value
    if isinstance(value, MaybeData):
        return value.as_data()
    if isinstance(value, Indexer):
        return value.data
    if isinstance(value, Bound) and isinstance(value.receiver, (Data, MaybeData)):
        return as_data(value.receiver)
    return None
