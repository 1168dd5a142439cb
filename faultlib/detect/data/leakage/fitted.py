"""Which rows was a saved scaler fitted on? Its statistics against the training and test tables.

A fitted ``StandardScaler`` keeps ``mean_``, ``var_``, ``scale_`` (= sqrt(var_)) and
``n_samples_seen_``; a ``MinMaxScaler`` keeps ``data_min_``, ``data_max_`` and ``n_samples_seen_``.
Recomputed on the right rows they come back equal up to rounding; on other rows they do not: two
disjoint samples of n and m rows differ in mean by about sqrt(1/n + 1/m) standard deviations, far
above the tolerances below for any table under 10^8 rows. So comparing the saved statistics with
those of each candidate row set (train, test, train+test, and the first/last ``n_samples_seen_``
rows when that count fits none of them) says which rows the scaler saw.

Tolerances (per feature j): ``|mean_j - mean'_j| <= 1e-4 * scale_j + 1e-6 * mean|x_j|`` (the second
term absorbs values written as text with 7 significant digits), ``|var_j - var'_j| <= 1e-3 * var_j +
1e-9``, and min/max within the same mean tolerance. ``n_samples_seen_`` must equal the row count when
it is saved. Variances are population variances (``ddof=0``), as scikit-learn computes them.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

DETECTOR = "leakage"
MEAN_TOL = 1e-4
TEXT_TOL = 1e-6
VAR_TOL = 1e-3
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".sav")
STAT_KEYS = ("mean_", "var_", "scale_", "data_min_", "data_max_", "n_samples_seen_", "feature_names_in_")


@dataclass(frozen=True)
class FittedScaler:
    """A scaler's saved statistics (arrays of shape (n_features,), float64).

    Attributes:
        kind: ``StandardScaler`` (``mean``, and ``var`` or ``scale``) or ``MinMaxScaler`` (``data_min``, ``data_max``).
        n_samples_seen: rows the scaler saw, when saved (the largest per-feature count when they differ).
        feature_names: ``feature_names_in_`` (or ``features``), when saved (columns are then matched by name).
        source: the file (and key path) it came from.
        n_samples_seen_per_feature: per-feature counts when they differ (scikit-learn ignores NaN in ``fit``
            and then saves one count per feature), else None.
    """

    kind: str
    n_features: int
    mean: np.ndarray | None = None
    var: np.ndarray | None = None
    data_min: np.ndarray | None = None
    data_max: np.ndarray | None = None
    n_samples_seen: int | None = None
    feature_names: tuple[str, ...] | None = None
    source: str = ""
    n_samples_seen_per_feature: tuple[int, ...] | None = None


@dataclass
class Candidate:
    """How well one row set's statistics match the saved ones."""

    name: str
    rows: int
    matches: bool
    max_mean_error: float
    max_var_error: float | None
    n_samples_match: bool | None
    includes_test: bool

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "matches": self.matches, "max_mean_error": self.max_mean_error,
                "max_var_error": self.max_var_error, "n_samples_match": self.n_samples_match,
                "includes_test": self.includes_test}


@dataclass
class FittedReport:
    """What :func:`compare_fitted` found: ``fitted_on`` is the matching candidate's name or ``unknown``."""

    scaler: FittedScaler
    fitted_on: str
    candidates: list[Candidate]
    columns: list[str]
    findings: list[Finding] = field(default_factory=list)
    missing_values: dict[str, int] = field(default_factory=dict)

    def fields(self) -> dict[str, Any]:
        return {"fitted_on": self.fitted_on, "scaler": self.scaler.kind, "features": self.scaler.n_features,
                "columns": self.columns, "n_samples_seen": self.scaler.n_samples_seen,
                "candidates": {c.name: c.to_json() for c in self.candidates}, "missing_values": self.missing_values}


# --------------------------------------------------------------------------- reading the fitted statistics


def _vector(value: Any, key: str, source: str) -> np.ndarray:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, list) or not value or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise InputError(f"{key} must be a non-empty list of numbers", path=source, field=key)
    arr = np.asarray(value, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise InputError(f"{key} holds a non-finite number", path=source, field=key)
    return arr


def scaler_from_mapping(stats: dict[str, Any], source: str) -> FittedScaler:
    """A :class:`FittedScaler` from ``{"mean_": [...], "var_"|"scale_": [...], "n_samples_seen_": n, ...}``
    (or ``data_min_``/``data_max_``); keys without the trailing ``_`` are accepted too.

    Raises:
        InputError: no known statistic, vectors of different lengths, a bad ``n_samples_seen_``.
    """
    s = {k if k.endswith("_") else f"{k}_": v for k, v in stats.items()}
    name_key = "feature_names_in_" if "feature_names_in_" in s else "features"
    names = s.get("feature_names_in_", s.get("features_"))
    feature_names = None
    if names is not None:
        names = names.tolist() if hasattr(names, "tolist") else names
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{name_key} must be a list of column names", path=source, field=name_key)
        feature_names = tuple(names)
    per_feature = None
    seen = s.get("n_samples_seen_")
    if seen is not None:
        seen = seen.tolist() if hasattr(seen, "tolist") else seen
        if isinstance(seen, list):  # per-feature counts: the data had NaNs, which scikit-learn ignores
            if not seen or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0
                                   and float(v) == int(v) for v in seen):
                raise InputError(f"n_samples_seen_ must be a count or a list of counts, got {seen!r}", path=source,
                                 field="n_samples_seen_")
            if len(set(seen)) > 1:
                per_feature = tuple(int(v) for v in seen)
            seen = max(seen)
        if isinstance(seen, bool) or not isinstance(seen, (int, float)) or seen < 1 or float(seen) != int(seen):
            raise InputError(f"n_samples_seen_ must be a positive integer, got {seen!r}", path=source,
                             field="n_samples_seen_")
        seen = int(seen)
    if "mean_" in s:
        mean = _vector(s["mean_"], "mean_", source)
        if "var_" in s:
            var = _vector(s["var_"], "var_", source)
        elif "scale_" in s:
            var = _vector(s["scale_"], "scale_", source) ** 2
        else:
            var = None
        if var is not None and len(var) != len(mean):
            raise InputError(f"mean_ has {len(mean)} values but var_/scale_ has {len(var)}", path=source,
                             field="var_" if "var_" in s else "scale_")
        fitted = FittedScaler("StandardScaler", len(mean), mean=mean, var=var, n_samples_seen=seen,
                              feature_names=feature_names, source=source, n_samples_seen_per_feature=per_feature)
    elif "data_min_" in s and "data_max_" in s:
        lo, hi = _vector(s["data_min_"], "data_min_", source), _vector(s["data_max_"], "data_max_", source)
        if len(lo) != len(hi):
            raise InputError(f"data_min_ has {len(lo)} values but data_max_ has {len(hi)}", path=source,
                             field="data_max_")
        fitted = FittedScaler("MinMaxScaler", len(lo), data_min=lo, data_max=hi, n_samples_seen=seen,
                              feature_names=feature_names, source=source, n_samples_seen_per_feature=per_feature)
    else:
        raise InputError(f"holds no scaler statistics: expected mean_ with var_ or scale_ (StandardScaler) or "
                         f"data_min_ with data_max_ (MinMaxScaler); keys: {sorted(stats)[:20]}", path=source)
    if feature_names is not None and len(feature_names) != fitted.n_features:
        raise InputError(f"{name_key} has {len(feature_names)} names for {fitted.n_features} features",
                         path=source, field=name_key)
    if per_feature is not None and len(per_feature) != fitted.n_features:
        raise InputError(f"n_samples_seen_ has {len(per_feature)} counts for {fitted.n_features} features",
                         path=source, field="n_samples_seen_")
    return fitted


def load_fitted(spec: str, *, allow_pickle: bool = False) -> FittedScaler:
    """Read a fitted scaler's statistics.

    Args:
        spec: ``PARAMS.json`` / ``.yaml`` (optionally ``#key.path`` to the statistics), or a pickled
            scaler or Pipeline (``.pkl``, ``.pickle``, ``.joblib``) when ``allow_pickle``.
        allow_pickle: unpickling runs code from the file; only for files you trust.

    Raises:
        InputError: unreadable or malformed file, missing statistics, or a pickle without ``allow_pickle``.
    """
    from faultlib.readers.keypath import resolve_key_path, split_source
    from faultlib.readers import load_json, load_yaml_file, read_bytes

    path, key = split_source(spec)
    suffix = Path(path).suffix.lower()
    if suffix in PICKLE_SUFFIXES:
        if not allow_pickle:
            raise InputError("is a pickle: loading it runs code from the file. Pass --allow-pickle only for a "
                             "file you trust, or save the statistics as JSON (mean_, var_ or scale_, "
                             "n_samples_seen_)", path=path)
        data = read_bytes(path)
        try:
            import joblib

            obj = joblib.load(io.BytesIO(data))
        except Exception as exc:  # noqa: BLE001 - unpickling raises anything
            raise InputError(f"cannot be unpickled: {type(exc).__name__}: {exc}", path=path) from None
        steps = [s for _, s in getattr(obj, "steps", [])] or [obj]
        for step in steps:
            stats = {k: getattr(step, k) for k in STAT_KEYS if hasattr(step, k)}
            if "mean_" in stats or "data_min_" in stats:
                return scaler_from_mapping(stats, path)
        raise InputError(f"holds a {type(obj).__name__} with no scaler statistics (mean_/data_min_)", path=path)
    if suffix == ".json":
        raw = read_bytes(path)
        if not raw.strip():
            raise InputError("is empty: expected a JSON object of scaler statistics", path=path)
        doc = load_json(raw, path)
        line_of = None
    elif suffix in (".yaml", ".yml"):
        positioned = load_yaml_file(path)
        doc, line_of = positioned.data, positioned.line_of
    else:
        raise InputError(f"unknown format {suffix or '(no extension)'!r}: use .json or .yaml (or a pickle with "
                         "--allow-pickle)", path=path)
    if key:
        doc = resolve_key_path(doc, key, path, line_of)
    if not isinstance(doc, dict):
        raise InputError(f"must be a JSON object of scaler statistics, found {type(doc).__name__}", path=path,
                         field=key)
    return scaler_from_mapping(doc, f"{path}#{key}" if key else path)


# --------------------------------------------------------------------------- comparing with tables


def _matrix(frame: Any, fitted: FittedScaler, path: str, columns: list[str] | None,
            features: list[str] | None = None) -> tuple[np.ndarray, list[str]]:
    """The fitted columns of ``frame`` as float64, NaN where a value is empty, NaN or infinite (scikit-learn's
    scalers ignore NaN when fitting; an infinity could not have been fitted). Columns by ``features``, else the
    saved names, else ``columns`` (the training table's), else every numeric column."""
    names = list(features) if features else list(fitted.feature_names) if fitted.feature_names is not None else None
    if names is not None:
        if len(names) != fitted.n_features:
            raise InputError(f"--features names {len(names)} columns but the scaler was fitted on "
                             f"{fitted.n_features} features", path=path, field="--features")
        missing = [c for c in names if c not in frame.columns]
        if missing:
            what = "--features names" if features else "the scaler was fitted on (its saved feature names)"
            raise InputError(f"has no column {missing[0]!r} that {what}; its columns: {list(frame.columns)[:20]}",
                             path=path, field=missing[0])
        chosen = names
    elif columns is not None:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputError(f"has no column {missing[0]!r} (the training table has it)", path=path, field=missing[0])
        chosen = columns
    else:
        chosen = [c for c in frame.columns if frame[c].dtype.kind in "biuf" or str(frame[c].dtype) == "Int64"]
        if len(chosen) != fitted.n_features:
            raise InputError(f"has {len(chosen)} numeric columns but the scaler was fitted on {fitted.n_features} "
                             "features: name the fitted columns with --features, save feature_names_in_, or pass "
                             "tables with exactly the fitted columns", path=path)
    out = np.empty((len(frame), len(chosen)), dtype=np.float64)
    for j, name in enumerate(chosen):
        column = frame[name]
        if not (column.dtype.kind in "biuf" or str(column.dtype) == "Int64" or column.isna().all()):
            raise InputError(f"column {name!r} is not numeric ({column.dtype})", path=path, field=name)
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        out[:, j] = np.where(np.isfinite(values), values, np.nan)
    return out, chosen


def _candidate(name: str, x: np.ndarray, fitted: FittedScaler, includes_test: bool) -> Candidate:
    import warnings

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)   # an all-NaN column: its statistics are NaN (no match)
        return _candidate_stats(name, x, fitted, includes_test)


def _candidate_stats(name: str, x: np.ndarray, fitted: FittedScaler, includes_test: bool) -> Candidate:
    scale_ref = np.sqrt(fitted.var) if fitted.var is not None else None
    magnitude = np.nanmean(np.abs(x), axis=0) if len(x) else np.zeros(x.shape[1])
    magnitude = np.nan_to_num(magnitude)
    var_error = None
    if fitted.kind == "StandardScaler":
        mean = np.nanmean(x, axis=0)
        unit = scale_ref if scale_ref is not None else np.nanstd(x, axis=0)
        unit = np.where(unit > 0, unit, 1.0)
        tol = MEAN_TOL * unit + TEXT_TOL * magnitude
        mean_error = float(np.max(np.abs(mean - fitted.mean) / unit))
        ok = bool(np.all(np.abs(mean - fitted.mean) <= tol))
        if fitted.var is not None:
            var = np.nanvar(x, axis=0)
            denominator = np.where(fitted.var > 0, fitted.var, 1.0)
            var_error = float(np.max(np.abs(var - fitted.var) / denominator))
            ok = ok and bool(np.all(np.abs(var - fitted.var) <= VAR_TOL * fitted.var + 1e-9))
    else:
        span = np.where(fitted.data_max - fitted.data_min > 0, fitted.data_max - fitted.data_min, 1.0)
        tol = MEAN_TOL * span + TEXT_TOL * magnitude
        lo_err, hi_err = np.abs(np.nanmin(x, axis=0) - fitted.data_min), np.abs(np.nanmax(x, axis=0) - fitted.data_max)
        mean_error = float(np.max(np.maximum(lo_err, hi_err) / span))
        ok = bool(np.all(lo_err <= tol) and np.all(hi_err <= tol))
    counts = (~np.isnan(x)).sum(axis=0)
    if fitted.n_samples_seen_per_feature is not None:
        seen_match = bool(np.array_equal(counts, np.asarray(fitted.n_samples_seen_per_feature)))
    elif fitted.n_samples_seen is not None:   # one count: every feature saw that many values
        seen_match = bool(np.all(counts == fitted.n_samples_seen))
    else:
        seen_match = None
    return Candidate(name, len(x), ok and seen_match is not False, _finite(mean_error), _finite(var_error), seen_match,
                     includes_test)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 9)


def compare_fitted(fitted: FittedScaler, train: Any, test: Any, *, train_path: str = "<train>",
                   test_path: str = "<test>", features: list[str] | None = None) -> FittedReport:
    """Say which rows ``fitted`` was fitted on.

    Args:
        fitted: the saved statistics (:func:`load_fitted`).
        train, test: the tables (pandas DataFrames, as :func:`faultlib.readers.tables.read_table` returns).
        train_path, test_path: their files, for messages.
        features: the fitted columns, in the scaler's order (default: the saved ``feature_names_in_`` /
            ``features``, else every numeric column of the training table). Other columns are ignored.

    Returns:
        :class:`FittedReport`. Candidates, in order: ``train``, ``test``, ``train+test``, then, when
        ``n_samples_seen_`` is saved and fits none of those counts, ``train[:n]``, ``test[:n]``,
        ``(train+test)[:n]`` and ``(train+test)[-n:]``. ``fitted_on`` is the first that matches.
        Findings: ``fit_on_test`` (error) when that candidate holds test rows; ``fitted_rows_unknown``
        (warning) when none matches; none when it is ``train`` or a slice of it.

    Raises:
        InputError: a table lacks a fitted column, or the column counts disagree (each naming the file and
            column). Empty, NaN and infinite values are data: left out of the statistics as scikit-learn's
            scalers leave NaN out (``missing_values`` counts them).
    """
    x_train, columns = _matrix(train, fitted, train_path, None, features)
    x_test, _ = _matrix(test, fitted, test_path, columns, None)
    both = np.vstack([x_train, x_test])
    candidates = [_candidate("train", x_train, fitted, False), _candidate("test", x_test, fitted, True),
                  _candidate("train+test", both, fitted, True)]
    n = fitted.n_samples_seen
    if n is not None and n not in (len(x_train), len(x_test), len(both)):
        if n < len(x_train):
            candidates.append(_candidate(f"train[:{n}]", x_train[:n], fitted, False))
        if n < len(x_test):
            candidates.append(_candidate(f"test[:{n}]", x_test[:n], fitted, True))
        if n < len(both):
            candidates.append(_candidate(f"(train+test)[:{n}]", both[:n], fitted, n > len(x_train)))
            candidates.append(_candidate(f"(train+test)[-{n}:]", both[-n:], fitted, True))
    match = next((c for c in candidates if c.matches), None)
    report = FittedReport(fitted, match.name if match else "unknown", candidates, columns,
                          missing_values={"train": int(np.isnan(x_train).sum()), "test": int(np.isnan(x_test).sum())})
    where = {"file": fitted.source.split("#", 1)[0]}
    if "#" in fitted.source:
        where["key"] = fitted.source.split("#", 1)[1]
    if match is not None and match.includes_test:
        report.findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"the {fitted.kind}'s statistics are those of {match.name} ({match.rows} rows, mean within "
            f"{match.max_mean_error:.2g} standard deviations): it was fitted on rows of the test table "
            f"{test_path}; refit it on {train_path} only",
            where, {"fitted_on": match.name, "rows": match.rows, "train_rows": len(x_train),
                    "test_rows": len(x_test), "max_mean_error": match.max_mean_error,
                    "max_var_error": match.max_var_error}, kind="fit_on_test"))
    elif match is None:
        closest = min(candidates, key=lambda c: c.max_mean_error)
        report.findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"the {fitted.kind}'s statistics match neither {train_path}, {test_path} nor both (closest: "
            f"{closest.name}, mean off by {closest.max_mean_error:.3g} standard deviations"
            f"{'' if n is None else f'; it saw {n} rows'}): it was fitted on other rows",
            where, {"closest": closest.name, "max_mean_error": closest.max_mean_error,
                    "n_samples_seen": n}, kind="fitted_rows_unknown"))
    return report
