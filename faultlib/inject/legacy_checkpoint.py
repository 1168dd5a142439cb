"""Checkpoint faults: the checkpoint's metadata saved as the Python objects training scripts saved before torch 2.6.

Until torch 2.6, ``torch.load`` unpickled anything by default, and training scripts saved whatever
was at hand next to the weights: the ``argparse.Namespace`` of hyper-parameters, the best metric as
the NumPy scalar scikit-learn or NumPy returned, a confusion matrix or class counts as NumPy arrays.
From torch 2.6 on, ``torch.load(path)`` defaults to ``weights_only=True`` and refuses those files.

A repro passes its checkpoint payload through the fault point ``checkpoint.save`` before saving it::

    state = through(ctx, "checkpoint.save", state, step=step)    # faultlib.inject.data.through
    torch.save(state, path)

In the control phase the payload comes back as it is (tensors, plain dicts, floats); in the faulted
phase :class:`LegacyCheckpointObjects` returns a copy whose metadata entries are those objects, with
the same values.
"""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.data import DataShim

OBJECTS = ("namespace", "numpy_scalar", "numpy_array")
_SCALARS = (str, int, float, bool, type(None))


class LegacyCheckpointObjects(DataShim):
    """Save the checkpoint's metadata as ``argparse.Namespace``, NumPy scalars and NumPy arrays.

    At the fault point ``checkpoint.save`` (a repro saves ``through(ctx, "checkpoint.save", state)``,
    :func:`faultlib.inject.data.through`) every top-level entry of the payload dict outside ``keep``
    is converted, by the kinds listed in ``objects``:

    - ``namespace``: a dict of hyper-parameters (identifier keys, JSON scalar values) becomes
      ``argparse.Namespace(**d)``, as ``{"args": parser.parse_args()}`` saved it;
    - ``numpy_scalar``: a float becomes ``numpy.float64`` (what ``np.mean`` or
      ``sklearn.metrics.accuracy_score`` return);
    - ``numpy_array``: a tensor becomes a NumPy array (``tensor.numpy()``; a confusion matrix from
      ``sklearn.metrics.confusion_matrix``).

    The caller's payload is not changed: a converted copy is returned. Each save records a
    ``faultlib.fault`` span listing the converted entries (``converted``: ``key:type``).

    Params:
        objects (array): the kinds to convert, default all three.
        keep (array): top-level keys left as they are, default ``["model", "optimizer"]`` (the weights).

    Raises:
        InjectionError: the payload is not a dict, or nothing in it can be converted.
    """

    name = "legacy_checkpoint_objects"
    summary = "save a checkpoint's metadata as argparse.Namespace / NumPy objects (pre-torch-2.6 style)"
    point = "checkpoint.save"
    params_schema = {
        "type": "object", "additionalProperties": False,
        "properties": {
            "objects": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(OBJECTS)},
                        "default": list(OBJECTS)},
            "keep": {"type": "array", "uniqueItems": True, "items": {"type": "string"},
                     "default": ["model", "optimizer"]},
        },
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.objects = set(params.get("objects", OBJECTS))
        self.keep = set(params.get("keep", ["model", "optimizer"]))

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        import argparse

        import numpy as np
        import torch

        if not isinstance(value, dict):
            raise InjectionError(f"shim {self.name!r}: the checkpoint payload must be a dict, "
                                 f"not {type(value).__name__}")
        out, converted = dict(value), []
        for key, item in value.items():
            if key in self.keep:
                continue
            new = None
            if "namespace" in self.objects and isinstance(item, dict) and item and all(
                    isinstance(k, str) and k.isidentifier() and isinstance(v, _SCALARS) for k, v in item.items()):
                new = argparse.Namespace(**item)
            elif "numpy_scalar" in self.objects and isinstance(item, float):
                new = np.float64(item)
            elif "numpy_array" in self.objects and isinstance(item, torch.Tensor):
                new = item.detach().cpu().numpy()
            if new is not None:
                out[key] = new
                converted.append(f"{key}:{type(new).__module__}.{type(new).__qualname__}")
        if not converted:
            raise InjectionError(f"shim {self.name!r}: nothing outside {sorted(self.keep)} converts to "
                                 f"{sorted(self.objects)} (keys: {', '.join(map(str, value))})")
        return out, {"converted": converted, "keys": len(value)}
