"""The feature pipeline of feature_config_diff: a config-driven encoder, as a feature repo would ship.

``encode(config, rows)`` turns raw columns into the model's input vector, feature by feature in the
config's order:

* ``fill_value`` replaces a missing value (NaN) first; a missing value without one is an error;
* ``bucketized``: ``numpy.digitize(x, bins)`` one-hot (``bins`` are the inner edges: n + 1 columns);
* ``categorical``: one-hot over ``vocabulary`` (an unknown value is all zeros);
* ``numeric``: ``transform: {kind: standard, mean, std}`` gives ``(x - mean) / std``, ``kind: log``
  gives ``log(x)``, none leaves ``x``.

The config is the canonical form (``{"features": [{"name", ...}], ...}``) or a plain list of features.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np


def features_of(config: Any) -> list[dict[str, Any]]:
    return list(config["features"] if isinstance(config, dict) else config)


def width(config: Any) -> int:
    total = 0
    for f in features_of(config):
        kind = f.get("type", "numeric")
        total += len(f["bins"]) + 1 if kind == "bucketized" else len(f["vocabulary"]) if kind == "categorical" else 1
    return total


def encode(config: Any, rows: Mapping[str, np.ndarray]) -> np.ndarray:
    """The encoded matrix, shape ``(n_rows, width(config))``, float64.

    Raises:
        KeyError: a feature's source column is not in ``rows``.
        ValueError: a missing value in a feature without ``fill_value``, or an unknown type.
    """
    columns = []
    for f in features_of(config):
        x = np.asarray(rows[f.get("source", f["name"])], dtype=np.float64)
        missing = np.isnan(x)
        if missing.any():
            if "fill_value" not in f:
                raise ValueError(f"feature {f['name']!r} has {int(missing.sum())} missing value(s) and no fill_value")
            x = np.where(missing, float(f["fill_value"]), x)
        kind = f.get("type", "numeric")
        if kind == "bucketized":
            bucket = np.digitize(x, np.asarray(f["bins"], dtype=np.float64))
            columns.append(np.eye(len(f["bins"]) + 1)[bucket])
        elif kind == "categorical":
            vocab = np.asarray(f["vocabulary"], dtype=np.float64)
            columns.append((x[:, None] == vocab[None, :]).astype(np.float64))
        elif kind == "numeric":
            transform = f.get("transform") or {}
            if transform.get("kind") == "standard":
                x = (x - float(transform["mean"])) / float(transform["std"])
            elif transform.get("kind") == "log":
                x = np.log(x)
            columns.append(x[:, None])
        else:
            raise ValueError(f"feature {f['name']!r}: unknown type {kind!r}")
    return np.hstack(columns)
