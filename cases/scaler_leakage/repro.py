"""scaler_leakage: feature selection and scaling fitted before cross-validation on a wide table.

The table: 80 patients of scikit-learn's breast_cancer (40 per class, drawn with the seed), their 30
real measurements and 1970 deterministic noise probes (a wide screen: 2000 columns, few rows). The
outcome cross-validated is the diagnosis shuffled with the seed: no column can predict it, so an
honest estimate sits near chance (0.5) and anything above it is optimism.

The experiment is the textbook right way: ``Pipeline(SelectKBest(k=10), StandardScaler,
LogisticRegression)`` handed to ``cross_val_score`` (5 stratified folds, reshuffled each repeat), so
each fold refits selection and scaling on its own training rows. The faulted phase's
``hoist_preprocessing`` shim turns it, for a window of repeats, into the textbook wrong way: the
selector and the scaler are fitted once on every row and label, and only the classifier is
cross-validated on the transformed rows (Hastie, Tibshirani & Friedman, ESL 7.10.2).

Each repeat (span ``cv.repeat``) scores the experiment and, on the same folds, a reference pipeline
the shim never touches; ``optimism`` = experiment - reference. A :class:`LeakageMonitor` wraps the
experiment and its steps: it fingerprints the rows each fit saw and reports any evaluation on rows
a fitted step had seen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from faultlib import repro
from faultlib.detect.data.leakage import LeakageMonitor


def wide_table(seed: int, rows: int, columns: int):
    """(X, shuffled diagnosis, diagnosis): ``rows`` patients (half per class), 30 real + noise columns.

    Returns:
        X float64 (rows, columns); the two outcomes int64 (rows,).
    """
    x, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(seed)
    chosen = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), rows // 2, replace=False) for c in (0, 1)]))
    noise = rng.standard_normal((rows, columns - x.shape[1]))
    return np.hstack([x[chosen], noise]), rng.permutation(y[chosen]), y[chosen]


def pipeline(k: int, monitor: LeakageMonitor | None = None) -> Pipeline:
    wrap = monitor.wrap if monitor is not None else (lambda e: e)
    return Pipeline([("select", wrap(SelectKBest(f_classif, k=k))), ("scale", wrap(StandardScaler())),
                     ("clf", LogisticRegression(max_iter=1000))])


@dataclass
class Experiment:
    """What the shim acts on: the pipeline that is cross-validated and the rows/labels it gets."""

    pipeline: object
    X: np.ndarray
    y: np.ndarray


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        k, folds, repeats = int(p.get("k", 10)), int(p.get("folds", 5)), int(p.get("repeats", 6))
        x, y_null, _ = wide_table(ctx.seed, int(p.get("rows", 80)), int(p.get("columns", 2000)))
        monitor = LeakageMonitor()
        experiment = Experiment(monitor.wrap(pipeline(k, monitor)), x, y_null)
        reference = pipeline(k)
        ctx.attach(experiment)

        accuracy = ctx.evidence.gauge("faultlib_cv_accuracy", "mean cross-validated accuracy of the repeat")
        optimism = ctx.evidence.gauge("faultlib_cv_optimism", "experiment minus reference CV accuracy")
        folds_total = ctx.evidence.counter("faultlib_cv_folds_total", "cross-validation folds scored")
        findings_total = ctx.evidence.counter("faultlib_leakage_findings_total", "leakage findings by kind")
        for kind in ("fit_before_split", "fit_on_test"):
            findings_total.add(0, kind=kind)  # each series from the start: a clean run reads 0, not "no data"
        leaked_rows = ctx.evidence.counter("faultlib_leaked_rows_total",
                                           "held-out rows scored that a fitted step had seen")
        scores = {"experiment": [], "reference": []}
        for step in range(repeats):
            with ctx.step(step, total=repeats, name="cv.repeat") as span:
                cv = StratifiedKFold(folds, shuffle=True, random_state=ctx.seed + step)
                exp = float(cross_val_score(experiment.pipeline, experiment.X, experiment.y, cv=cv).mean())
                ref = float(cross_val_score(reference, x, y_null, cv=cv).mean())
                found = monitor.findings()
                for finding in found:  # the step in the location here: ctx.report keeps the finding whole
                    ctx.report(replace(finding, location={**finding.location, "step": step}))
                    findings_total.add(1, kind=finding.kind)
                findings_total.add(0, kind="none")
                leaked = sum(f.evidence["overlapping_rows"] for f in found)
                leaked_rows.add(leaked)
                folds_total.add(folds)
                accuracy.set(exp, pipeline="experiment")
                accuracy.set(ref, pipeline="reference")
                optimism.set(exp - ref)
                scores["experiment"].append(exp)
                scores["reference"].append(ref)
                span.set(accuracy_experiment=exp, accuracy_reference=ref, optimism=exp - ref,
                         leak_findings=len(found), leak_kinds=",".join(sorted({f.kind for f in found})),
                         leaked_rows=leaked, evaluations=monitor.evaluations,
                         hoisted=experiment.X.shape[1] != x.shape[1])
                monitor.reset()  # before the next repeat's fault point, which may fit (and record) again
        print("experiment", [round(s, 3) for s in scores["experiment"]])
        print("reference ", [round(s, 3) for s in scores["reference"]])
        ctx.summary(repeats=repeats, rows=x.shape[0], columns=x.shape[1], k=k,
                    mean_experiment=float(np.mean(scores["experiment"])),
                    mean_reference=float(np.mean(scores["reference"])))


if __name__ == "__main__":
    main()
