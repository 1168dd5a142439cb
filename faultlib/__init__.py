"""faultlib: a reproducible fault library for machine-learning systems.

Pillars (one subpackage each): ``cases`` (the catalog format), ``inject`` (fault
shims), ``detect`` (detectors), ``evidence`` (OpenTelemetry recording and reading),
``backends`` (where a run executes), ``archive`` (where evidence goes), ``cli``.

``import faultlib`` stays cheap: torch, onnxruntime and the cloud clients load lazily.
"""

from faultlib.package import __version__ as __version__


def __getattr__(name: str):
    """Lazy exports: ``faultlib.safe_load_state_dict`` (see :mod:`faultlib.detect.checkpoints.state_dict`)."""
    if name == "safe_load_state_dict":
        from faultlib.detect.checkpoints.state_dict import safe_load_state_dict

        return safe_load_state_dict
    raise AttributeError(f"module 'faultlib' has no attribute {name!r}")
