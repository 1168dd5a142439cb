"""Runtime leakage detection: wrappers that remember which rows each ``fit`` saw.

:class:`LeakageMonitor` wraps scikit-learn estimators (transformers, selectors, models, whole
Pipelines) in :class:`Monitored`. Each wrapped call fingerprints the rows it receives; a
``transform`` also records that its output rows descend from its input rows (**lineage**), so rows
transformed before a split are traced back to the raw rows they came from. An evaluation
(``predict``, ``predict_proba``, ``decision_function``, ``score``) of the outermost wrapped estimator
opens a context: the rows it evaluates that its own fit did not see are the **held-out** rows; every
fitted step that shaped them (through lineage, or called inside the evaluation, like a step of the
evaluated Pipeline) and whose fit saw some of them is a leak.

Row fingerprints: 64-bit BLAKE2b of each row's bytes (as float64 for numeric data), so the same row
is recognised in a copy, a slice or a fancy-indexed array; identical rows count as one row (a
duplicated row across train and test is a leak of its own). ``monitor.heldout(X_test)`` declares a
final test set explicitly, for code that evaluates with an unwrapped model.

Clones (``cross_val_score``, ``GridSearchCV``) keep recording into the same monitor: a monitor is a
shared recorder and copying it returns itself. Run cross-validation with ``n_jobs=None`` (workers in
other processes record into copies that are lost). Cost: one hash per row per wrapped call
(O(rows x features) bytes) and one set of fingerprints per fit.

Kinds of :meth:`LeakageMonitor.findings` (one finding per leaking fit):
``fit_outside_cv`` (one fit shaped the rows of >= 2 evaluations of different fits, through data
transformed before the cross-validation), ``reused_across_folds`` (the same, the fitted step applied
inside each evaluation), ``fit_before_split`` (one evaluation; the fit saw training and held-out
rows), ``fit_on_test`` (the fit saw only held-out rows, or rows declared with :meth:`heldout`).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from faultlib.errors import require
from faultlib.findings import Finding, Severity

np = require("numpy", "data")
BaseEstimator = require("sklearn.base", "torch").BaseEstimator  # scikit-learn ships in the torch extra

DETECTOR = "leakage"
EVALUATION_METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "score")
DELEGATED = EVALUATION_METHODS + ("transform", "fit_transform", "inverse_transform")


def row_fingerprints(X: Any) -> np.ndarray:
    """One 64-bit fingerprint per row of ``X``.

    Args:
        X: array-like of shape (n_rows, ...) (NumPy, pandas, SciPy sparse, nested lists); a 1-D array
            is one column.

    Returns:
        ``uint64`` array of shape (n_rows,): BLAKE2b-64 of each row's bytes; numeric rows as float64,
        so ``X`` and ``X.astype(np.float32).astype(np.float64)``-free copies of it match.
    """
    if hasattr(X, "tocsr"):  # scipy sparse
        csr = X.tocsr()
        out = np.empty(csr.shape[0], dtype=np.uint64)
        for i in range(csr.shape[0]):
            start, stop = csr.indptr[i], csr.indptr[i + 1]
            digest = hashlib.blake2b(csr.indices[start:stop].astype(np.int64).tobytes()
                                     + csr.data[start:stop].astype(np.float64).tobytes(), digest_size=8)
            out[i] = int.from_bytes(digest.digest(), "little")
        return out
    arr = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    arr = arr.reshape(arr.shape[0], -1)
    if arr.dtype.kind in "biuf":
        rows = np.ascontiguousarray(arr, dtype=np.float64)
        digests = (hashlib.blake2b(row.tobytes(), digest_size=8).digest() for row in rows)
    else:
        digests = (hashlib.blake2b(repr(tuple(row)).encode(), digest_size=8).digest() for row in arr)
    return np.fromiter((int.from_bytes(d, "little") for d in digests), dtype=np.uint64, count=arr.shape[0])


_FAULTLIB = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LIBRARIES = tuple(os.sep + name + os.sep for name in ("sklearn", "joblib", "numpy", "scipy", "imblearn", "pandas"))


def _caller() -> tuple[str, int] | None:
    """The first frame outside faultlib and the numeric libraries: the user's line that called fit."""
    frame = sys._getframe(1)
    while frame is not None:
        name = os.path.abspath(frame.f_code.co_filename)
        if not name.startswith(_FAULTLIB + os.sep) and not any(part in name for part in _LIBRARIES) and \
                not name.startswith("<"):
            return name, frame.f_lineno
        frame = frame.f_back
    return None


def _supervised(estimator: Any, y: Any) -> bool:
    """The fit reads labels: ``y`` was passed and the estimator is a selector, supervised encoder or
    sampler (a Pipeline passes ``y`` to every step; a scaler ignores it)."""
    from faultlib.detect.data.leakage.vocab import is_supervised

    inner = estimator.estimator if isinstance(estimator, Monitored) else estimator
    steps = getattr(inner, "steps", None)
    if isinstance(steps, list):
        return y is not None and any(_supervised(s, y) for _, s in steps if s not in (None, "passthrough"))
    return y is not None and is_supervised(type(inner).__name__, type(inner).__module__)


@dataclass
class FitRecord:
    """One ``fit`` of a wrapped estimator: the raw rows it saw (after lineage), and the user's call site."""

    id: int
    estimator: str
    origins: frozenset[int]
    rows: int
    supervised: bool
    method: str = "fit"
    file: str | None = None
    line: int | None = None


@dataclass
class _Evaluation:
    evaluated: FitRecord | None
    origins: set[int]
    shapers: set[int]
    nested: set[int] = field(default_factory=set)


@dataclass
class LeakEvent:
    """One evaluation that held out rows a fitted step had seen.

    Attributes:
        fit: the leaking step's :class:`FitRecord` id.
        evaluated: the fit record id of the estimator being evaluated (``None`` for a declared test set).
        via: ``lineage`` (data transformed before the evaluation), ``nested`` (the step ran inside it)
            or ``declared`` (:meth:`LeakageMonitor.heldout`).
        held_out: rows the evaluation held out; overlap: how many of them the step had seen.
    """

    fit: int
    evaluated: int | None
    via: str
    held_out: int
    overlap: int


class LeakageMonitor:
    """Records fits and evaluations of wrapped estimators and reports leaks as findings.

    Args:
        detector: the ``detector`` name of the findings (default ``leakage``).

    Call order: :meth:`wrap` the estimators (the Pipeline you evaluate, and its steps), run your
    training and evaluation code unchanged, then read :meth:`findings`. :meth:`reset` forgets
    everything (one monitor per experiment, or reset between experiments).
    """

    def __init__(self, detector: str = DETECTOR):
        self.detector = detector
        self._ids = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        """Forget every fit, lineage entry, evaluation and leak."""
        self.fits: dict[int, FitRecord] = {}
        self.events: list[LeakEvent] = []
        self.evaluations = 0
        self._lineage: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
        self._declared: set[int] = set()
        self._context: _Evaluation | None = None

    def __deepcopy__(self, memo: dict) -> "LeakageMonitor":
        return self  # clones made by cross_val_score / GridSearchCV record into the same monitor

    def __copy__(self) -> "LeakageMonitor":
        return self

    def wrap(self, estimator: Any) -> "Monitored":
        """``estimator`` wrapped so that its fits and evaluations are recorded (scikit-learn compatible)."""
        return Monitored(estimator, self)

    # ------------------------------------------------------------------ recording

    def _resolve(self, fps: np.ndarray) -> tuple[list[frozenset[int]], set[int]]:
        per_row, shapers = [], set()
        for fp in fps.tolist():
            entry = self._lineage.get(fp)
            if entry is None:
                per_row.append(frozenset((fp,)))
            else:
                per_row.append(entry[0])
                shapers |= entry[1]
        return per_row, shapers

    def _record_fit(self, estimator: Any, X: Any, y: Any, method: str) -> FitRecord:
        per_row, _ = self._resolve(row_fingerprints(X))
        origins = frozenset().union(*per_row) if per_row else frozenset()
        site = _caller()
        record = FitRecord(next(self._ids), _name(estimator), origins, len(per_row), _supervised(estimator, y), method,
                           *(site or (None, None)))
        self.fits[record.id] = record
        if self._declared & origins:
            self.events.append(LeakEvent(record.id, None, "declared", len(self._declared),
                                         len(self._declared & origins)))
        if self._context is not None:
            self._context.nested.add(record.id)
        return record

    def _record_lineage(self, record: FitRecord | None, X: Any, out: Any) -> None:
        if record is None or out is None or not hasattr(out, "shape") or len(getattr(out, "shape", ())) == 0:
            return
        fps_in, fps_out = row_fingerprints(X), row_fingerprints(out)
        if len(fps_in) != len(fps_out):
            return  # a sampler changed the rows: no row-to-row lineage
        for fin, fout in zip(fps_in.tolist(), fps_out.tolist()):
            if fin == fout:
                continue  # passthrough: raw rows stay raw
            origins, shapers = self._lineage.get(fin, (frozenset((fin,)), frozenset()))
            self._lineage[fout] = (origins, shapers | {record.id})

    def _begin(self, record: FitRecord | None, X: Any) -> _Evaluation | None:
        if self._context is not None:
            if record is not None:
                self._context.nested.add(record.id)
            return None
        per_row, shapers = self._resolve(row_fingerprints(X))
        self._context = _Evaluation(record, set().union(*per_row) if per_row else set(), shapers)
        return self._context

    def _end(self, context: _Evaluation | None) -> None:
        if context is None:
            return
        self._context = None
        self.evaluations += 1
        own = context.evaluated.origins if context.evaluated else frozenset()
        held_out = context.origins - own
        if not held_out:
            return  # scored on its own training rows: a training score, not an evaluation
        for via, ids in (("lineage", context.shapers), ("nested", context.nested)):
            for fit_id in ids:
                if context.evaluated is not None and fit_id == context.evaluated.id:
                    continue
                seen = held_out & self.fits[fit_id].origins
                if seen:
                    self.events.append(LeakEvent(fit_id, context.evaluated.id if context.evaluated else None, via,
                                                 len(held_out), len(seen)))

    def heldout(self, X: Any, *, role: str = "test") -> None:
        """Declare ``X``'s rows a held-out set (``role``: ``test`` or ``validation``): any wrapped fit that
        saw one of them, before or after this call, is reported as ``fit_on_test``."""
        per_row, _ = self._resolve(row_fingerprints(X))
        rows = set().union(*per_row) if per_row else set()
        self._declared |= rows
        for record in self.fits.values():
            seen = rows & record.origins
            if seen:
                self.events.append(LeakEvent(record.id, None, "declared", len(rows), len(seen)))

    # ------------------------------------------------------------------ reporting

    def findings(self) -> list[Finding]:
        """One :class:`Finding` per fitted step that leaked, ordered by fit; empty when nothing leaked.

        Severity: error when the leaking fit read labels (selectors, target encoders: the bias is
        large), warning otherwise (scalers, imputers: usually small but real).
        """
        by_fit: dict[int, list[LeakEvent]] = {}
        for event in self.events:
            by_fit.setdefault(event.fit, []).append(event)
        out = []
        for fit_id in sorted(by_fit):
            events, record = by_fit[fit_id], self.fits[fit_id]
            evaluated = {e.evaluated for e in events if e.evaluated is not None}
            vias = {e.via for e in events}
            if "declared" in vias:
                kind = "fit_on_test"
                why = "rows declared held out with monitor.heldout()"
            elif len(evaluated) >= 2:
                kind = "reused_across_folds" if "nested" in vias else "fit_outside_cv"
                why = (f"the held-out rows of {len(evaluated)} evaluations of differently fitted models "
                       f"(cross-validation folds)")
            else:
                other = self.fits.get(next(iter(evaluated))) if evaluated else None
                kind = "fit_on_test" if other is not None and not (other.origins & record.origins) else \
                    "fit_before_split"
                why = "the rows held out by a later evaluation"
            overlap = sum(e.overlap for e in events)
            held_out = sum(e.held_out for e in events)
            labels = " and labels" if record.supervised else ""
            message = (f"{record.estimator} was fitted on {record.rows} rows{labels} that include {why}: "
                       f"{overlap} of {held_out} held-out rows scored across {len(events)} evaluation(s) had "
                       "shaped its fit; fit it inside the split or Pipeline that is evaluated")
            location = {"function": f"{record.estimator}.{record.method}"}
            if record.file is not None:
                location.update(file=record.file, line=record.line)
            out.append(Finding(self.detector, Severity.ERROR if record.supervised else Severity.WARNING, message,
                               location,
                               {"estimator": record.estimator, "fit_rows": record.rows,
                                "supervised": record.supervised, "evaluations": len(events),
                                "models_evaluated": len(evaluated), "held_out_rows": held_out,
                                "overlapping_rows": overlap, "via": sorted(vias)}, kind=kind))
        return out


def _name(estimator: Any) -> str:
    inner = getattr(estimator, "estimator", estimator) if isinstance(estimator, Monitored) else estimator
    steps = getattr(inner, "steps", None)
    if isinstance(steps, list):
        names = [type(getattr(s, "estimator", s) if isinstance(s, Monitored) else s).__name__ for _, s in steps
                 if s not in (None, "passthrough")]
        return f"{type(inner).__name__}({', '.join(names)})"
    return type(inner).__name__


class Monitored(BaseEstimator):
    """A scikit-learn estimator wrapped so that a :class:`LeakageMonitor` sees its fits and evaluations.

    Args:
        estimator: any scikit-learn estimator or Pipeline (fitted in place, like a Pipeline's steps).
        monitor: the recorder.

    It offers exactly the methods the wrapped estimator has (``transform`` only on transformers,
    ``predict_proba`` only where the estimator has it), its tags, and its fitted attributes
    (``classes_``, ``n_features_in_``...); ``clone`` gives an unfitted wrapper recording into the
    same monitor.
    """

    def __init__(self, estimator: Any = None, monitor: LeakageMonitor | None = None):
        self.estimator = estimator
        self.monitor = monitor

    def __sklearn_tags__(self):
        return self.estimator.__sklearn_tags__()

    def _fit_record(self) -> FitRecord | None:
        return self.__dict__.get("_faultlib_fit")

    def fit(self, X, y=None, **fit_params):
        monitor = self.monitor
        record = monitor._record_fit(self, X, y, "fit")
        self.__dict__["_faultlib_fit"] = record
        if y is None:
            self.estimator.fit(X, **fit_params)
        else:
            self.estimator.fit(X, y, **fit_params)
        return self

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("estimator", "monitor", "_faultlib_fit"):
            raise AttributeError(name)
        inner = self.__dict__.get("estimator")
        if inner is None:
            raise AttributeError(name)
        target = getattr(inner, name)  # AttributeError when the estimator lacks it (hasattr stays honest)
        if name not in DELEGATED:
            return target
        if name == "fit_transform":
            return self._fit_transform
        record = self._transform if name in ("transform", "inverse_transform") else self._evaluate

        def method(X, *args, **kwargs):
            return record(target, X, *args, **kwargs)

        method.__name__ = method.__qualname__ = name  # scikit-learn's scorers look methods up by __name__
        method.__doc__ = getattr(target, "__doc__", None)
        return method

    def __sklearn_is_fitted__(self) -> bool:
        return self._fit_record() is not None

    def _fit_transform(self, X, y=None, **fit_params):
        monitor = self.monitor
        record = monitor._record_fit(self, X, y, "fit_transform")
        self.__dict__["_faultlib_fit"] = record
        out = self.estimator.fit_transform(X, y, **fit_params) if y is not None else \
            self.estimator.fit_transform(X, **fit_params)
        monitor._record_lineage(record, X, out)
        return out

    def _transform(self, method, X, *args, **kwargs):
        record = self._fit_record()
        if record is not None and self.monitor._context is not None:
            self.monitor._context.nested.add(record.id)
        out = method(X, *args, **kwargs)
        self.monitor._record_lineage(record, X, out)
        return out

    def _evaluate(self, method, X, *args, **kwargs):
        context = self.monitor._begin(self._fit_record(), X)
        try:
            return method(X, *args, **kwargs)
        finally:
            self.monitor._end(context)
