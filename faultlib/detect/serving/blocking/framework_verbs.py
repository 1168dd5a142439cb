"""Methods of an array framework's objects called on a value whose type the analysis does not know, in a module
that imports that framework: ``h = self.model(tokens).realize()`` (tinygrad: ``realize`` runs the scheduled kernels)
where ``self.model`` is built by a helper the analysis cannot type, ``model.load_weights(list(weights.items()))``
(MLX: copies every weight into a model made from a class picked by name at run time).

The verb alone is not enough (``realize`` may be anything's); the verb *and* an import of the framework in the same
module are. Each entry names the documentation of the call. Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.libraries.arrays import MLX_MODULE, TINYGRAD_TENSOR
from faultlib.detect.serving.blocking.model import Func

__all__ = ["VERBS", "framework_verb"]

VERBS: dict[str, tuple[str, str, str]] = {
    "realize": ("tinygrad", "blocking_cpu", TINYGRAD_TENSOR),
    "load_weights": ("mlx", "blocking_file_io", MLX_MODULE),
}
"""method -> (top-level package the module must import, kind, source)."""


def framework_verb(call: ast.Call, func: Func) -> tuple[str, str] | None:
    """``(kind, what)`` when ``call`` is ``x.<verb>(...)`` of :data:`VERBS` in a module importing its framework."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in VERBS:
        return None
    package, kind, _ = VERBS[call.func.attr]
    if package not in func.module.top_packages:
        return None
    return kind, f".{call.func.attr}() ({package}, imported by this module)"
