"""Feature configs as data: read one (YAML or JSON, any common shape) and say how wide each feature encodes.

A feature pipeline is usually driven by a config file: bins, fill values, windows, vocabularies,
scaler parameters, and the order of the features. :func:`load_feature_config` reads one through
:mod:`faultlib.readers` (bounded, no symlinks, no duplicate keys; ``.inf``/``.nan`` and JSON's ``Infinity``/``NaN``
are values here: an open-ended last bin edge, an imputer's ``missing_values``) in any of these shapes:

* a list of features: ``- {name: age, bins: [...]}`` (also a bare name, or ``- age: {bins: [...]}``);
* a document ``{features: [...] | {name: spec}, ...other settings}`` (also ``feature_columns``, ``inputs``);
* a plain mapping ``{name: spec}``.

Every key keeps the line it is on (YAML; JSON too when PyYAML reads it to the same data).
:mod:`faultlib.detect.serving.features.diff` compares two of them.

Features are identified by name; their order is the order of the encoded vector (a pipeline that
iterates over the loaded config, in list or mapping form, encodes them in file order: Python's
``dict``, ``yaml.safe_load`` and ``json.load`` keep it).

Encoded width (:func:`encoded_width`): ``width``/``dim`` when given; one-hot features count their
vocabulary (plus ``num_oov_buckets``) or their buckets (``bins`` are the inner edges, as in
``numpy.digitize`` and Keras ``Discretization(bin_boundaries=...)``: n edges make n + 1 buckets;
``n_bins`` counts buckets); ordinal and numeric features are 1 wide; anything else is unknown and
makes the total unknown (``None``, ``null`` in JSON).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from faultlib.errors import InputError
from faultlib.readers.files import Limits, MiB, decode_text, read_bytes
from faultlib.readers.jsondoc import load_json
from faultlib.readers.yamldoc import PositionedYaml, dotted, load_yaml

#: a feature pipeline's config can name tens of thousands of features (each a few nodes)
CONFIG_LIMITS = Limits(max_bytes=64 * MiB, max_depth=64, max_nodes=5_000_000)

FEATURE_LIST_KEYS = ("features", "feature_columns", "inputs")
#: the keys that hold a feature's bin edges
BIN_KEYS = ("bins", "bin_edges", "edges", "boundaries", "bin_boundaries", "splits", "cutpoints")
_ONE_HOT = {"onehot", "one_hot", "one-hot", "onehot_dense", "dummy", "indicator", "multi_hot"}
_SINGLE = {"ordinal", "index", "integer", "label", "int", "bucket_id", "none", "raw"}
_CATEGORICAL_TYPES = {"categorical", "category", "bucketized", "bucketize", "binned", "bins", "discretized",
                      "string", "enum"}
_NUMERIC_TYPES = {"numeric", "number", "float", "double", "int", "integer", "continuous", "real", "numerical"}


@dataclass(frozen=True)
class Feature:
    """One feature of a config.

    Attributes:
        name: its name (the identity across versions).
        spec: its definition without the name (JSON values).
        position: its index in the feature list (0-based).
        key: its key path in the document (``("features", 3)`` or ``("age",)``).
    """

    name: str
    spec: dict[str, Any]
    position: int
    key: tuple


@dataclass(frozen=True)
class FeatureConfig:
    """One side's feature config, parsed.

    Attributes:
        path: the file it was read from (``"<config>"`` when built in code).
        format: ``yaml``, ``json`` or ``data``.
        form: ``list`` (a list of features), ``mapping`` (``{name: spec}``) or ``document``
            (``{features: ..., other settings}``).
        features: in encoded order.
        settings: top-level keys other than the feature list (``document`` form), else ``{}``.
        text: the file's text (``None`` when built in code).
    """

    path: str
    format: str
    form: str
    features: tuple[Feature, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    _doc: PositionedYaml | None = field(default=None, repr=False, compare=False)

    def line_of(self, key: Sequence[Any]) -> int | None:
        """1-based line of a key path (its deepest existing parent), or ``None`` (JSON PyYAML cannot read)."""
        return self._doc.line_of(tuple(key)) if self._doc is not None else None

    def names(self) -> list[str]:
        return [f.name for f in self.features]

    def by_name(self) -> dict[str, Feature]:
        return {f.name: f for f in self.features}

    def canonical(self) -> dict[str, Any]:
        """``{"features": [{"name": ..., **spec}, ...], **settings}``: the form
        :func:`faultlib.detect.serving.features.attribution.apply_changes` returns."""
        return {"features": [{"name": f.name, **copy.deepcopy(f.spec)} for f in self.features],
                **copy.deepcopy(self.settings)}


def _fail(message: str, path: str, doc: PositionedYaml | None, key: tuple) -> InputError:
    return InputError(message, path=path, line=doc.line_of(key) if doc else None,
                      field=dotted(list(key)) if key else None)


def _check_edges(spec: dict, path: str, doc: PositionedYaml | None, key: tuple) -> None:
    """Refuse a NaN bin edge (edges are ordered numbers; ``±.inf`` close an open-ended bin and are kept)."""
    for name in BIN_KEYS:
        edges = spec.get(name)
        for i, edge in enumerate(edges if isinstance(edges, list) else []):
            if isinstance(edge, float) and edge != edge:
                raise _fail("a bin edge is NaN: edges are ordered numbers (.inf and -.inf close an open-ended bin)",
                            path, doc, key + (name, i))


def _features_of(items: Any, path: str, doc: PositionedYaml | None, base: tuple) -> list[Feature]:
    out: list[Feature] = []
    seen: dict[str, tuple] = {}
    if isinstance(items, list):
        for i, item in enumerate(items):
            key = base + (i,)
            if isinstance(item, str):
                name, spec = item, {}
            elif isinstance(item, dict) and isinstance(item.get("name"), str):
                name, spec = item["name"], {k: v for k, v in item.items() if k != "name"}
            elif isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())), dict):
                name, spec = next(iter(item.items()))
            else:
                raise _fail("a feature must be a mapping with a string 'name' (or a name, or {name: {...}}): "
                            f"found {type(item).__name__}", path, doc, key)
            if not name:
                raise _fail("a feature's name is empty", path, doc, key)
            if name in seen:
                raise _fail(f"feature {name!r} appears twice (also at {dotted(list(seen[name]))}): keep one",
                            path, doc, key)
            seen[name] = key
            _check_edges(spec, path, doc, key if isinstance(item, dict) and "name" in item else key + (name,))
            out.append(Feature(name, dict(spec), i, key))
    elif isinstance(items, dict):
        for i, (name, spec) in enumerate(items.items()):
            key = base + (name,)
            if not isinstance(spec, dict):
                raise _fail(f"feature {name!r} must map to its definition (a mapping), found {type(spec).__name__}",
                            path, doc, key)
            _check_edges(spec, path, doc, key)
            out.append(Feature(name, {k: v for k, v in spec.items() if k != "name"}, i, key))
    else:
        raise _fail(f"the feature list must be a list or a mapping, found {type(items).__name__}", path, doc, base)
    return out


def parse_feature_config(data: Any, *, path: str = "<config>", fmt: str = "data", text: str | None = None,
                         doc: PositionedYaml | None = None) -> FeatureConfig:
    """A :class:`FeatureConfig` from parsed data (see the module docstring for the accepted forms).

    Raises:
        InputError: not a feature config (a scalar, a feature without a name, a duplicate name, a
            definition that is not a mapping), with the line where the YAML reader gives it.
    """
    if isinstance(data, list):
        return FeatureConfig(path, fmt, "list", tuple(_features_of(data, path, doc, ())), {}, text, doc)
    if isinstance(data, dict):
        for key in FEATURE_LIST_KEYS:
            if key in data:
                settings = {k: v for k, v in data.items() if k != key}
                return FeatureConfig(path, fmt, "document", tuple(_features_of(data[key], path, doc, (key,))),
                                     settings, text, doc)
        if data and all(isinstance(v, dict) for v in data.values()):
            return FeatureConfig(path, fmt, "mapping", tuple(_features_of(data, path, doc, ())), {}, text, doc)
    raise InputError("not a feature config: expected a list of features, {features: [...]} or {name: {...}} "
                     f"(found {type(data).__name__ if not isinstance(data, dict) else 'a mapping of non-mappings'})",
                     path=path, line=1)


def load_feature_config(path: str | Path) -> FeatureConfig:
    """Read a feature config file: ``.json`` through the JSON reader, anything else as YAML.

    Both go through :mod:`faultlib.readers` (bounded size and depth, no symlinks, no duplicate keys; non-finite
    numbers are kept: ``bins: [0, 18, 65, .inf]`` is a config, not bad input; a NaN bin edge is refused). A JSON
    file also gets line numbers when PyYAML reads it to the same data.

    Raises:
        InputError: unreadable, not UTF-8, YAML/JSON that does not parse (with the line), or not a
            feature config (see :func:`parse_feature_config`).
    """
    path = str(path)
    raw = read_bytes(path, limits=CONFIG_LIMITS)
    text = decode_text(raw, path)
    if Path(path).suffix.lower() == ".json":
        data = load_json(raw, path, limits=CONFIG_LIMITS, nonfinite=True)
        try:  # YAML reads JSON's NaN/Infinity as strings: then the data differ and the lines are not used
            doc = load_yaml(text, path, limits=CONFIG_LIMITS, nonfinite=True)
            doc = doc if doc.data == data else None
        except InputError:
            doc = None
        return parse_feature_config(data, path=path, fmt="json", text=text, doc=doc)
    doc = load_yaml(text, path, limits=CONFIG_LIMITS, nonfinite=True)
    return parse_feature_config(doc.data, path=path, fmt="yaml", text=text, doc=doc)


# -- encoded width --------------------------------------------------------------------------------

def _first(spec: dict, keys: Sequence[str]) -> Any:
    for key in keys:
        if key in spec:
            return spec[key]
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def encoded_width(spec: dict[str, Any]) -> int | None:
    """How many columns a feature occupies in the encoded vector, or ``None`` when the config does
    not say (rules in the module docstring)."""
    explicit = _int(_first(spec, ("width", "dim", "dimension", "output_dim", "embedding_dim", "size")))
    if explicit is not None:
        return explicit
    encoding = _first(spec, ("encoding", "encode", "output", "output_mode"))
    encoding = encoding.lower() if isinstance(encoding, str) else None
    kind = _first(spec, ("type", "kind", "feature_type"))
    kind = kind.lower() if isinstance(kind, str) else None
    vocab = _first(spec, ("vocabulary", "vocab", "categories", "classes", "tokens", "levels"))
    bins = _first(spec, BIN_KEYS)
    n_bins = _int(_first(spec, ("n_bins", "num_bins")))
    hashed = _int(_first(spec, ("hash_buckets", "num_buckets")))
    if encoding in _SINGLE:
        return 1
    one_hot = encoding in _ONE_HOT or (encoding is None and (kind in _CATEGORICAL_TYPES or vocab is not None
                                                             or bins is not None or n_bins is not None))
    if one_hot:
        oov = _int(_first(spec, ("num_oov_buckets", "num_oov_indices", "oov_buckets"))) or 0
        if isinstance(vocab, list):
            return len(vocab) + oov
        if isinstance(bins, list):
            return len(bins) + 1
        if n_bins is not None:
            return n_bins
        if hashed is not None:
            return hashed + oov
        return None
    if encoding is None and (kind is None or kind in _NUMERIC_TYPES):
        return 1
    return None


def layout(config: FeatureConfig) -> tuple[list[dict[str, Any]], int | None]:
    """``([{name, position, offset, width}], total width)``; offsets and total are ``None`` after
    the first feature whose width is unknown."""
    rows, offset = [], 0
    for f in config.features:
        width = encoded_width(f.spec)
        rows.append({"name": f.name, "position": f.position, "offset": offset, "width": width})
        offset = None if offset is None or width is None else offset + width
    return rows, offset
