"""Label mapping drift: the class order a model was trained with versus the one serving decodes with.

A classifier outputs an index; serving turns it into a label with a list or dict that usually lives
in another file (an exported ``id2label``, a ``class_names`` list in a serving config, a text file of
labels). When that list is regenerated in another order (``sorted(set(labels))``, a
``LabelEncoder`` that sorts, a dict serialised by label), every index still decodes to *a* label,
so nothing crashes, and accuracy silently collapses. This module reads both sides, compares them
by index and by name, and says what moved:

* :func:`load_label_map` reads one side: a JSON/YAML list, an ``id2label`` or ``label2id`` dict
  (keys in any order, string or int), a text file with one label per line, or a key path inside a
  larger file (``serving.yaml#postprocess.class_names``);
* :func:`compare_label_maps` returns a :class:`LabelMapReport`: labels missing or extra in serving,
  the indices whose label differs, and the permutation ``training index -> serving index``, as
  :class:`~faultlib.findings.Finding` objects of the kinds in :data:`KINDS`;
* :func:`decode_accuracy` scores predictions (``true_label``, ``predicted_index``) decoded with each map.

Labels are compared as strings (an int label ``3`` equals ``"3"``): a YAML list written by hand and
a JSON dict written by a tokenizer spell the same label differently often enough that the type is
noise. Two maps equal index by index are healthy whatever order their file lists them in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from faultlib.errors import InputError
from faultlib.findings import Finding, Severity
from faultlib.detect.data.label_maps import LabelMap, label_map, parse_index, parse_label

DETECTOR = "labels"
KINDS = {
    "permutation": "serving has the training labels in another order: indices decode to the wrong label",
    "mismatched_indices": "some indices decode to a different label in serving (an insertion, removal or rename "
                          "shifted them)",
    "missing_in_serving": "a training label has no index in serving: predictions of that class cannot be named",
    "extra_in_serving": "serving names a label the model was never trained on",
    "label_renamed": "a training label appears in serving spelt differently (case, spaces, '-' or '_')",
    "index_gap": "a map's indices are not 0..n-1 (a gap or an offset)",
    "accuracy_drop": "predictions decoded with the serving map are less accurate than with the training map",
    "missing_predictions": "prediction rows without a true label or predicted index (empty, NaN, inf): left out "
                           "of the accuracy",
}
#: keys under which a larger document (a Hugging Face config.json, a serving config) keeps its labels,
#: tried in this order when a file is given without ``#key.path``


@dataclass(frozen=True)
class IndexMismatch:
    """An index that decodes differently: ``train`` / ``serving`` is ``None`` where that side has no such index."""

    index: int
    train: str | None
    serving: str | None

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "train": self.train, "serving": self.serving}


@dataclass(frozen=True)
class DecodeAccuracy:
    """Accuracy of the same predictions decoded with each map.

    Attributes:
        training_mapping: fraction of rows whose ``predicted_index`` decodes, with the training map,
            to ``true_label`` (what the model really achieves).
        serving_mapping: the same with the serving map (what users of the service get).
        predictions: rows scored.
        undecodable: rows whose ``predicted_index`` has no label in the serving map (counted wrong).
    """

    training_mapping: float
    serving_mapping: float
    predictions: int
    undecodable: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"training_mapping": self.training_mapping, "serving_mapping": self.serving_mapping,
                "predictions": self.predictions, "undecodable": self.undecodable}


@dataclass(frozen=True)
class LabelMapReport:
    """What :func:`compare_label_maps` found.

    Attributes:
        train, serving: the two maps.
        missing: training labels absent from serving, in training index order.
        extra: serving labels absent from training, in serving index order.
        mismatched_indices: every index whose label differs between the two (or exists on one side only).
        permutation: ``{training index: serving index}`` for every label present on both sides.
        renamed: ``(training label, serving label)`` pairs equal once case, spaces, ``-`` and ``_`` are ignored.
        accuracy: predictions decoded with each map (``None`` without predictions).
        findings: one :class:`Finding` per problem, with a kind from :data:`KINDS`.
    """

    train: LabelMap
    serving: LabelMap
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    mismatched_indices: tuple[IndexMismatch, ...]
    permutation: dict[int, int]
    renamed: tuple[tuple[str, str], ...] = ()
    accuracy: DecodeAccuracy | None = None
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """True when no finding was raised (the maps decode every index identically)."""
        return not self.findings

    @property
    def is_permutation(self) -> bool:
        """Same labels, different order."""
        return not self.missing and not self.extra and bool(self.mismatched_indices)

    def fields(self) -> dict[str, Any]:
        """The JSON fields of ``faultlib check labels``."""
        return {
            "train_labels": self.train.ordered(), "serving_labels": self.serving.ordered(),
            "missing": list(self.missing), "extra": list(self.extra),
            "mismatched_indices": [m.to_json() for m in self.mismatched_indices],
            "permutation": {str(k): v for k, v in sorted(self.permutation.items())},
            "renamed": [{"train": a, "serving": b} for a, b in self.renamed],
            "accuracy": self.accuracy.to_json() if self.accuracy else None,
        }


# --------------------------------------------------------------------------- comparing


def _norm(label: str) -> str:
    return re.sub(r"[\s_\-]+", "", label.casefold())


def _gap_finding(side: str, m: LabelMap) -> Finding | None:
    indices = sorted(m.labels)
    if indices == list(range(len(indices))):
        return None
    present, holes = set(indices), []
    for i in range(indices[-1] + 1):  # the first 100 holes, not a set of every index up to the largest
        if i not in present:
            holes.append(i)
            if len(holes) > 100:
                break
    return Finding(DETECTOR, Severity.WARNING,
                   f"the {side} map's indices are not 0..{len(indices) - 1}: missing {holes[:10]}"
                   f"{' ...' if len(holes) > 10 else ''} (an offset or a removed class)",
                   m.location(), {"side": side, "missing_indices": holes[:100], "max_index": indices[-1]},
                   kind="index_gap")


def _preview(pairs: Iterable[IndexMismatch], limit: int = 3) -> str:
    shown = [f"index {m.index}: training {m.train!r}, serving {m.serving!r}" for m in list(pairs)[:limit]]
    return "; ".join(shown)


def compare_label_maps(train: Any, serving: Any, *, predictions: Any = None) -> LabelMapReport:
    """Compare the training map with the serving map, index by index and label by label.

    Args:
        train: the map the model was trained with: a :class:`LabelMap` or anything :func:`label_map` reads.
        serving: the map serving decodes with (same forms).
        predictions: optional ``(true_label, predicted_index)`` pairs (an iterable of pairs, or a
            mapping with those two keys holding equal-length sequences); see :func:`decode_accuracy`.

    Returns:
        A :class:`LabelMapReport`. Its findings (kinds in :data:`KINDS`): ``permutation`` (error) when
        both sides hold the same labels in another order; ``mismatched_indices`` (error) when indices
        decode differently and the label sets differ too; ``missing_in_serving`` (error),
        ``extra_in_serving`` (warning), ``label_renamed`` (warning), ``index_gap`` (warning), and
        with predictions ``accuracy_drop`` (error) when serving decodes fewer predictions correctly.
        Equal maps give no finding, whatever order their files list them in.

    Raises:
        InputError: a side is not a valid map; predictions that do not fit the training map.
    """
    train_map = label_map(train, source="<train>")
    serving_map = label_map(serving, source="<serving>")
    train_index, serving_index = train_map.index_of(), serving_map.index_of()
    missing = tuple(label for _, label in sorted(train_map.labels.items()) if label not in serving_index)
    extra = tuple(label for _, label in sorted(serving_map.labels.items()) if label not in train_index)
    mismatched = tuple(IndexMismatch(i, train_map.labels.get(i), serving_map.labels.get(i))
                       for i in sorted(set(train_map.labels) | set(serving_map.labels))
                       if train_map.labels.get(i) != serving_map.labels.get(i))
    permutation = {train_index[label]: serving_index[label] for label in train_index if label in serving_index}
    extra_by_norm = {_norm(label): label for label in extra}
    renamed = tuple((label, extra_by_norm[_norm(label)]) for label in missing if _norm(label) in extra_by_norm)
    renamed_train = {a for a, _ in renamed}
    renamed_serving = {b for _, b in renamed}

    where = serving_map.location()
    findings: list[Finding] = []
    for side, m in (("training", train_map), ("serving", serving_map)):
        gap = _gap_finding(side, m)
        if gap:
            findings.append(gap)
    moved = {t: s for t, s in permutation.items() if t != s}
    if mismatched and not missing and not extra:
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"serving holds the same {len(train_map.labels)} labels in another order: {len(mismatched)} of "
            f"{len(train_map.labels)} indices decode to the wrong label ({_preview(mismatched)}); decode with "
            "the training map, or remap serving index = permutation[training index]",
            where, {"permutation": {str(k): v for k, v in sorted(permutation.items())},
                    "moved": len(moved), "labels": len(train_map.labels),
                    "mismatched_indices": [m.to_json() for m in mismatched[:50]]}, kind="permutation"))
    elif mismatched:
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"{len(mismatched)} indices decode to a different label in serving ({_preview(mismatched)})",
            where, {"count": len(mismatched), "mismatched_indices": [m.to_json() for m in mismatched[:50]],
                    "moved": {str(k): v for k, v in sorted(moved.items())}}, kind="mismatched_indices"))
    for a, b in renamed:
        findings.append(Finding(DETECTOR, Severity.WARNING,
                                f"training label {a!r} appears in serving as {b!r} (spelt differently)",
                                {**where, "index": serving_index[b]}, {"train": a, "serving": b,
                                                                       "train_index": train_index[a]},
                                kind="label_renamed"))
    lost = [label for label in missing if label not in renamed_train]
    if lost:
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"{len(lost)} training label(s) missing in serving: {lost[:10]}{' ...' if len(lost) > 10 else ''}; "
            "the model still predicts them",
            where, {"labels": lost[:200], "count": len(lost),
                    "train_indices": [train_index[label] for label in lost[:200]]}, kind="missing_in_serving"))
    added = [label for label in extra if label not in renamed_serving]
    if added:
        findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"{len(added)} serving label(s) the model was not trained on: {added[:10]}{' ...' if len(added) > 10 else ''}",
            where, {"labels": added[:200], "count": len(added),
                    "serving_indices": [serving_index[label] for label in added[:200]]}, kind="extra_in_serving"))

    accuracy = None
    if predictions is not None:
        accuracy = decode_accuracy(train_map, serving_map, predictions)
        if accuracy.serving_mapping < accuracy.training_mapping:
            findings.append(Finding(
                DETECTOR, Severity.ERROR,
                f"accuracy {accuracy.serving_mapping:.4f} decoded with the serving map vs "
                f"{accuracy.training_mapping:.4f} with the training map over {accuracy.predictions} predictions: "
                "the model is fine, the label map is not",
                where, accuracy.to_json(), kind="accuracy_drop"))
    return LabelMapReport(train_map, serving_map, missing, extra, mismatched, permutation, renamed, accuracy,
                          tuple(findings))


def decode_accuracy(train: LabelMap, serving: LabelMap, predictions: Any, *, source: str | None = None
                    ) -> DecodeAccuracy:
    """Accuracy of the same predicted indices decoded with each map.

    Args:
        train, serving: the two maps.
        predictions: ``(true_label, predicted_index)`` pairs, or a mapping/DataFrame with columns
            ``true_label`` and ``predicted_index``.
        source: the predictions file, for messages.

    Returns:
        :class:`DecodeAccuracy`; accuracy is the fraction of rows in [0, 1].

    Raises:
        InputError: no rows, a ``predicted_index`` the training map has no label for, or a
            ``true_label`` that is not a training label (the predictions do not belong to this map).
    """
    if isinstance(predictions, Mapping) or hasattr(predictions, "columns"):
        pairs = list(zip(list(predictions["true_label"]), list(predictions["predicted_index"])))
    else:
        pairs = list(predictions)
    if not pairs:
        raise InputError("no predictions to score", path=source)
    train_labels = set(train.labels.values())
    right_train = right_serving = undecodable = 0
    for row, (truth, index) in enumerate(pairs):
        truth = parse_label(truth, f"true_label[{row}]", source)
        index = parse_index(index, f"predicted_index[{row}]", source)
        if index not in train.labels:
            raise InputError(f"predicted_index[{row}] = {index} has no label in the training map (indices "
                             f"{min(train.labels)}..{max(train.labels)}): these predictions do not come from "
                             "this model", path=source, field=f"predicted_index[{row}]")
        if truth not in train_labels:
            raise InputError(f"true_label[{row}] = {truth!r} is not a training label", path=source,
                             field=f"true_label[{row}]")
        right_train += train.labels[index] == truth
        decoded = serving.labels.get(index)
        undecodable += decoded is None
        right_serving += decoded == truth
    n = len(pairs)
    return DecodeAccuracy(right_train / n, right_serving / n, n, undecodable)
