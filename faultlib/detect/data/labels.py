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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

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
}
#: keys under which a larger document (a Hugging Face config.json, a serving config) keeps its labels,
#: tried in this order when a file is given without ``#key.path``
LABEL_KEYS = ("id2label", "label2id", "class_names", "classes", "labels", "names", "classes_")
TEXT_SUFFIXES = (".txt", ".labels", ".names", ".lst", ".list")
YAML_SUFFIXES = (".yaml", ".yml")
_INDEX = re.compile(r"[+-]?[0-9]+")
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@dataclass(frozen=True)
class LabelMap:
    """One side's mapping from output index to label.

    Attributes:
        labels: ``{index: label}``; indices are ints >= 0, labels non-empty strings, both unique.
        source: where it came from (``path`` or ``path#key.path``), for messages.
        form: ``list``, ``id2label``, ``label2id`` or ``text``.
        path: the file (``None`` for a map built in code).
        key: the key path inside the file (``None`` for the whole file).
    """

    labels: dict[int, str]
    source: str = "<labels>"
    form: str = "list"
    path: str | None = None
    key: str | None = None
    line: int | None = None

    def ordered(self) -> list[str | None]:
        """Labels by index from 0 to the largest index; ``None`` at a gap."""
        if not self.labels:
            return []
        return [self.labels.get(i) for i in range(max(self.labels) + 1)]

    def index_of(self) -> dict[str, int]:
        """``{label: index}``."""
        return {label: index for index, label in self.labels.items()}

    def location(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.path is not None:
            out["file"] = self.path
        if self.line is not None:
            out["line"] = self.line
        if self.key:
            out["key"] = self.key
        return out


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


# --------------------------------------------------------------------------- reading one side


def split_source(spec: str) -> tuple[str, str | None]:
    """``"serving.yaml#postprocess.class_names"`` -> ``("serving.yaml", "postprocess.class_names")``.

    A path that exists as given (even with ``#`` in its name) is taken whole; otherwise the text
    after the last ``#`` is the key path.
    """
    if "#" not in spec or Path(spec).exists():
        return spec, None
    path, key = spec.rsplit("#", 1)
    return path, key or None


def _parse_key_path(key: str, path: str) -> list[str | int]:
    parts: list[str | int] = []
    pos = 0
    for match in _SEGMENT.finditer(key):
        gap = key[pos:match.start()]
        if gap not in ("", "."):
            break
        parts.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        pos = match.end()
    if pos != len(key) or not parts:
        raise InputError(f"key path {key!r} is not a dotted path (a.b.c, a.list[0].b)", path=path, field=key)
    return parts


def resolve_key_path(doc: Any, key: str, path: str, line_of=None) -> Any:
    """The value at dotted ``key`` (``a.b``, ``a.list[0].b``, ``a.0.b``) inside a parsed document.

    Raises:
        InputError: a segment that does not exist (naming the keys or list length found there), with
            the line from ``line_of`` (a YAML document's :meth:`PositionedYaml.line_of`) when given.
    """
    here: Any = doc
    walked: list[str | int] = []
    for part in _parse_key_path(key, path):
        if isinstance(here, dict):
            step = str(part)
            if step not in here:
                keys = ", ".join(map(repr, list(here)[:20])) or "(none)"
                at = ".".join(map(str, walked)) or "the top level"
                raise InputError(f"key path {key!r}: no key {step!r} at {at}; keys there: {keys}", path=path,
                                 line=line_of(walked) if line_of else None, field=key)
            here = here[step]
        elif isinstance(here, list):
            index = part if isinstance(part, int) else (int(part) if _INDEX.fullmatch(str(part)) else None)
            if index is None or not 0 <= index < len(here):
                raise InputError(f"key path {key!r}: {part!r} is not an index of the list of {len(here)} items "
                                 f"at {'.'.join(map(str, walked)) or 'the top level'}", path=path,
                                 line=line_of(walked) if line_of else None, field=key)
            here = here[index]
        else:
            raise InputError(f"key path {key!r}: {'.'.join(map(str, walked))} is a {type(here).__name__}, "
                             "not a mapping or list", path=path, line=line_of(walked) if line_of else None, field=key)
        walked.append(part)
    return here


def _label(value: Any, where: str, path: str | None, line: int | None = None) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise InputError(f"{where}: label {value!r} is not a string or number", path=path, line=line, field=where)
    text = str(value)
    if not text.strip():
        raise InputError(f"{where}: empty label", path=path, line=line, field=where)
    return text


def _index(value: Any, where: str, path: str | None) -> int:
    if isinstance(value, bool):
        raise InputError(f"{where}: index {value!r} is not an integer", path=path, field=where)
    if isinstance(value, int):
        index = value
    elif isinstance(value, float) and value.is_integer():
        index = int(value)
    elif isinstance(value, str) and _INDEX.fullmatch(value.strip()):
        index = int(value.strip())
    else:
        raise InputError(f"{where}: index {value!r} is not an integer", path=path, field=where)
    if index < 0:
        raise InputError(f"{where}: index {index} is negative", path=path, field=where)
    return index


def _is_index(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and bool(_INDEX.fullmatch(value.strip())))


def label_map(value: Any, *, source: str = "<labels>", path: str | None = None, key: str | None = None,
              form_hint: str | None = None, line_of=None) -> LabelMap:
    """Build a :class:`LabelMap` from a parsed value.

    Args:
        value: a list of labels (index = position), an ``id2label`` dict (``{index: label}``, keys int
            or int-like strings), a ``label2id`` dict (``{label: index}``), or a document holding one
            of those under a key of :data:`LABEL_KEYS`, or an existing :class:`LabelMap`.
        source, path, key: for messages and finding locations.
        form_hint: ``id2label`` or ``label2id`` when the key the dict was found under says which it is.
        line_of: ``(key path parts) -> line`` for YAML documents, to put lines in errors.

    Returns:
        The map. A dict whose keys are all int-like and whose values are all int-like is read as
        ``id2label`` (the index is the key), unless ``form_hint`` says otherwise.

    Raises:
        InputError: an empty map, a label or index of the wrong type, a duplicate label or index,
            or a value that is not a list or dict (each naming the file and key).
    """
    if isinstance(value, LabelMap):
        return value
    where = key or "(root)"

    def line(parts: list) -> int | None:
        return line_of(parts) if line_of else None

    base = _parse_key_path(key, path or source) if key else []
    if isinstance(value, (list, tuple)):
        if not value:
            raise InputError(f"{where}: the label list is empty", path=path, field=key)
        labels: dict[int, str] = {}
        seen: dict[str, int] = {}
        for i, item in enumerate(value):
            text = _label(item, f"{where}[{i}]", path, line([*base, i]))
            if text in seen:
                raise InputError(f"{where}[{i}]: label {text!r} appears twice (also at index {seen[text]}): "
                                 "a label list must name each class once", path=path, line=line([*base, i]),
                                 field=f"{where}[{i}]")
            seen[text] = i
            labels[i] = text
        return LabelMap(labels, source, "list", path, key)
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a list of labels or an id2label/label2id mapping, found "
                         f"{type(value).__name__}", path=path, field=key)
    if not value:
        raise InputError(f"{where}: the label mapping is empty", path=path, field=key)
    if form_hint is None:
        for name in LABEL_KEYS:  # a larger document (config.json): use its label entry
            if name in value and isinstance(value[name], (list, dict)):
                sub = f"{key}.{name}" if key else name
                return label_map(value[name], source=f"{path or source}#{sub}", path=path, key=sub,
                                 form_hint=name if name in ("id2label", "label2id") else None, line_of=line_of)
    keys_are_indices = all(_is_index(k) for k in value)
    values_are_indices = all(_is_index(v) for v in value.values())
    form = form_hint if form_hint in ("id2label", "label2id") else (
        "id2label" if keys_are_indices else "label2id" if values_are_indices else None)
    if form is None:
        raise InputError(f"{where}: neither an id2label mapping (integer keys) nor a label2id mapping (integer "
                         f"values); first entry {next(iter(value.items()))!r}", path=path, line=line(base), field=key)
    labels = {}
    owner: dict[str, int] = {}
    for k, v in value.items():
        idx_raw, lab_raw = (k, v) if form == "id2label" else (v, k)
        entry = f"{where}.{k}"
        index = _index(idx_raw, entry, path)
        text = _label(lab_raw, entry, path, line([*base, k]))
        if index in labels:
            raise InputError(f"{entry}: index {index} is given to {labels[index]!r} and {text!r}", path=path,
                             line=line([*base, k]), field=entry)
        if text in owner:
            raise InputError(f"{entry}: label {text!r} has two indices ({owner[text]} and {index})", path=path,
                             line=line([*base, k]), field=entry)
        labels[index] = text
        owner[text] = index
    return LabelMap(dict(sorted(labels.items())), source, form, path, key)


def _text_labels(text: str, path: str) -> LabelMap:
    labels: dict[int, str] = {}
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        label = raw.strip()
        if not label:
            continue
        if label in seen:
            raise InputError(f"label {label!r} appears twice (also on line {seen[label]})", path=path, line=number)
        seen[label] = number
        labels[len(labels)] = label
    if not labels:
        raise InputError("has no labels: expected one label per line", path=path)
    return LabelMap(labels, path, "text", path, None)


def load_label_map(spec: str | Path) -> LabelMap:
    """Read one side of the comparison.

    Args:
        spec: ``FILE`` or ``FILE#dotted.key.path``. ``.json`` is JSON, ``.yaml``/``.yml`` YAML, and
            anything else (``.txt``, ``.labels``, no extension) one label per line (blank lines
            skipped). A key path selects a list or dict inside the document (``a.b``, ``a.list[0]``).
            A JSON/YAML document without a key path may itself be the map, or hold one under a key
            of :data:`LABEL_KEYS` (``id2label`` first, as in a Hugging Face ``config.json``).

    Returns:
        The :class:`LabelMap`.

    Raises:
        InputError: unreadable or empty file, invalid JSON/YAML, a key path that does not exist
            (with the keys that do), or a map that is not a valid list/dict of labels. Every file is
            read through :mod:`faultlib.readers` (bounded, UTF-8, no symlinks).
    """
    from faultlib.readers import load_json, load_yaml_file, read_bytes, read_text

    path, key = split_source(str(spec))
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        data = read_bytes(path)
        if not data.strip():
            raise InputError("is empty: expected a JSON list or mapping of labels", path=path)
        doc, line_of = load_json(data, path), None
    elif suffix in YAML_SUFFIXES:
        positioned = load_yaml_file(path, int_keys=True)  # id2label: {0: cat} is common
        doc, line_of = positioned.data, positioned.line_of
        if doc is None:
            raise InputError("is empty: expected a YAML list or mapping of labels", path=path)
    else:
        if key:
            raise InputError(f"a key path (#{key}) needs a JSON or YAML file; {Path(path).name} is read as text, "
                             "one label per line", path=path, field=key)
        return _text_labels(read_text(path), path)
    if key:
        doc = resolve_key_path(doc, key, path, line_of)
        hint = str(_parse_key_path(key, path)[-1])
        found = label_map(doc, source=f"{path}#{key}", path=path, key=key,
                          form_hint=hint if hint in ("id2label", "label2id") else None, line_of=line_of)
    else:
        found = label_map(doc, source=path, path=path, line_of=line_of)
    if line_of is not None and found.key:
        found = replace(found, line=line_of(_parse_key_path(found.key, path)))
    return found


# --------------------------------------------------------------------------- comparing


def _norm(label: str) -> str:
    return re.sub(r"[\s_\-]+", "", label.casefold())


def _gap_finding(side: str, m: LabelMap) -> Finding | None:
    indices = sorted(m.labels)
    if indices == list(range(len(indices))):
        return None
    holes = sorted(set(range(indices[-1] + 1)) - set(indices))
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
        truth = _label(truth, f"true_label[{row}]", source)
        index = _index(index, f"predicted_index[{row}]", source)
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
