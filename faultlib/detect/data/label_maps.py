"""One side of a label mapping, read from whatever file holds it: :class:`LabelMap`, :func:`load_label_map`.

A side is a JSON/YAML list, an ``id2label`` or ``label2id`` dict (keys in any order, string or int), a
text file with one label per line, or a key path inside a larger file
(``serving.yaml#postprocess.class_names``, :mod:`faultlib.readers.keypath`). Labels are kept as strings
(an int label ``3`` equals ``"3"``). :mod:`faultlib.detect.data.labels` compares two sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.readers.integers import decimal
from faultlib.readers.keypath import parse_key_path, resolve_key_path, split_source

LABEL_KEYS = ("id2label", "label2id", "class_names", "classes", "labels", "names", "classes_")
TEXT_SUFFIXES = (".txt", ".labels", ".names", ".lst", ".list")
YAML_SUFFIXES = (".yaml", ".yml")
_INDEX = re.compile(r"[+-]?[0-9]+")
#: largest class index read (2^22 - 1): above the largest output layers in use (LLM vocabularies, ~256k), below
#: what a dense 0..max list of labels (:meth:`LabelMap.ordered`) can hold; an id of 10^19 is not a class index
MAX_INDEX = (1 << 22) - 1


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


def parse_label(value: Any, where: str, path: str | None, line: int | None = None) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise InputError(f"{where}: label {value!r} is not a string or number", path=path, line=line, field=where)
    text = str(value)
    if not text.strip():
        raise InputError(f"{where}: empty label", path=path, line=line, field=where)
    return text


def parse_index(value: Any, where: str, path: str | None) -> int:
    if isinstance(value, bool):
        raise InputError(f"{where}: index {value!r} is not an integer", path=path, field=where)
    if isinstance(value, int):
        index = value
    elif isinstance(value, float) and value.is_integer():
        index = int(value)
    elif isinstance(value, str) and _INDEX.fullmatch(value.strip()):
        index = decimal(value)
        if index is None:
            raise InputError(f"{where}: index of {len(value.strip()):,} digits is larger than {MAX_INDEX:,}: a class "
                             "index counts the model's outputs from 0", path=path, field=where)
    else:
        raise InputError(f"{where}: index {value!r} is not an integer", path=path, field=where)
    if index < 0:
        raise InputError(f"{where}: index {index} is negative", path=path, field=where)
    if index > MAX_INDEX:
        raise InputError(f"{where}: index {index} is larger than {MAX_INDEX:,}: a class index counts the model's "
                         "outputs from 0 (is this an id or a hash, not an index?)", path=path, field=where)
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

    base = parse_key_path(key, path or source) if key else []
    if isinstance(value, (list, tuple)):
        if not value:
            raise InputError(f"{where}: the label list is empty", path=path, field=key)
        labels: dict[int, str] = {}
        seen: dict[str, int] = {}
        for i, item in enumerate(value):
            text = parse_label(item, f"{where}[{i}]", path, line([*base, i]))
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
        index = parse_index(idx_raw, entry, path)
        text = parse_label(lab_raw, entry, path, line([*base, k]))
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
        hint = str(parse_key_path(key, path)[-1])
        found = label_map(doc, source=f"{path}#{key}", path=path, key=key,
                          form_hint=hint if hint in ("id2label", "label2id") else None, line_of=line_of)
    else:
        found = label_map(doc, source=path, path=path, line_of=line_of)
    if line_of is not None and found.key:
        found = replace(found, line=line_of(parse_key_path(found.key, path)))
    return found
