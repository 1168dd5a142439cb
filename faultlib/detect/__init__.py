"""Detectors that catch faults in the user's own training and serving code, one subpackage per family.

=================  ==========================================================================
family             what it inspects
=================  ==========================================================================
``numerics``       activations, gradients, loss scale: overflow, NaN/inf, exploding gradients
``checkpoints``    checkpoint files, state_dicts, optimizer state: loads, keys, shapes, resume
``data``           label maps, batches, joins, preprocessing leakage, covariate drift
``serving``        ONNX models, blocking calls in async services, latency, GPU memory, feature configs
``training``       resume completeness, GradScaler and mixed-precision misuse, optimizer state on resume
=================  ==========================================================================

A detector sits with what it inspects, not with the case that uses it. Every detector has the same
shape: configure it, let it observe (or give it files), and read typed, frozen
:class:`faultlib.findings.Finding` objects.

This module is the public door: every family's public names are importable from here
(``from faultlib.detect import GradientSentinel, LeakageMonitor``). Importing it imports no torch,
numpy, pandas, onnx or asyncio: each name loads its module on first use.
"""

from faultlib.detect import checkpoints, data, numerics, serving, training
from faultlib.findings import Finding as Finding, Severity as Severity  # re-exported
from faultlib.lazy import lazy_exports

_EXPORTS: dict[str, str] = {}
for _family in (numerics, checkpoints, data, serving, training):
    for _name, _module in _family._EXPORTS.items():
        if _name in _EXPORTS:
            raise ImportError(f"faultlib.detect: {_name!r} is exported by two families")
        _EXPORTS[_name] = f"{_family.__name__.rsplit('.', 1)[1]}.{_module}"
del _family, _name, _module
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted([*_EXPORTS, "Finding", "Severity"])
