"""What a feature-config change does to a model's predictions: which rows move, and because of which change.

:func:`apply_changes` builds the training config with only some of the changes of a
:class:`~faultlib.detect.serving.features.diff.FeatureConfigDiff` applied; :func:`attribute_predictions`
predicts with the training config, the serving config and each change on its own, and names the
change(s) behind every prediction that differs (``predictions_changed``). The model and the rows
are the caller's: ``predict(config) -> predictions`` encodes its rows with the config it is given.

Cost: ``len(diff.groups()) + 2`` calls of ``predict``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from faultlib.detect.serving.features.diff import DETECTOR, SEVERITY, FeatureConfigDiff
from faultlib.errors import DetectorError
from faultlib.findings import Finding


def _set(target: dict, path: Sequence[Any], value: Any, *, remove: bool) -> None:
    for part in path[:-1]:
        child = target.get(part)
        if not isinstance(child, dict):
            child = target[part] = {}
        target = child
    if remove:
        target.pop(path[-1], None)
    else:
        target[path[-1]] = copy.deepcopy(value)


def apply_changes(diff: FeatureConfigDiff, groups: Sequence[str]) -> dict[str, Any]:
    """The training config with only the changes ``groups`` applied, in canonical form
    (``{"features": [{"name", ...}], **settings}``, see :meth:`FeatureConfig.canonical`).

    ``apply_changes(diff, [])`` is the training config; ``apply_changes(diff, diff.groups())``
    equals the serving config.

    Args:
        diff: from :func:`diff_feature_configs`.
        groups: ids from :meth:`FeatureConfigDiff.groups`.

    Raises:
        DetectorError: an id that is not one of ``diff.groups()``.
    """
    known = diff.groups()
    unknown = [g for g in groups if g not in known]
    if unknown:
        raise DetectorError(f"unknown change group(s) {unknown}: choose from diff.groups() = {known}")
    chosen = set(groups)
    before = diff.before.by_name()
    back = {r["new"]: r["old"] for r in diff.renamed}
    if "layout" in chosen:
        specs = [(f.name, copy.deepcopy(before[back.get(f.name, f.name)].spec if back.get(f.name, f.name) in before
                                        else f.spec)) for f in diff.after.features]
    else:
        specs = [(f.name, copy.deepcopy(f.spec)) for f in diff.before.features]
    by_name = dict(specs)
    settings = copy.deepcopy(diff.before.settings)
    for change in diff.changes:
        if change.group not in chosen:
            continue
        target = settings if change.feature is None else by_name.get(change.feature)
        if target is not None:
            _set(target, change.path, change.new, remove=change.change == "removed")
    return {"features": [{"name": name, **spec} for name, spec in specs], **settings}


@dataclass(frozen=True)
class Attribution:
    """Which predictions the serving config changes, and which change moves each.

    Attributes:
        rows: how many rows were predicted.
        changed: indices of rows whose prediction with the serving config differs from training's.
        by_group: ``{group: [rows]}``: rows whose prediction moves when only that change is applied.
        causes: ``{row: [groups]}`` for every changed row; ``["combined"]`` when no single change
            moves it on its own (only changes together do).
        errors: ``{group: "Type: message"}`` for variants ``predict`` could not score (a layout
            change that alters the width, say).
        finding: a ``predictions_changed`` finding when any row changed, else ``None``.
    """

    rows: int
    changed: list[int]
    by_group: dict[str, list[int]]
    causes: dict[int, list[str]]
    errors: dict[str, str]
    finding: Finding | None

    def fields(self) -> dict[str, Any]:
        return {"rows": self.rows, "changed": len(self.changed), "changed_rows": self.changed,
                "by_change": {g: len(r) for g, r in self.by_group.items()},
                "rows_by_change": self.by_group, "causes": {str(k): v for k, v in self.causes.items()},
                "errors": self.errors}


def _as_list(values: Any) -> list[Any]:
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _differs(a: Any, b: Any, tolerance: float) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) > tolerance
    return a != b


def attribute_predictions(diff: FeatureConfigDiff, predict: Callable[[dict[str, Any]], Any], *,
                          tolerance: float = 0.0) -> Attribution:
    """Explain a difference in model outputs by the config changes behind it.

    ``predict`` encodes a fixed set of rows with the config it is given (canonical form, see
    :func:`apply_changes`) and returns one prediction per row. It is called ``len(diff.groups()) + 2``
    times: training config, serving config, and the training config with each change alone.

    Args:
        diff: from :func:`diff_feature_configs`.
        predict: ``config -> predictions`` (a list or array, one per row, same rows every call).
        tolerance: numbers closer than this are the same prediction (0: exact; for class labels).

    Returns:
        An :class:`Attribution`.

    Raises:
        DetectorError: ``predict`` returned a different number of rows for the serving config, or
            failed on the training or the serving config (the message says which).
    """
    def run(config: dict[str, Any], what: str) -> list[Any]:
        try:
            return _as_list(predict(config))
        except Exception as exc:  # the user's callback: report, do not hide
            raise DetectorError(f"predict failed on the {what} config: {type(exc).__name__}: {exc}") from exc

    reference = run(apply_changes(diff, []), "training")
    served = run(apply_changes(diff, diff.groups()), "serving")
    if len(served) != len(reference):
        raise DetectorError(f"predict returned {len(served)} rows for the serving config, "
                            f"{len(reference)} for the training config")
    changed = [i for i, (a, b) in enumerate(zip(reference, served)) if _differs(a, b, tolerance)]
    by_group: dict[str, list[int]] = {}
    errors: dict[str, str] = {}
    for group in diff.groups():
        try:
            variant = _as_list(predict(apply_changes(diff, [group])))
        except Exception as exc:  # a variant that cannot be scored on its own (a width change)
            errors[group] = f"{type(exc).__name__}: {exc}"
            continue
        by_group[group] = [i for i, (a, b) in enumerate(zip(reference, variant)) if _differs(a, b, tolerance)]
    causes = {i: [g for g, rows in by_group.items() if i in set(rows)] or ["combined"] for i in changed}
    finding = None
    if changed:
        counts = ", ".join(f"{g}: {len(r)}" for g, r in by_group.items() if r)
        finding = Finding(DETECTOR, SEVERITY["predictions_changed"],
                          f"{len(changed)} of {len(reference)} predictions differ from the training config's"
                          + (f" (moved by each change alone: {counts})" if counts else ""),
                          {"file": diff.after.path},
                          {"rows": len(reference), "changed": len(changed),
                           "by_change": {g: len(r) for g, r in by_group.items()}, "errors": errors},
                          kind="predictions_changed")
    return Attribution(len(reference), changed, by_group, causes, errors, finding)
