"""Feature-config skew: what changed, semantically, between the feature config a model was trained
with and the one serving encodes with (``faultlib check features V1 V2``).

When serving's copy of a feature config drifts from training's, nothing fails: every request is still
encoded into a vector, and the model silently answers something else. A text diff is no help either:
re-serialising the same config (another key order, quoting, flow style, comments) changes every line
and nothing that matters. :func:`diff_feature_configs` compares two
:class:`~faultlib.detect.serving.features.config.FeatureConfig` objects as data and returns a
:class:`FeatureConfigDiff`: features ``added``, ``removed``, ``renamed`` and moved (``order_changed``),
every ``changed`` value with its key path and line, the encoded width and the features whose encoded
position shifted, and :class:`~faultlib.findings.Finding` objects of the kinds in :data:`KINDS`.
:mod:`faultlib.detect.serving.features.attribution` then says which predictions each change moves.

Semantics, and why:

- Features are identified by name, and their order is the encoded order: adding, removing or moving
  a feature shifts the encoded position of every feature after it (``positions_shifted``).
- Key order inside a feature, quoting, flow vs block style and comments are presentation: the files
  are compared after parsing, and ``1`` equals ``1.0``. A quoted number (``"35"``) is a string and
  differs from ``35``: a pipeline would read another type.
- Lists are values: a vocabulary or bin-edge list is reported whole (old and new), with the tokens
  or edges that differ in the finding's evidence; list order counts (one-hot positions, bucket ids).
- A change is classified by the key names on its path, a specific key (``bins``, ``fill_value``,
  ``window``, ``vocabulary``, ``source``) winning over a container (``transform``, ``params``): see
  :data:`CATEGORIES` and :func:`classify`. A change that alters a feature's encoded width is an error.
- Severities (:data:`SEVERITY`): a layout change (added, removed, moved, shifted, width) and a
  vocabulary, type or source change are errors, because the model reads other columns or values;
  moved bin edges, fill values, windows and transformer parameters are warnings (the vector keeps
  its shape, values move); descriptive metadata (``version``, ``owner``) is info.
"""

from __future__ import annotations

import json

from dataclasses import dataclass
from typing import Any, Sequence

from faultlib.detect.serving.features.config import FeatureConfig, encoded_width, layout
from faultlib.errors import require
from faultlib.findings import Finding, Severity
from faultlib.readers.yamldoc import dotted

DETECTOR = "features"
KINDS = {
    "feature_added": "serving encodes a feature training did not have (every position after it shifts)",
    "feature_removed": "a training feature is missing in serving (every position after it shifts)",
    "feature_renamed": "a feature has another name in serving but the same definition at the same place",
    "order_changed": "features present on both sides are encoded in another order",
    "positions_shifted": "features that did not change themselves now sit at other encoded positions",
    "encoded_width_changed": "the encoded vector has another width (one-hot vocabularies, buckets, features)",
    "bin_edges_changed": "bin edges / boundaries / bucket count of a feature differ",
    "fill_value_changed": "the fill or imputation value (or imputation strategy) for missing values differs",
    "window_changed": "an aggregation window's length, offset, lag or horizon differs",
    "vocabulary_changed": "a categorical vocabulary differs (tokens added, removed or reordered)",
    "transformer_changed": "a transformer's parameters differ (scaler mean/std, clipping, encoding, log...)",
    "dtype_changed": "a feature's declared type differs",
    "source_changed": "a feature is computed from another column or expression",
    "parameter_changed": "another key of a feature's definition differs",
    "config_changed": "a setting outside the feature list differs",
    "metadata_changed": "only descriptive metadata differs (version, owner, description...)",
    "predictions_changed": "(attribute_predictions) predictions with the serving config differ from training's; "
                           "the evidence names the change behind each",
}
#: kind -> key names that classify a change, most specific first; ``transformer_changed`` is also the
#: fallback for changes under a container named in ``CONTAINERS``
CATEGORIES: dict[str, frozenset[str]] = {
    "bin_edges_changed": frozenset({"bins", "bin_edges", "edges", "boundaries", "bin_boundaries", "buckets", "splits",
                                    "quantiles", "thresholds", "n_bins", "num_bins", "cutpoints"}),
    "fill_value_changed": frozenset({"fill_value", "fill", "fillna", "default", "default_value", "missing_value",
                                     "impute", "imputation", "imputer", "impute_value", "impute_strategy",
                                     "na_value", "null_value", "replace_missing", "missing"}),
    "window_changed": frozenset({"window", "window_length", "window_size", "window_days", "window_hours",
                                 "window_minutes", "lookback", "look_back", "horizon", "offset", "window_offset",
                                 "lag", "lags", "shift", "delay", "period", "stride", "aggregation_window", "ttl"}),
    "vocabulary_changed": frozenset({"vocabulary", "vocab", "categories", "classes", "tokens", "levels",
                                     "num_oov_buckets", "num_oov_indices", "oov_buckets", "hash_buckets",
                                     "num_buckets"}),
    "source_changed": frozenset({"source", "column", "input", "input_column", "field", "expression", "expr", "sql",
                                 "query"}),
}
CONTAINERS = frozenset({"transform", "transformer", "transforms", "scaler", "scaling", "normalizer", "normalize",
                        "normalization", "mean", "std", "stddev", "var", "variance", "scale", "center", "min", "max",
                        "clip", "clip_min", "clip_max", "log", "log1p", "power", "with_mean", "with_std", "encoder",
                        "encoding", "encode", "handle_unknown", "params", "parameters", "quantile_range", "epsilon"})
TYPE_KEYS = frozenset({"type", "dtype", "kind", "feature_type", "value_type"})
METADATA_KEYS = frozenset({"version", "name", "description", "owner", "owners", "created", "updated", "created_at",
                           "updated_at", "comment", "comments", "notes", "doc", "docs", "metadata", "author", "tags",
                           "team", "contact", "title"})
SEVERITY = {"feature_added": Severity.ERROR, "feature_removed": Severity.ERROR, "feature_renamed": Severity.WARNING,
            "order_changed": Severity.ERROR, "positions_shifted": Severity.ERROR,
            "encoded_width_changed": Severity.ERROR, "bin_edges_changed": Severity.WARNING,
            "fill_value_changed": Severity.WARNING, "window_changed": Severity.WARNING,
            "vocabulary_changed": Severity.ERROR, "transformer_changed": Severity.WARNING,
            "dtype_changed": Severity.ERROR, "source_changed": Severity.ERROR, "parameter_changed": Severity.WARNING,
            "config_changed": Severity.WARNING, "metadata_changed": Severity.INFO,
            "predictions_changed": Severity.ERROR}


def classify(path: Sequence[Any], *, in_feature: bool = True) -> str:
    """The kind of a change at ``path`` (key names inside one feature, or top-level settings)."""
    names = [p.lower() for p in path if isinstance(p, str)]
    for name in names:
        for kind, keys in CATEGORIES.items():
            if name in keys:
                return kind
    if in_feature and names and path and isinstance(path[0], str) and names[0] in TYPE_KEYS:
        return "dtype_changed"
    if any(name in CONTAINERS for name in names):
        return "transformer_changed"
    if not in_feature:
        return "metadata_changed" if names and names[0] in METADATA_KEYS else "config_changed"
    return "parameter_changed"


def _canonical(value: Any) -> str | None:
    """JSON text with sorted keys: equal texts mean equal values (``1`` vs ``1.0`` differ here, so DeepDiff
    decides those); None when the value is not JSON."""
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None


def _value_paths(old: Any, new: Any) -> list[tuple[tuple, str]]:
    """Paths whose values differ, each cut at the first list on its way (lists are whole values),
    with ``modified``/``added``/``removed``; numbers compare by value (``1 == 1.0``)."""
    same = _canonical(old)
    if same is not None and same == _canonical(new):  # the common case, 100x cheaper than a DeepDiff
        return []
    deepdiff = require("deepdiff", "features")
    from deepdiff.helper import notpresent

    diff = deepdiff.DeepDiff(old, new, ignore_numeric_type_changes=True, ignore_nan_inequality=True, view="tree",
                             verbose_level=2)
    out: dict[tuple, str] = {}
    for _report, levels in diff.items():
        for level in levels:
            full = level.path(output_format="list")
            cut: list[Any] = []
            a, b = old, new
            for part in full:
                if isinstance(a, list) or isinstance(b, list):
                    break
                cut.append(part)
                a = a.get(part, notpresent) if isinstance(a, dict) else notpresent
                b = b.get(part, notpresent) if isinstance(b, dict) else notpresent
            change = "added" if a is notpresent else "removed" if b is notpresent else "modified"
            key = tuple(cut)
            out[key] = change if out.get(key, change) == change else "modified"
    return sorted(out.items(), key=lambda item: [str(p) for p in item[0]])


def _get(data: Any, path: Sequence[Any]) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _lcs(a: list[str], b: list[str]) -> set[str]:
    """Names on a longest common subsequence of ``a`` and ``b`` (the ones that did not move).

    Feature names are unique on each side, so this is the longest increasing subsequence of the positions
    ``a``'s names have in ``b`` (patience sorting, O(n log n): 40,000 features take milliseconds, where the
    dynamic-programming table took minutes). Ties keep the earliest run of features, as the table did.
    """
    import bisect

    where = {name: j for j, name in enumerate(b)}
    positions = [(where[name], name) for name in a if name in where]
    tails: list[int] = []          # tails[k]: smallest last position of an increasing run of length k + 1
    tail_index: list[int] = []     # index into ``positions`` of that run's last element
    previous = [-1] * len(positions)
    for index, (pos, _) in enumerate(positions):
        k = bisect.bisect_left(tails, pos)
        if k == len(tails):
            tails.append(pos)
            tail_index.append(index)
        else:
            tails[k] = pos
            tail_index[k] = index
        previous[index] = tail_index[k - 1] if k else -1
    keep: set[str] = set()
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        keep.add(positions[index][1])
        index = previous[index]
    return keep


@dataclass(frozen=True)
class Change:
    """One value that differs inside a feature's definition (or in the top-level settings).

    Attributes:
        feature: the feature's name (``None`` for a top-level setting).
        key: the key path inside the feature's definition, dotted (``bins``, ``transform.mean``).
        path: the same as a tuple.
        kind: the kind from :data:`KINDS` (see :func:`classify`).
        change: ``modified``, ``added`` (the key is new in serving) or ``removed``.
        old, new: the values (``None`` when absent); lists whole.
        doc_key: the key path in the serving document (``features[3].bins``).
        line: its line in the serving file (``None`` when unknown).
        position: the feature's position in serving.
    """

    feature: str | None
    key: str
    path: tuple
    kind: str
    change: str
    old: Any
    new: Any
    doc_key: str
    line: int | None
    position: int | None

    @property
    def group(self) -> str:
        """The id :func:`apply_changes` takes: ``feature.key``, or ``settings.key``."""
        return f"{self.feature if self.feature is not None else 'settings'}.{self.key}"

    def to_json(self) -> dict[str, Any]:
        return {"feature": self.feature, "key": self.key, "old": self.old, "new": self.new, "kind": self.kind,
                "change": self.change, "line": self.line, "position": self.position, "key_path": self.doc_key}


def _same_number(a: Any, b: Any) -> bool:
    """``a == b``, with NaN equal to NaN (a config's ``.nan`` written twice is no change)."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)


def _detail(kind: str, old: Any, new: Any) -> dict[str, Any]:
    """What a finding adds beyond old/new: moved bin edges, tokens added/removed."""
    if kind == "bin_edges_changed" and isinstance(old, list) and isinstance(new, list):
        detail: dict[str, Any] = {"old_buckets": len(old) + 1, "new_buckets": len(new) + 1}
        if len(old) == len(new):
            detail["moved_edges"] = [{"index": i, "old": a, "new": b}
                                     for i, (a, b) in enumerate(zip(old, new)) if not _same_number(a, b)]
        return detail
    if kind == "vocabulary_changed" and isinstance(old, list) and isinstance(new, list):
        old_set, new_set = {repr(v) for v in old}, {repr(v) for v in new}
        return {"added_tokens": [v for v in new if repr(v) not in old_set],
                "removed_tokens": [v for v in old if repr(v) not in new_set],
                "reordered": old_set == new_set and old != new, "old_size": len(old), "new_size": len(new)}
    return {}


def _short(value: Any, limit: int = 60) -> str:
    text = "absent" if value is None else repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass(frozen=True)
class FeatureConfigDiff:
    """What differs between two feature configs (training ``before``, serving ``after``).

    Attributes:
        before, after: the two configs.
        added: ``[{name, position, offset, width, line}]`` features only serving has (serving positions).
        removed: ``[{name, position, offset, width, line}]`` features only training has (training positions).
        renamed: ``[{old, new, position, line}]`` same definition, same position, another name.
        order_changed: ``[{name, old_position, new_position}]`` features on both sides that moved
            relative to the others (those off a longest common subsequence).
        changes: every :class:`Change` inside features present on both sides, and in the settings.
        shifted: ``[{name, old_position, new_position, old_offset, new_offset}]`` features that did not
            move themselves but sit at another position or encoded offset.
        width_before, width_after: encoded widths (``None`` when not computable).
        findings: one :class:`~faultlib.findings.Finding` per added, removed or renamed feature and per
            change, plus one each for ``order_changed``, ``positions_shifted`` and ``encoded_width_changed``.
    """

    before: FeatureConfig
    after: FeatureConfig
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]
    renamed: list[dict[str, Any]]
    order_changed: list[dict[str, Any]]
    changes: list[Change]
    shifted: list[dict[str, Any]]
    width_before: int | None
    width_after: int | None
    findings: tuple[Finding, ...]

    @property
    def equal(self) -> bool:
        """No semantic difference at all."""
        return not (self.added or self.removed or self.renamed or self.order_changed or self.changes)

    @property
    def presentation_only(self) -> bool:
        """The files differ as text but not as configs (key order, quoting, style, comments)."""
        return self.equal and self.before.text is not None and self.before.text != self.after.text

    def groups(self) -> list[str]:
        """Ids of the independent changes :func:`apply_changes` can apply: ``layout`` (features
        added, removed, renamed or moved, together) first, then each :attr:`Change.group`."""
        layout_changed = bool(self.added or self.removed or self.renamed or self.order_changed)
        return (["layout"] if layout_changed else []) + list(dict.fromkeys(c.group for c in self.changes))

    def fields(self) -> dict[str, Any]:
        """The JSON fields of ``faultlib check features``."""
        side = lambda c: {"path": c.path, "format": c.format, "form": c.form, "features": len(c.features)}  # noqa: E731
        return {"v1": side(self.before), "v2": side(self.after),
                "equal": self.equal, "presentation_only": self.presentation_only,
                "added": self.added, "removed": self.removed, "renamed": self.renamed,
                "changed": [c.to_json() for c in self.changes], "order_changed": self.order_changed,
                "shifted": self.shifted, "encoded_width": {"before": self.width_before, "after": self.width_after},
                "features_before": self.before.names(), "features_after": self.after.names()}


def _loc(config: FeatureConfig, key: tuple, position: int | None = None) -> dict[str, Any]:
    loc: dict[str, Any] = {"file": config.path, "key": dotted(list(key))}
    line = config.line_of(key)
    if line is not None:
        loc["line"] = line
    if position is not None:
        loc["index"] = position
    return loc


def diff_feature_configs(before: FeatureConfig, after: FeatureConfig) -> FeatureConfigDiff:
    """Compare two feature configs semantically (see the module docstring).

    Args:
        before: the config the model was trained with (V1).
        after: the config serving encodes with (V2).

    Returns:
        A :class:`FeatureConfigDiff`; ``equal`` is True and ``findings`` empty when only the
        presentation differs.

    Raises:
        MissingDependency: deepdiff is not installed (``pip install 'faultlib-ml[features]'``).
    """
    old, new = before.by_name(), after.by_name()
    rows_before, width_before = layout(before)
    rows_after, width_after = layout(after)
    at_before, at_after = {r["name"]: r for r in rows_before}, {r["name"]: r for r in rows_after}
    added_names = [n for n in after.names() if n not in old]
    removed_names = [n for n in before.names() if n not in new]
    renamed = []
    for gone in list(removed_names):
        for came in added_names:
            if old[gone].position == new[came].position and old[gone].spec == new[came].spec:
                renamed.append({"old": gone, "new": came, "position": new[came].position,
                                "line": after.line_of(new[came].key)})
                removed_names.remove(gone)
                added_names.remove(came)
                break
    rename_of = {r["old"]: r["new"] for r in renamed}
    added = [{**{k: at_after[n][k] for k in ("name", "position", "offset", "width")},
              "line": after.line_of(new[n].key)} for n in added_names]
    removed = [{**{k: at_before[n][k] for k in ("name", "position", "offset", "width")},
                "line": before.line_of(old[n].key)} for n in removed_names]
    common_before = [rename_of.get(n, n) for n in before.names() if n not in removed_names]
    common_after = [n for n in after.names() if n not in added_names]
    still = _lcs(common_before, common_after)
    back = {v: k for k, v in rename_of.items()}
    order_changed = [{"name": n, "old_position": old[back.get(n, n)].position, "new_position": new[n].position}
                     for n in common_after if n not in still]
    shifted = []
    for n in common_after:
        was = at_before[back.get(n, n)]
        now = at_after[n]
        if n in still and (was["position"] != now["position"] or was["offset"] != now["offset"]):
            shifted.append({"name": n, "old_position": was["position"], "new_position": now["position"],
                            "old_offset": was["offset"], "new_offset": now["offset"]})

    changes: list[Change] = []
    for name in common_after:
        if name in back:
            continue  # renamed: same definition by construction
        f_old, f_new = old[name], new[name]
        for path, change in _value_paths(f_old.spec, f_new.spec):
            kind = classify(path)
            doc_key = f_new.key + path
            line = after.line_of(doc_key)
            changes.append(Change(name, dotted(list(path)), path, kind, change, _get(f_old.spec, path),
                                  _get(f_new.spec, path), dotted(list(doc_key)), line, f_new.position))
    for path, change in _value_paths(before.settings, after.settings):
        changes.append(Change(None, dotted(list(path)), path, classify(path, in_feature=False), change,
                              _get(before.settings, path), _get(after.settings, path), dotted(list(path)),
                              after.line_of(path), None))

    findings: list[Finding] = []
    for a in added:
        where = f" (encoded offset {a['offset']}, width {a['width']})" if a["offset"] is not None else ""
        findings.append(Finding(DETECTOR, SEVERITY["feature_added"],
                                f"feature {a['name']!r} added at position {a['position']}{where}: every feature "
                                "after it is encoded at another position",
                                _loc(after, new[a["name"]].key, a["position"]),
                                {k: a[k] for k in ("name", "position", "offset", "width")}, kind="feature_added"))
    for r in removed:
        findings.append(Finding(DETECTOR, SEVERITY["feature_removed"],
                                f"feature {r['name']!r} (training position {r['position']}) is missing in serving: "
                                "every feature after it is encoded at another position",
                                _loc(before, old[r["name"]].key, r["position"]),
                                {k: r[k] for k in ("name", "position", "offset", "width")}, kind="feature_removed"))
    for r in renamed:
        findings.append(Finding(DETECTOR, SEVERITY["feature_renamed"],
                                f"feature {r['old']!r} is called {r['new']!r} in serving (same definition, same "
                                "position): code that looks it up by name will miss it",
                                _loc(after, new[r["new"]].key, r["position"]), dict(r), kind="feature_renamed"))
    if order_changed:
        moved = ", ".join(f"{m['name']} {m['old_position']}->{m['new_position']}" for m in order_changed)
        findings.append(Finding(DETECTOR, SEVERITY["order_changed"],
                                f"{len(order_changed)} feature(s) moved: {moved}",
                                _loc(after, new[order_changed[0]["name"]].key, order_changed[0]["new_position"]),
                                {"moved": order_changed}, kind="order_changed"))
    if shifted:
        what = ", ".join(f"{s['name']} {s['old_offset'] if s['old_offset'] is not None else s['old_position']}->"
                         f"{s['new_offset'] if s['new_offset'] is not None else s['new_position']}" for s in shifted)
        unit = "encoded offset" if all(s["new_offset"] is not None for s in shifted) else "position"
        findings.append(Finding(DETECTOR, SEVERITY["positions_shifted"],
                                f"{len(shifted)} unchanged feature(s) now sit at another {unit}: {what}; a model "
                                "trained on the old layout reads them from the wrong columns",
                                _loc(after, new[shifted[0]["name"]].key, shifted[0]["new_position"]),
                                {"shifted": shifted}, kind="positions_shifted"))
    if width_before is not None and width_after is not None and width_before != width_after:
        findings.append(Finding(DETECTOR, SEVERITY["encoded_width_changed"],
                                f"the encoded vector is {width_after} wide in serving, {width_before} in training",
                                {"file": after.path}, {"before": width_before, "after": width_after},
                                kind="encoded_width_changed"))
    for c in changes:
        severity = SEVERITY[c.kind]
        evidence: dict[str, Any] = {"feature": c.feature, "key": c.key, "old": c.old, "new": c.new,
                                    "change": c.change, **_detail(c.kind, c.old, c.new)}
        if c.feature is not None:
            w_old, w_new = encoded_width(old[c.feature].spec), encoded_width(new[c.feature].spec)
            if w_old != w_new:
                severity = Severity.ERROR
                evidence.update(width_before=w_old, width_after=w_new)
        what = f"feature {c.feature!r}" if c.feature is not None else "setting"
        findings.append(Finding(DETECTOR, severity,
                                f"{what} {c.key}: {_short(c.old)} -> {_short(c.new)} ({c.kind.replace('_', ' ')})",
                                {**_loc(after, tuple(c.path) if c.feature is None else new[c.feature].key + c.path,
                                        c.position), "key": c.doc_key}, evidence, kind=c.kind))
    return FeatureConfigDiff(before, after, added, removed, renamed, order_changed, changes, shifted,
                             width_before, width_after, tuple(findings))
